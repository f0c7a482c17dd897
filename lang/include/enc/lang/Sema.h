//===- Sema.h - From AST to resolved ModelSpecs -----------------*- C++ -*-===//
//
// Applies inheritance, evaluates expressions (in any order, with cycle
// detection, exact integer division and overflow checks), fills in defaults
// and checks every rule of docs/language.md#settings. Every problem is
// reported; an encoder with an error yields no ModelSpec.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_LANG_SEMA_H
#define ENC_LANG_SEMA_H

#include "enc/lang/AST.h"
#include "enc/lang/Diagnostics.h"
#include "enc/lang/ModelSpec.h"

#include <vector>

namespace enc {

/// Resolves every encoder of `File`. The result holds, in file order, the
/// encoders that resolved without error.
std::vector<ModelSpec> resolveFile(const ast::File &File,
                                   DiagnosticEngine &Diags);

/// The largest value of an integer dimension that the runtime's int32 ABI
/// (token ids, sequence lengths) can carry.
constexpr int64_t MaxInt32Setting = 2147483647;
/// The widest attention (heads * head_dim) encc compiles.
constexpr int64_t MaxAttentionWidth = 1048576;
/// The most labels a classifier head outputs.
constexpr int64_t MaxHeadLabels = 1048576;

} // namespace enc

#endif // ENC_LANG_SEMA_H
