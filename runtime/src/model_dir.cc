#include "src/model_dir.h"

#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "src/status.h"

namespace enc {
namespace {

using json = nlohmann::json;

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// A module path of modules.json: relative, no "..", no empty component
// but the whole ("" is the directory itself).
bool InsideDirectory(const std::string& p) {
  if (p.empty()) return true;
  if (p[0] == '/') return false;
  std::stringstream parts(p);
  std::string part;
  while (std::getline(parts, part, '/'))
    if (part == "..") return false;
  return true;
}

// dir/sub/model.safetensors, or an error that says what the folder holds
// instead.
enc_status OpenWeightsIn(const std::string& dir, const std::string& sub,
                         std::unique_ptr<SafeTensors>* out) {
  const std::string folder = sub.empty() ? dir : dir + "/" + sub;
  const std::string path = folder + "/model.safetensors";
  if (!Exists(path)) {
    if (Exists(folder + "/model.safetensors.index.json")) {
      return Fail(ENC_ERR_IO,
                  "%s: a sharded checkpoint (model.safetensors.index.json); "
                  "encc reads one model.safetensors",
                  folder.c_str());
    }
    if (Exists(folder + "/pytorch_model.bin")) {
      return Fail(ENC_ERR_IO,
                  "%s: only pytorch_model.bin, no model.safetensors (convert "
                  "it: docs/weights.md#model-directories)",
                  folder.c_str());
    }
    return Fail(ENC_ERR_IO, "%s: a model directory without model.safetensors",
                folder.c_str());
  }
  return SafeTensors::Open(path, out);
}

}  // namespace

enc_status OpenModelDirectory(const std::string& dir,
                              std::unique_ptr<SafeTensors>* main,
                              std::vector<ModuleFile>* modules) {
  main->reset();
  modules->clear();
  const std::string modules_path = dir + "/modules.json";
  std::string transformer;
  std::vector<std::string> dense;
  if (Exists(modules_path)) {
    std::ifstream in(modules_path, std::ios::binary);
    const json list = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!list.is_array()) {
      return Fail(ENC_ERR_FORMAT, "%s: not a JSON list of modules",
                  modules_path.c_str());
    }
    for (const json& m : list) {
      const json* type =
          m.is_object() && m.contains("type") ? &m["type"] : nullptr;
      const json* path =
          m.is_object() && m.contains("path") ? &m["path"] : nullptr;
      if (!type || !path || !type->is_string() || !path->is_string()) {
        return Fail(ENC_ERR_FORMAT,
                    "%s: a module without a string 'type' and 'path'",
                    modules_path.c_str());
      }
      const std::string t = type->get<std::string>();
      const std::string p = path->get<std::string>();
      if (!InsideDirectory(p)) {
        return Fail(ENC_ERR_FORMAT,
                    "%s: module path '%s' is outside the directory",
                    modules_path.c_str(), p.c_str());
      }
      const std::string kind = t.substr(t.rfind('.') + 1);
      if (kind == "Transformer" || kind == "MLMTransformer") transformer = p;
      if (kind == "Dense") dense.push_back(p);
    }
  }
  if (enc_status s = OpenWeightsIn(dir, transformer, main)) return s;
  for (const std::string& p : dense) {
    ModuleFile m{p + "/", nullptr};
    if (enc_status s = OpenWeightsIn(dir, p, &m.file)) return s;
    modules->push_back(std::move(m));
  }
  return ENC_OK;
}

}  // namespace enc
