#include "semantics.h"

#include <cmath>

#include "limits.h"

namespace semantics {

std::string SayHello(std::string_view name) {
  std::string reply = "Hello ";
  reply.append(name);
  return reply;
}

double Average(const google::protobuf::RepeatedField<int32_t>& values) {
  if (values.empty()) return 0.0;
  int64_t sum = 0;
  for (int32_t v : values) sum += v;
  return static_cast<double>(sum) / values.size();
}

std::optional<std::string> RandNumsRefusal(int32_t count) {
  if (count <= limits::kMaxCount) return std::nullopt;
  return "GetRandNums count " + std::to_string(count) + " is over the cap of " +
         std::to_string(limits::kMaxCount) + ": ask for fewer";
}

void RandNums(int32_t count, uint32_t seed, google::protobuf::RepeatedField<int32_t>* out) {
  if (count <= 0) return;
  out->Reserve(count);
  uint32_t state = seed;
  for (int32_t i = 0; i < count; ++i) {
    state = state * 1664525u + 1013904223u;  // mod 2^32 by unsigned overflow
    out->Add(static_cast<int32_t>(state));
  }
}

std::string Invert(std::string_view word) {
  std::string reversed;
  reversed.reserve(word.size());
  size_t end = word.size();
  while (end > 0) {
    size_t start = end - 1;
    while (start > 0 && (static_cast<unsigned char>(word[start]) & 0xC0) == 0x80) --start;  // continuation bytes
    reversed.append(word.substr(start, end - start));
    end = start;
  }
  return reversed;
}

double Distance(double ax, double ay, double az, double bx, double by, double bz) {
  double dx = ax - bx, dy = ay - by, dz = az - bz;
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

int32_t SumInt32(const std::vector<int32_t>& values) {
  uint32_t total = 0;  // wraps as Go, Rust and Java add int32
  for (int32_t v : values) total += static_cast<uint32_t>(v);
  return static_cast<int32_t>(total);
}

}  // namespace semantics
