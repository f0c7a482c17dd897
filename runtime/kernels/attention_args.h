// What one attention call computes, shared by enc_attention and
// enc_attention_block (attention.cc, attention_block.cc) and the SIMD body
// (attention-inl.h).
#ifndef ENC_KERNELS_ATTENTION_ARGS_H_
#define ENC_KERNELS_ATTENTION_ARGS_H_

#include <stddef.h>
#include <stdint.h>

#include <atomic>

#include "enc/kernels/attention.h"

namespace enc {
struct AttentionArgs {
  enc_attention_params p;
  int32_t batch, seq_len;
  const int32_t* lengths;    // or nullptr
  const int64_t* first_row;  // [batch]: sequence b's first packed row
  // Keys and values of every packed row, ld_kv apart.
  const float* k;
  const float* v;
  int64_t ld_kv;
  // The queries of the packed rows [q_first, q_end) and their output: row
  // q_first + r at q + r * ld_q and out + r * ld_out (out may be q).
  const float* q;
  int64_t ld_q;
  float* out;
  int64_t ld_out;
  int64_t q_first, q_end;
  // Whether this call zeroes the probability rows past each sequence's
  // length (NAME_forward_attention; once per layer, not once per chunk).
  bool zero_padding_probs = true;
  std::atomic<bool> out_of_memory{false};
  // Sequences at least this long run head by head over all threads
  // (AttentionSplitFrom); the rest one (sequence, head) per task.
  size_t split_from = SIZE_MAX;
  // Keys per step of the online softmax (AttentionTileKeys; rounded up to
  // the target's key block).
  size_t tile_keys = 0;
  // The heads this call runs, [head0, head_end) (head_end 0: every head).
  // q, k, v and out hold head h at columns Col(h); the positional bias and
  // the probabilities are indexed by h among all p.heads.
  int64_t head0 = 0, head_end = 0;

  int64_t HeadEnd() const { return head_end > 0 ? head_end : p.heads; }
  int64_t Heads() const { return HeadEnd() - head0; }
  int64_t Col(int64_t h) const { return (h - head0) * p.d_k; }
};

// The online softmax's tile: a block of query rows scores this many keys at
// a time, so its scores stay in L1 (6 rows x 2 KiB) whatever the length.
constexpr size_t kAttentionTileKeys = 512;

// kAttentionTileKeys, or what a test set.
size_t AttentionTileKeys();

// Tests: keys > 0 makes every tile that many keys (rounded up to the target's
// key block), to cross tile edges in short sequences; 0 restores the default.
void SetAttentionTileKeysForTest(int64_t keys);

// From this length on, a sequence's heads run one at a time with every
// thread on each (shared panels): below it, per-(sequence, head) tasks
// already keep the threads busy and a head's panels are small.
constexpr size_t kAttentionSplitFrom = 1024;

// The length from which sequences run head by head, for `threads` threads:
// kAttentionSplitFrom when threads > 1, else never; or what a test set.
size_t AttentionSplitFrom(int threads);

// Tests: min_len > 0 splits every sequence at least that long (whatever the
// thread count); 0 restores the default.
void SetAttentionSplitFromForTest(int64_t min_len);

// The heads enc_attention_block keeps the keys and values of every row of at
// once, for `rows` rows: all of them while those fit in
// ENC_ATTENTION_BLOCK_KV_BYTES; else as many as
// ENC_ATTENTION_BLOCK_GROUP_BYTES holds, in steps of the fewest heads whose
// columns fill whole panels of the packed weights (`panel` wide), so that
// no projection computes columns it throws away; at least one such step.
int64_t AttentionBlockHeadsPerGroup(int64_t rows, int64_t heads, int64_t d_k,
                                    int64_t panel);

// Tests: heads > 0 makes enc_attention_block run that many heads per group
// whatever the rows (kernels/attention_block.cc); 0 restores the default.
void SetAttentionBlockHeadsPerGroupForTest(int64_t heads);

// Each sequence's first packed row, in a buffer of the calling thread kept
// for its next call; *rows: the packed rows of all of them.
const int64_t* FirstRows(int32_t batch, int32_t seq_len, const int32_t* lengths,
                         int64_t* rows);

// Checks batch (>= 0), seq_len (>= 1) and params against seq_len
// (ENC_ERR_INPUT naming fn's argument).
enc_status CheckAttentionParams(const char* fn, const enc_attention_params* p,
                                int32_t batch, int32_t seq_len);

// Runs `a` on the best target; false if scratch could not be allocated.
bool RunAttention(AttentionArgs& a);
}  // namespace enc

#endif  // ENC_KERNELS_ATTENTION_ARGS_H_
