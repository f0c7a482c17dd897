#include "tokenizer/tables.h"

#include "tokenizer/unicode.h"

namespace enc {
namespace tok {

bool StrIdMap::Insert(std::string_view key, int32_t id) {
  if (Find(key) >= 0) return false;
  std::vector<char>& blob = blob_.Edit();
  const uint64_t h = HashBytes(key.data(), key.size());
  entries_.Edit().push_back(Entry{static_cast<uint32_t>(blob.size()),
                                  static_cast<uint32_t>(key.size()), id,
                                  static_cast<uint32_t>(h)});
  blob.insert(blob.end(), key.begin(), key.end());
  if (entries_.size() * 2 > slots_.size()) {
    Grow();
    return true;
  }
  std::vector<uint32_t>& slots = slots_.Edit();
  const size_t mask = slots.size() - 1;
  for (size_t i = (h >> 32) & mask;; i = (i + 1) & mask) {
    if (slots[i] == 0) {
      slots[i] = static_cast<uint32_t>(entries_.size());
      return true;
    }
  }
}

void StrIdMap::Grow() {
  std::vector<uint32_t>& slots = slots_.Edit();
  size_t n = slots.empty() ? 64 : slots.size();
  while (entries_.size() * 2 > n) n *= 2;
  slots.assign(n, 0);
  const size_t mask = n - 1;
  for (size_t e = 0; e < entries_.size(); ++e) {
    const Entry& entry = entries_[e];
    const uint64_t h = HashBytes(blob_.data() + entry.offset, entry.length);
    for (size_t i = (h >> 32) & mask;; i = (i + 1) & mask) {
      if (slots[i] == 0) {
        slots[i] = static_cast<uint32_t>(e + 1);
        break;
      }
    }
  }
}

bool StrIdMap::CheckSlots(std::string* why) const {
  const size_t n = slots_.size();
  if ((n & (n - 1)) != 0) {
    *why = "a vocabulary table's size " + std::to_string(n) +
           " is not a power of two";
    return false;
  }
  if (n == 0 && !entries_.empty()) {
    *why = "a vocabulary table has entries but no slots";
    return false;
  }
  for (const Entry& e : entries_) {
    if (uint64_t{e.offset} + e.length > blob_.size()) {
      *why = "a vocabulary entry is out of range";
      return false;
    }
  }
  size_t used = 0;
  for (uint32_t s : slots_) {
    if (s == 0) continue;
    if (s > entries_.size()) {
      *why = "a vocabulary slot is out of range";
      return false;
    }
    ++used;
  }
  if (n != 0 && used == n) {
    *why = "a vocabulary table has no free slot";
    return false;
  }
  return true;
}

void TokenNames::Set(const std::vector<std::string>& names) {
  std::vector<char>& blob = blob_.Edit();
  std::vector<uint32_t>& starts = starts_.Edit();
  blob.clear();
  starts.clear();
  for (const std::string& name : names) {
    starts.push_back(static_cast<uint32_t>(blob.size()));
    blob.insert(blob.end(), name.begin(), name.end());
    blob.push_back('\0');
  }
  starts.push_back(static_cast<uint32_t>(blob.size()));
}

bool TokenNames::Check(std::string* why) const {
  if (starts_.empty()) {
    if (!blob_.empty()) *why = "token names without starts";
    return blob_.empty();
  }
  if (starts_[0] != 0 || starts_[starts_.size() - 1] != blob_.size()) {
    *why = "the token names do not fill their blob";
    return false;
  }
  for (size_t i = 0; i + 1 < starts_.size(); ++i) {
    if (starts_[i + 1] <= starts_[i] || starts_[i + 1] > blob_.size() ||
        blob_[starts_[i + 1] - 1] != '\0') {
      *why = "token " + std::to_string(i) + " is not NUL-terminated";
      return false;
    }
  }
  int64_t bad = 0;
  if (!ValidUtf8(std::string_view(blob_.data(), blob_.size()), &bad)) {
    *why = "the token names are not UTF-8 at byte " + std::to_string(bad);
    return false;
  }
  return true;
}

}  // namespace tok
}  // namespace enc
