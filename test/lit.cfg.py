# -*- Python -*-
# lit configuration for encc: .enc and .mlir files under test/ are tests.
import os
import platform

import lit.formats
from lit.llvm import llvm_config

config.name = "encc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".enc", ".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "main.cpp"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.encc_obj_root, "test")

# Tools: encc from the build tree; FileCheck, not, count, split-file from LLVM.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.encc_tools_dir, append_path=True)
llvm_config.use_default_substitutions()
config.substitutions.append(("%python", config.python_executable))
llvm_config.add_tool_substitutions(["encc", "encc-opt"], [config.encc_tools_dir])
if platform.machine() == "x86_64":
    config.available_features.add("x86_64")
# Colour would put escape codes into what FileCheck reads.
config.environment["TERM"] = "dumb"

# Another runtime build can be tested with this build's encc, e.g. a
# ThreadSanitizer runtime (scripts/sanitize.sh):
#   lit -Denc_runtime_lib=.../libenc_runtime.a -Dsanitize_flags=-fsanitize=thread
config.enc_runtime_lib = lit_config.params.get("enc_runtime_lib", config.enc_runtime_lib)
config.sanitize_flags = lit_config.params.get("sanitize_flags", config.sanitize_flags)
if config.sanitize_flags:
    # Programs compiled by the tests link the sanitized runtime: same flags.
    config.cxx = config.cxx + " " + config.sanitize_flags
    config.cc = config.cc + " " + config.sanitize_flags
    config.available_features.add("sanitizer")
    if "address" in config.sanitize_flags:
        config.available_features.add("asan")
    if "thread" in config.sanitize_flags:
        config.available_features.add("tsan")
    for name in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"):
        if name in os.environ:
            config.environment[name] = os.environ[name]

# The end-to-end tests compile models with encc and link them with the
# runtime (test/e2e/encc_case.py reads these).
config.environment["ENCC"] = os.path.join(config.encc_tools_dir, "encc")
config.environment["ENC_RUNTIME_LIB"] = config.enc_runtime_lib
config.environment["ENC_RUNTIME_INCLUDE"] = config.enc_runtime_include
config.environment["ENC_LINK_LIBS"] = config.enc_link_libs
config.environment["CXX"] = config.cxx
config.environment["CC"] = config.cc
config.substitutions.append(("%encc_build_dir", config.encc_obj_root))
config.substitutions.append(("%bindir", os.path.join(config.encc_obj_root, "bin")))
# The examples' demos (in bin/), built through enc_add_model (ENC_BUILD_EXAMPLES).
if os.path.isdir(os.path.join(config.encc_obj_root, "examples")):
    config.available_features.add("examples")
config.substitutions.append(("%cxx", config.cxx))
config.substitutions.append(("%cc", config.cc))
# The compilers themselves, for tests that configure a CMake project.
config.substitutions.append(("%cmake_compilers", "-DCMAKE_C_COMPILER=%s -DCMAKE_CXX_COMPILER=%s"
                             % (config.cc.split()[0], config.cxx.split()[0])))
config.substitutions.append(("%enc_runtime_lib", config.enc_runtime_lib))
config.substitutions.append(("%enc_runtime_include", config.enc_runtime_include))
config.substitutions.append(("%enc_link_libs", config.enc_link_libs))
