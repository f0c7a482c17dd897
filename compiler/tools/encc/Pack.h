//===- Pack.h - encc pack: a packed-weights file for an encoder -*- C++ -*-===//
//
// `encc pack model.enc weights -o model.encw [--encoder NAME]` compiles the
// .enc into a temporary shared library (encc --emit=shared, run as a child),
// loads it, and calls the encoder's NAME_pack, which loads and packs the
// weights on this machine's CPU target and writes the packed-weights file
// (docs/weights.md#packed-weights-files). encc itself holds no runtime: the
// packing is the library's, the one that will later map the file.
//
//===----------------------------------------------------------------------===//
#ifndef ENCC_PACK_H
#define ENCC_PACK_H

#include <string>

namespace encc {

struct PackRequest {
  std::string Encc;       ///< this executable, to compile the library
  std::string EncFile;    ///< the .enc
  std::string Weights;    ///< safetensors file or model directory
  std::string Output;     ///< the packed-weights file to write
  std::string Encoder;    ///< which encoder, when the file has several
  std::string RuntimeLib; ///< --runtime-lib, passed on
};

/// Writes the packed-weights file; false, with Error, when compiling,
/// loading or packing fails (the runtime's message included).
bool packWeights(const PackRequest &Request, std::string &Error);

} // namespace encc

#endif // ENCC_PACK_H
