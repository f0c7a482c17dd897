// Which known checkpoint layout a weights file's tensor names look like, so
// that a file in another layout gets an error saying so (docs/weights.md).
#ifndef ENC_RUNTIME_SRC_FOREIGN_LAYOUT_H_
#define ENC_RUNTIME_SRC_FOREIGN_LAYOUT_H_

#include <string>

#include "src/safetensors.h"

namespace enc {

struct ForeignLayout {
  const char* family;  // "BERT", "BERT, RoBERTa or ELECTRA", "T5", ... (static)
  std::string example;  // a tensor of the file that shows it
};

// The Hugging Face layout the file's names follow, by each layout's name
// for block N's query in families.def (BERT and RoBERTa
// `encoder.layer.N.attention.self.query.weight`, DistilBERT
// `transformer.layer.N.attention.q_lin.weight`, T5
// `encoder.block.N.layer.0.SelfAttention.q.weight`, ModernBERT
// `layers.N.attn.Wqkv.weight`, each possibly under its family's prefix), or
// false.
bool GuessForeignLayout(const SafeTensors& file, ForeignLayout* out);

}  // namespace enc

#endif  // ENC_RUNTIME_SRC_FOREIGN_LAYOUT_H_
