//===- HFImport.h - A Hugging Face config as a .enc file --------*- C++ -*-===//
//
// `encc import DIR_OR_CONFIG`: reads a Hugging Face `config.json` (or a
// sentence-transformers model directory: config.json, modules.json,
// 1_Pooling/config.json, a Normalize module) and writes the .enc encoder that
// describes it, with its checkpoint layout set and each value commented with
// the key it came from (docs/import.md). A config encc cannot express is an
// error naming the key and its value, never a silently different model.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_TOOLS_ENCC_HFIMPORT_H
#define ENC_TOOLS_ENCC_HFIMPORT_H

#include <string>
#include <vector>

namespace enc {

struct HFImportResult {
  std::string Enc;                   ///< the .enc text, when no error
  std::vector<std::string> Errors;   ///< "config.json: key 'x' ..."
  std::vector<std::string> Warnings; ///< keys not known to be harmless
};

/// Imports `Path` (a directory holding config.json, or a config.json file).
/// `Name` is the encoder name; empty derives one from the directory.
HFImportResult importHuggingFace(const std::string &Path,
                                 const std::string &Name);

/// A C identifier from a model name ("all-MiniLM-L6-v2" -> all_minilm_l6_v2).
std::string encoderNameFor(const std::string &ModelName);

} // namespace enc

#endif // ENC_TOOLS_ENCC_HFIMPORT_H
