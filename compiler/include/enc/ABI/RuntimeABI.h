//===- RuntimeABI.h - LLVM types from the runtime's C headers ---*- C++ -*-===//
//
// The runtime's plain-C headers are the one source of truth of the ABI
// between generated code and the runtime (docs/c-abi.md). The lowering
// includes them and derives every LLVM type it needs from the C
// declarations, so that nothing is typed twice:
//
//   - a callee's type from `decltype` of the C function (ENC_RUNTIME_CALLEE;
//     unevaluated, so encc does not link the runtime);
//   - a struct's LLVM layout from a list of its fields (ENC_RUNTIME_STRUCT),
//     checked at compile time against offsetof and sizeof and against the
//     number of fields the C struct has, so that a field added on one side
//     fails to compile.
//
//===----------------------------------------------------------------------===//
#ifndef ENC_ABI_RUNTIMEABI_H
#define ENC_ABI_RUNTIMEABI_H

#include "enc/kernels.h"
#include "enc/library.h"
#include "enc/runtime.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <type_traits>
#include <utility>

namespace enc::abi {

//===----------------------------------------------------------------------===//
// C types -> LLVM dialect types
//===----------------------------------------------------------------------===//

/// The LLVM dialect type of the C type T. A C type with no mapping here is a
/// compile error, not a guess.
template <typename T, typename Enable = void> struct LLVMType {
  static_assert(sizeof(T) == 0, "RuntimeABI.h: no LLVM type for this C type");
};
template <> struct LLVMType<void> {
  static mlir::Type get(mlir::MLIRContext *C) {
    return mlir::LLVM::LLVMVoidType::get(C);
  }
};
template <> struct LLVMType<int32_t> {
  static mlir::Type get(mlir::MLIRContext *C) {
    return mlir::IntegerType::get(C, 32);
  }
};
template <> struct LLVMType<int64_t> {
  static mlir::Type get(mlir::MLIRContext *C) {
    return mlir::IntegerType::get(C, 64);
  }
};
template <> struct LLVMType<float> {
  static mlir::Type get(mlir::MLIRContext *C) {
    return mlir::Float32Type::get(C);
  }
};
/// Every data pointer is an opaque `!llvm.ptr`.
template <typename T> struct LLVMType<T *> {
  static mlir::Type get(mlir::MLIRContext *C) {
    return mlir::LLVM::LLVMPointerType::get(C);
  }
};
/// C enums are passed as int (enc_status, enc_activation, ...).
template <typename E> struct LLVMType<E, std::enable_if_t<std::is_enum_v<E>>> {
  static_assert(sizeof(E) == sizeof(int32_t), "a C enum is an i32");
  static mlir::Type get(mlir::MLIRContext *C) {
    return mlir::IntegerType::get(C, 32);
  }
};
template <typename T, size_t N> struct LLVMType<T[N]> {
  static mlir::Type get(mlir::MLIRContext *C) {
    return mlir::LLVM::LLVMArrayType::get(LLVMType<T>::get(C), N);
  }
};
/// A function type, from `decltype(enc_gemm)`.
template <typename R, typename... A> struct LLVMType<R(A...)> {
  static mlir::LLVM::LLVMFunctionType get(mlir::MLIRContext *C) {
    return mlir::LLVM::LLVMFunctionType::get(LLVMType<R>::get(C),
                                             {LLVMType<A>::get(C)...});
  }
};

template <typename Fn> struct Arity;
template <typename R, typename... A> struct Arity<R(A...)> {
  static constexpr size_t value = sizeof...(A);
};

/// A runtime function the lowering calls: its C name and its LLVM type,
/// derived from the C declaration.
struct Callee {
  llvm::StringRef Name;
  mlir::LLVM::LLVMFunctionType (*Type)(mlir::MLIRContext *);
  size_t NumArgs;
};

/// `ENC_RUNTIME_CALLEE(enc_gemm)`: the Callee for runtime function enc_gemm.
#define ENC_RUNTIME_CALLEE(Fn)                                                 \
  ::enc::abi::Callee {                                                         \
    #Fn, &::enc::abi::LLVMType<decltype(Fn)>::get,                             \
        ::enc::abi::Arity<decltype(Fn)>::value                                 \
  }

//===----------------------------------------------------------------------===//
// Structs the lowering builds
//===----------------------------------------------------------------------===//

/// One field of a C struct, as the compiler sees it.
struct Field {
  const char *Name;
  size_t Offset;
  size_t Size;
  size_t Align;
  size_t Leaves; ///< scalar initializers it takes (an array: its length)
  mlir::Type (*Type)(mlir::MLIRContext *);
};

namespace detail {
template <typename T> constexpr size_t leaves() {
  if constexpr (std::is_array_v<T>)
    return std::extent_v<T>;
  else
    return 1;
}

/// Converts to anything a scalar field can hold: probes how many scalar
/// initializers an aggregate takes.
struct AnyScalar {
  template <typename T> constexpr operator T() const noexcept { return T(); }
};
// The probe relies on brace elision (an array field takes its elements
// one by one), which clang's -Wmissing-braces flags.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wmissing-braces"
#endif
template <typename S, size_t... I>
constexpr auto initializable(std::index_sequence<I...>)
    -> decltype(S{(void(I), AnyScalar())...}, true) {
  return true;
}
#if defined(__clang__)
#pragma clang diagnostic pop
#endif
template <typename S> constexpr bool initializable(...) { return false; }

/// True when the fields, laid out in order with C's natural alignment, are
/// exactly S: every offset, the size, and the field count (an extra field
/// anywhere, even in trailing padding, makes S take more initializers).
template <typename S, size_t N>
constexpr bool matchesLayout(const Field (&Fields)[N]) {
  size_t Offset = 0, MaxAlign = 1, Leaves = 0;
  for (const Field &F : Fields) {
    Offset = (Offset + F.Align - 1) / F.Align * F.Align;
    if (Offset != F.Offset)
      return false;
    Offset += F.Size;
    MaxAlign = F.Align > MaxAlign ? F.Align : MaxAlign;
    Leaves += F.Leaves;
  }
  return (Offset + MaxAlign - 1) / MaxAlign * MaxAlign == sizeof(S) &&
         alignof(S) == MaxAlign && Leaves > 0;
}
template <typename S, size_t Leaves> constexpr bool hasExactlyLeaves() {
  return initializable<S>(std::make_index_sequence<Leaves>()) &&
         !initializable<S>(std::make_index_sequence<Leaves + 1>());
}
} // namespace detail

/// The field list of a runtime struct; specialised by ENC_RUNTIME_STRUCT.
template <typename S> struct RuntimeStruct;

#define ENC_RUNTIME_FIELD(S, F)                                                \
  ::enc::abi::Field{#F,                                                        \
                    offsetof(S, F),                                            \
                    sizeof(decltype(S::F)),                                    \
                    alignof(decltype(S::F)),                                   \
                    ::enc::abi::detail::leaves<decltype(S::F)>(),              \
                    &::enc::abi::LLVMType<decltype(S::F)>::get},

namespace detail {
template <size_t N> constexpr size_t leaves(const Field (&Fields)[N]) {
  size_t Total = 0;
  for (const Field &F : Fields)
    Total += F.Leaves;
  return Total;
}
} // namespace detail

/// The checks of RuntimeStruct<S>: its Fields are exactly S's, in order.
#define ENC_RUNTIME_STRUCT_CHECK(S)                                            \
  static_assert(detail::matchesLayout<S>(RuntimeStruct<S>::Fields),            \
                "RuntimeABI.h: the field list of " #S                          \
                " does not match its C definition");                           \
  static_assert(                                                               \
      detail::hasExactlyLeaves<S, detail::leaves(RuntimeStruct<S>::Fields)>(), \
      "RuntimeABI.h: " #S " has fields the list does not name");

/// ENC_RUNTIME_STRUCT(S, FIELDS): FIELDS(X) expands X(S, field) for each
/// field of C struct S, in order.
#define ENC_RUNTIME_STRUCT(S, FIELDS)                                          \
  template <> struct RuntimeStruct<S> {                                        \
    static constexpr Field Fields[] = {FIELDS(ENC_RUNTIME_FIELD)};             \
  };                                                                           \
  ENC_RUNTIME_STRUCT_CHECK(S)

#define ENC_INPUT_FIELDS(X)                                                    \
  X(enc_input, batch)                                                          \
  X(enc_input, seq_len)                                                        \
  X(enc_input, embeddings)                                                     \
  X(enc_input, tokens)                                                         \
  X(enc_input, token_types)                                                    \
  X(enc_input, lengths)
ENC_RUNTIME_STRUCT(enc_input, ENC_INPUT_FIELDS)

#define ENC_MODEL_INFO_FIELDS(X)                                               \
  X(enc_model_info, d_model)                                                   \
  X(enc_model_info, max_len)                                                   \
  X(enc_model_info, vocab)                                                     \
  X(enc_model_info, type_vocab)
ENC_RUNTIME_STRUCT(enc_model_info, ENC_MODEL_INFO_FIELDS)

#define ENC_WEIGHT_DESC_FIELDS(X)                                              \
  X(enc_weight_desc, kind)                                                     \
  X(enc_weight_desc, num_parts)                                                \
  X(enc_weight_desc, names)                                                    \
  X(enc_weight_desc, rows)                                                     \
  X(enc_weight_desc, cols)                                                     \
  X(enc_weight_desc, min_file_rows)                                            \
  X(enc_weight_desc, checkpoint)                                               \
  X(enc_weight_desc, precision)
ENC_RUNTIME_STRUCT(enc_weight_desc, ENC_WEIGHT_DESC_FIELDS)

#define ENC_ATTENTION_PARAMS_FIELDS(X)                                         \
  X(enc_attention_params, heads)                                               \
  X(enc_attention_params, d_k)                                                 \
  X(enc_attention_params, max_len)                                             \
  X(enc_attention_params, scale)                                               \
  X(enc_attention_params, rope_style)                                          \
  X(enc_attention_params, rope_cos)                                            \
  X(enc_attention_params, rope_sin)                                            \
  X(enc_attention_params, alibi_slopes)                                        \
  X(enc_attention_params, rel_bucket)                                          \
  X(enc_attention_params, rel_table)                                           \
  X(enc_attention_params, rel_buckets)                                         \
  X(enc_attention_params, window)                                              \
  X(enc_attention_params, probs)
ENC_RUNTIME_STRUCT(enc_attention_params, ENC_ATTENTION_PARAMS_FIELDS)

/// enc_encoder_info (enc/library.h), a shared library's description of an
/// encoder: abi_version, name, the ENC_MODEL_INFO facts of ModelABI.def,
/// then a pointer per ENC_MODEL_FUNCTION row, named by its suffix.
template <> struct RuntimeStruct<enc_encoder_info> {
  static constexpr Field Fields[] = {ENC_RUNTIME_FIELD(
      enc_encoder_info, abi_version) ENC_RUNTIME_FIELD(enc_encoder_info, name)
#define ENC_MODEL_INFO(Field, Fact) ENC_RUNTIME_FIELD(enc_encoder_info, Field)
#include "enc/ABI/ModelABI.def"
#define ENC_MODEL_FUNCTION(Suffix, Typedef, Return, Params, Doc)               \
  ENC_RUNTIME_FIELD(enc_encoder_info, Suffix)
#include "enc/ABI/ModelABI.def"
  };
};
ENC_RUNTIME_STRUCT_CHECK(enc_encoder_info)

//===----------------------------------------------------------------------===//
// What a shared library exports besides its encoders
//===----------------------------------------------------------------------===//

/// The runtime's public C API (enc/runtime.h), named from its declarations.
#define ENC_PUBLIC_FUNCTION(Fn) (static_cast<void>(&Fn), #Fn)
inline constexpr const char *PublicFunctions[] = {
    ENC_PUBLIC_FUNCTION(enc_last_error),
    ENC_PUBLIC_FUNCTION(enc_set_num_threads),
    ENC_PUBLIC_FUNCTION(enc_status_name),
};
#undef ENC_PUBLIC_FUNCTION

/// The LLVM struct type of runtime struct S.
template <typename S>
mlir::LLVM::LLVMStructType structType(mlir::MLIRContext *C) {
  llvm::SmallVector<mlir::Type> Types;
  for (const Field &F : RuntimeStruct<S>::Fields)
    Types.push_back(F.Type(C));
  return mlir::LLVM::LLVMStructType::getLiteral(C, Types);
}

/// The position of field `Name` in S, if S has one.
template <typename S> std::optional<unsigned> fieldIndex(llvm::StringRef Name) {
  for (unsigned I = 0; I < std::size(RuntimeStruct<S>::Fields); ++I)
    if (Name == RuntimeStruct<S>::Fields[I].Name)
      return I;
  return std::nullopt;
}

/// `ENC_FIELD(enc_attention_params, rope_cos)`: the position of a field,
/// checked to exist at compile time.
#define ENC_FIELD(S, F)                                                        \
  (static_cast<void>(sizeof(decltype(S::F))), *::enc::abi::fieldIndex<S>(#F))

} // namespace enc::abi

#endif // ENC_ABI_RUNTIMEABI_H
