# enc_add_model(<target> <file.enc> [ENCODER <name>] [NAME <stem>]
#               [ENCC_OPTIONS <opt>...])
#
# Compiles <file.enc> with encc at build time into <stem>.o and <stem>.h (in
# ${CMAKE_CURRENT_BINARY_DIR}/enc_models/<stem>), adds the object to
# <target>, puts the header on its include path and links the encc runtime,
# like add_halide_library. <stem> defaults to the .enc file's name;
# ENCODER restricts the object to one encoder of the file. The rule also
# depends on the tokenizer files the .enc compiles in (encc --depfile), so
# editing one rebuilds the model.
#
#   find_package(enc REQUIRED)
#   add_executable(app main.c)
#   enc_add_model(app bert_base.enc)     # then: #include "bert_base.h"
#
# enc_add_model(<target> <file.enc> SHARED [ENCODER <name>] [NAME <stem>]
#               [ENCC_OPTIONS <opt>...])
#
# Builds lib<stem>.so (encc --emit=shared: the encoders and the runtime, for
# the Python package `enc` or dlopen) and <stem>.h in
# ${CMAKE_CURRENT_BINARY_DIR}/enc_libraries/<stem>, as the
# new target <target>, built by default. Its properties ENC_LIBRARY and
# ENC_HEADER give the two paths.
#
#   enc_add_model(seed_toy_lib seed_toy.enc SHARED)
function(enc_add_model target enc_file)
  cmake_parse_arguments(ARG "SHARED" "ENCODER;NAME" "ENCC_OPTIONS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "enc_add_model: unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(source "${enc_file}" ABSOLUTE)
  get_filename_component(stem "${enc_file}" NAME_WE)
  if(ARG_NAME)
    set(stem "${ARG_NAME}")
  endif()
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/enc_models/${stem}")
  set(object "${out_dir}/${stem}${CMAKE_C_OUTPUT_EXTENSION}")
  if(NOT CMAKE_C_OUTPUT_EXTENSION)
    set(object "${out_dir}/${stem}.o")
  endif()
  set(header "${out_dir}/${stem}.h")
  set(options ${ARG_ENCC_OPTIONS})
  if(ARG_ENCODER)
    list(APPEND options "--encoder=${ARG_ENCODER}")
  endif()
  if(ARG_SHARED)
    # Apart from an object of the same file, whose header is built too.
    set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/enc_libraries/${stem}")
    set(header "${out_dir}/${stem}.h")
    set(library "${out_dir}/lib${stem}.so")
    # encc links through the C++ compiler driver of this project.
    add_custom_command(
      OUTPUT "${library}" "${header}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${out_dir}"
      COMMAND "${CMAKE_COMMAND}" -E env "CXX=${CMAKE_CXX_COMPILER}"
              $<TARGET_FILE:enc::encc> "${source}" --emit=shared -o "${library}"
              --header "${header}" "--runtime-lib=$<TARGET_FILE:enc::runtime>"
              --depfile "${out_dir}/lib${stem}.d" ${options}
      DEPENDS "${source}" enc::encc enc::runtime
      DEPFILE "${out_dir}/lib${stem}.d"
      COMMENT "encc ${enc_file} -> lib${stem}.so, ${stem}.h"
      VERBATIM)
    add_custom_target(${target} ALL DEPENDS "${library}" "${header}")
    set_target_properties(${target} PROPERTIES ENC_LIBRARY "${library}"
                                               ENC_HEADER "${header}")
    return()
  endif()
  add_custom_command(
    OUTPUT "${object}" "${header}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${out_dir}"
    COMMAND enc::encc "${source}" -o "${object}" --header "${header}"
            --depfile "${out_dir}/${stem}.d" ${options}
    DEPENDS "${source}" enc::encc
    DEPFILE "${out_dir}/${stem}.d"
    COMMENT "encc ${enc_file} -> ${stem}.o, ${stem}.h"
    VERBATIM)
  set_source_files_properties("${object}" PROPERTIES EXTERNAL_OBJECT TRUE
                                                     GENERATED TRUE)
  set_source_files_properties("${header}" PROPERTIES GENERATED TRUE)
  target_sources(${target} PRIVATE "${object}" "${header}")
  target_include_directories(${target} PRIVATE "${out_dir}")
  target_link_libraries(${target} PRIVATE enc::runtime)
  # A `tokenizer = "..."` setting compiles calls into the tokenizer library.
  if(TARGET enc::tokenizer)
    target_link_libraries(${target} PRIVATE enc::tokenizer)
  endif()
endfunction()
