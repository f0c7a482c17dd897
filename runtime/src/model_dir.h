// A model directory as Hugging Face and sentence-transformers save one
// (docs/weights.md#model-directories): the Transformer module's
// model.safetensors, and each Dense module's own, whose tensors are named
// under the module's path ("2_Dense/linear.weight").
#ifndef ENC_RUNTIME_SRC_MODEL_DIR_H_
#define ENC_RUNTIME_SRC_MODEL_DIR_H_

#include <memory>
#include <string>
#include <vector>

#include "src/safetensors.h"

namespace enc {

struct ModuleFile {
  std::string prefix;  // "2_Dense/"
  std::unique_ptr<SafeTensors> file;
};

// Opens the weights files of directory `dir`: its modules.json when it has
// one (the Transformer's path, the Dense modules' paths), else the directory
// itself as the Transformer's. ENC_ERR_IO naming the file when one is
// missing (a sharded or a pytorch_model.bin-only checkpoint says so),
// ENC_ERR_FORMAT when modules.json is malformed or names a path outside the
// directory.
enc_status OpenModelDirectory(const std::string& dir,
                              std::unique_ptr<SafeTensors>* main,
                              std::vector<ModuleFile>* modules);

}  // namespace enc

#endif  // ENC_RUNTIME_SRC_MODEL_DIR_H_
