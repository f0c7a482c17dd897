// The tokenizer's lookup tables as flat arrays
// (docs/tokenizers.md#compiled-in): built when a file is read, or viewed in
// place in a compiled tokenizer image (tokenizer/image.h), so opening an image
// builds no hash table. Each table checks itself (Check*), because an image may
// be hostile: a table that passes never makes a lookup read out of bounds or
// loop.
#ifndef ENC_RUNTIME_TOKENIZER_TABLES_H_
#define ENC_RUNTIME_TOKENIZER_TABLES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace enc {
namespace tok {

// An array that is either owned (while it is built) or a view of memory
// that outlives it (an image's bytes).
template <class T>
class Table {
 public:
  size_t size() const { return view_ != nullptr ? view_size_ : own_.size(); }
  bool empty() const { return size() == 0; }
  const T* data() const { return view_ != nullptr ? view_ : own_.data(); }
  const T& operator[](size_t i) const { return data()[i]; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size(); }

  // The owned array, to build; a view is copied into it first.
  std::vector<T>& Edit() {
    if (view_ != nullptr) {
      own_.assign(view_, view_ + view_size_);
      view_ = nullptr;
      view_size_ = 0;
    }
    return own_;
  }
  void View(const T* data, size_t size) {
    own_.clear();
    own_.shrink_to_fit();
    view_ = size == 0 ? nullptr : data;
    view_size_ = size;
  }

 private:
  std::vector<T> own_;
  const T* view_ = nullptr;
  size_t view_size_ = 0;
};

// The hash of a byte string, the same in the compiler and the runtime (an
// image stores tables hashed with it: changing it changes the image
// version, tokenizer/image.cc).
inline uint64_t HashBytes(const char* p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xBF58476D1CE4E5B9ULL);
  auto mix = [&](uint64_t w) {
    h = (h ^ w) * 0x94D049BB133111EBULL;
    h ^= h >> 31;
  };
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    mix(w);
  }
  uint64_t w = 0;
  if (n > 0) std::memcpy(&w, p, n);  // p may be null when n == 0
  mix(w ^ (uint64_t{n} << 56));
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 32);
}

// Byte strings to ids: open addressing over a power-of-two array of entry
// indices, at most half full, the strings in one blob.
class StrIdMap {
 public:
  struct Entry {
    uint32_t offset, length;  // in the blob
    int32_t id;
    uint32_t tag;  // the hash's low bits: most misses skip the compare
  };

  // The id of `key`, or -1.
  int32_t Find(std::string_view key) const {
    if (slots_.empty()) return -1;
    const uint64_t h = HashBytes(key.data(), key.size());
    const size_t mask = slots_.size() - 1;
    for (size_t i = (h >> 32) & mask;; i = (i + 1) & mask) {
      const uint32_t s = slots_[i];
      if (s == 0) return -1;
      const Entry& e = entries_[s - 1];
      if (e.tag == static_cast<uint32_t>(h) && e.length == key.size() &&
          std::memcmp(blob_.data() + e.offset, key.data(), key.size()) == 0) {
        return e.id;
      }
    }
  }
  bool Contains(std::string_view key) const { return Find(key) >= 0; }
  // Adds key -> id; false (and nothing changes) when key is there.
  bool Insert(std::string_view key, int32_t id);
  size_t size() const { return entries_.size(); }

  // Every index in bounds, every id one that `named(id)` accepts, and a
  // free slot to end each probe; else false with *why saying what is wrong.
  template <class Named>
  bool Check(Named named, std::string* why) const {
    if (!CheckSlots(why)) return false;
    for (const Entry& e : entries_) {
      if (!named(e.id)) {
        *why =
            "a vocabulary entry's id " + std::to_string(e.id) + " has no token";
        return false;
      }
    }
    return true;
  }

  Table<char> blob_;
  Table<Entry> entries_;
  Table<uint32_t> slots_;  // entry index + 1; 0: empty

 private:
  bool CheckSlots(std::string* why) const;
  void Grow();
};

// 64-bit keys to values (V is trivially copyable): the BPE merges and the
// Unigram trie's edges. Linear probing, at most half full.
template <class V>
class U64Map {
 public:
  struct Slot {
    uint64_t key;  // the key + 1; 0: empty
    V value;
  };

  const V* Find(uint64_t key) const {
    if (slots_.empty()) return nullptr;
    const uint64_t k = key + 1;
    const size_t mask = slots_.size() - 1;
    for (size_t i = Hash(k) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.key == k) return &s.value;
      if (s.key == 0) return nullptr;
    }
  }
  // Adds or replaces key's value.
  void Set(uint64_t key, const V& value) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    std::vector<Slot>& slots = slots_.Edit();
    const uint64_t k = key + 1;
    const size_t mask = slots.size() - 1;
    for (size_t i = Hash(k) & mask;; i = (i + 1) & mask) {
      if (slots[i].key == k) {
        slots[i].value = value;
        return;
      }
      if (slots[i].key == 0) {
        slots[i] = Slot{k, value};
        ++size_;
        return;
      }
    }
  }
  size_t size() const { return size_; }

  // A power-of-two size with a free slot, each value passing check(value);
  // counts the keys.
  template <class CheckValue>
  bool Check(CheckValue check, std::string* why) {
    const size_t n = slots_.size();
    if (n != 0 && (n & (n - 1)) != 0) {
      *why = "a table's size " + std::to_string(n) + " is not a power of two";
      return false;
    }
    size_ = 0;
    for (const Slot& s : slots_) {
      if (s.key == 0) continue;
      if (!check(s.value)) {
        *why = "a table entry is out of range";
        return false;
      }
      ++size_;
    }
    if (n != 0 && size_ == n) {
      *why = "a table has no free slot";
      return false;
    }
    return true;
  }

  Table<Slot> slots_;

 private:
  static size_t Hash(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return static_cast<size_t>(k);
  }
  void Grow() {
    const std::vector<Slot> old(slots_.begin(), slots_.end());
    std::vector<Slot>& slots = slots_.Edit();
    slots.assign(old.empty() ? 64 : old.size() * 2, Slot{0, V{}});
    const size_t mask = slots.size() - 1;
    for (const Slot& s : old) {
      if (s.key == 0) continue;
      for (size_t i = Hash(s.key) & mask;; i = (i + 1) & mask) {
        if (slots[i].key == 0) {
          slots[i] = s;
          break;
        }
      }
    }
  }
  size_t size_ = 0;
};

// Id -> token, NUL-terminated in one blob ("" where no token has the id).
class TokenNames {
 public:
  size_t size() const { return starts_.empty() ? 0 : starts_.size() - 1; }
  std::string_view Get(size_t id) const {
    return std::string_view(blob_.data() + starts_[id],
                            starts_[id + 1] - starts_[id] - 1);
  }
  const char* CStr(size_t id) const { return blob_.data() + starts_[id]; }
  // Built from the names by id.
  void Set(const std::vector<std::string>& names);
  // Starts in order and in the blob, each name NUL-terminated, UTF-8.
  bool Check(std::string* why) const;

  Table<char> blob_;
  Table<uint32_t> starts_;  // size() + 1 of them
};

}  // namespace tok
}  // namespace enc

#endif  // ENC_RUNTIME_TOKENIZER_TABLES_H_
