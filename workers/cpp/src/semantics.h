// What each operation of proto/arena.proto computes (src/rpcarena/protocol/semantics.py is the
// reference; proto/vectors/arena.json pins it). Plain values in, plain values out: the gRPC
// service only moves them in and out of its messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/repeated_field.h>

namespace semantics {

std::string SayHello(std::string_view name);
// double(sum as int64) / count; 0.0 when empty.
double Average(const google::protobuf::RepeatedField<int32_t>& values);
// The LCG over uint32, each state read as int32. A count over the cap is the caller's error: the
// refusal's message, naming the cap, and no values.
std::optional<std::string> RandNumsRefusal(int32_t count);
void RandNums(int32_t count, uint32_t seed, google::protobuf::RepeatedField<int32_t>* out);
// The UTF-8 string reversed by code points (protobuf has checked the UTF-8 of a proto3 string).
std::string Invert(std::string_view word);
// sqrt(dx*dx + dy*dy + dz*dz), summed left to right; the build turns contraction (FMA) off.
double Distance(double ax, double ay, double az, double bx, double by, double bz);
// The sum of a LargeData message's fields, wrapping as int32 (ChecksumLargeData*).
int32_t SumInt32(const std::vector<int32_t>& values);

}  // namespace semantics
