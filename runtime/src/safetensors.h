// Reading safetensors files (docs/weights.md): the file is mapped read-only,
// its header fully validated at open, and tensors converted to float on Get.
// Never reads outside the file, whatever the header says.
#ifndef ENC_RUNTIME_SRC_SAFETENSORS_H_
#define ENC_RUNTIME_SRC_SAFETENSORS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "enc/kernels/weights.h"
#include "enc/runtime.h"

namespace enc {

struct TensorInfo {
  std::string dtype;            // as written: "F32", "BF16", ...
  int bits = 0;                 // bits per element
  std::vector<int64_t> shape;   // each >= 0
  uint64_t count = 0;           // product of shape
  uint64_t begin = 0, end = 0;  // byte offsets into the data section
};

class SafeTensors {
 public:
  // Maps and validates `path`. ENC_ERR_IO if it cannot be opened or read (or
  // is a directory), ENC_ERR_FORMAT if it is not valid safetensors; the
  // message (enc_last_error) names the file and, where it applies, the tensor.
  static enc_status Open(const std::string& path,
                         std::unique_ptr<SafeTensors>* out);

  SafeTensors(const SafeTensors&) = delete;
  SafeTensors& operator=(const SafeTensors&) = delete;
  ~SafeTensors();

  const std::string& path() const { return path_; }
  const std::map<std::string, TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo* Find(const std::string& name) const;

  // Converts tensor `name` (F32, F16 or BF16) to float into dst. Its shape
  // must equal `shape`, except that with `allow_more_rows` its first
  // dimension may be larger (only the first shape[0] rows are copied).
  // ENC_ERR_WEIGHTS when the tensor is missing or its shape or dtype differ.
  enc_status Get(const std::string& name, const std::vector<int64_t>& shape,
                 bool allow_more_rows, float* dst) const;

  // Checks tensor `name` as Get does (exact shape); when it is F32 with
  // 4-byte aligned data, *data points at its floats inside the mapping,
  // otherwise *data is nullptr (use Get). Valid until Release or close.
  enc_status View(const std::string& name, const std::vector<int64_t>& shape,
                  const float** data) const;

  // Rows [rows.first, rows.first + rows.count) of tensor `name`, whose
  // shape must be `shape` exactly (a row slice of a fused tensor,
  // docs/weights.md#hugging-face-layouts): as Get and View, for those rows
  // alone. ENC_ERR_INPUT if the rows are not within shape[0].
  struct Rows {
    int64_t first = 0, count = 0;
  };
  enc_status GetRows(const std::string& name, const std::vector<int64_t>& shape,
                     Rows rows, float* dst) const;
  enc_status ViewRows(const std::string& name,
                      const std::vector<int64_t>& shape, Rows rows,
                      const float** data) const;

  // Drops the tensor's file pages (or those of its rows `rows`) from the
  // process's resident set once its data has been consumed (a later read
  // faults them back in). Unknown names and rows are ignored.
  void Release(const std::string& name) const;
  void ReleaseRows(const std::string& name, Rows rows) const;

 private:
  SafeTensors() = default;
  enc_status Check(const std::string& name, const std::vector<int64_t>& shape,
                   bool allow_more_rows, const TensorInfo** out) const;
  // Rows [first, first + count) of a tensor that passed Check, as bytes
  // [*begin, *end) of the data section; false if they are not in it.
  static bool RowBytes(const TensorInfo& t, Rows rows, uint64_t* begin,
                       uint64_t* end);
  // Check, then RowBytes: an error names the rows and the tensor's.
  enc_status CheckRows(const std::string& name,
                       const std::vector<int64_t>& shape, Rows rows,
                       const TensorInfo** t, uint64_t* begin,
                       uint64_t* end) const;
  void Convert(const TensorInfo& t, uint64_t begin, uint64_t count,
               float* dst) const;
  void ReleaseBytes(uint64_t begin, uint64_t end) const;

  std::string path_;
  const uint8_t* map_ = nullptr;
  size_t size_ = 0;
  const uint8_t* data_ = nullptr;  // start of the data section
  uint64_t data_size_ = 0;
  std::map<std::string, TensorInfo> tensors_;
};

// The file behind a handle of enc/kernels/weights.h.
const SafeTensors& FileOf(const enc_weights* w);
// The file of a directory's weights that holds `name` (a Dense module's
// for "2_Dense/...", else the model's), and the name in it.
const SafeTensors& FileOf(const enc_weights* w, const std::string& name,
                          std::string* local);

// The files behind a handle: the model's, then a directory's modules'.
std::vector<std::string> FilePaths(const enc_weights* w);

// Exact conversions of one element (subnormals, infinities and NaNs kept).
float HalfToFloat(uint16_t h);
float BFloat16ToFloat(uint16_t h);

}  // namespace enc

#endif  // ENC_RUNTIME_SRC_SAFETENSORS_H_
