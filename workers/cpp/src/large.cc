#include "large.h"

#include <cstdint>
#include <string>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>
#include <grpcpp/support/byte_buffer.h>

#include "semantics.h"

namespace {

using google::protobuf::internal::WireFormatLite;

// What a method of this service does: echo a LargeData of `fields` fields, or sum it.
struct Rpc {
  int fields = 0;
  bool checksum = false;
};

constexpr const char* kPrefix = "/arena.Arena/";

// "/arena.Arena/EchoLargeData1024" -> {1024, false}; fields 0 for a method this service lacks.
Rpc RpcOf(const std::string& path) {
  static const int kSizes[] = {128, 256, 512, 1024, 2048, 4096, 8192};
  std::string prefix = kPrefix;
  if (path.rfind(prefix, 0) != 0) return {};
  std::string method = path.substr(prefix.size());
  for (int n : kSizes) {
    if (method == "EchoLargeData" + std::to_string(n)) return {n, false};
    if ((n == 128 || n == 8192) && method == "ChecksumLargeData" + std::to_string(n)) return {n, true};
  }
  return {};
}

// Fields 1..n of a LargeData message into values[0..n-1] (unset: 0, a repeated field: its last
// value, as protobuf merges), skipping unknown ones; false when the bytes are not a message.
bool Parse(const std::string& bytes, std::vector<int32_t>& values) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  while (uint32_t tag = in.ReadTag()) {
    uint32_t field = WireFormatLite::GetTagFieldNumber(tag);
    if (field >= 1 && field <= values.size() &&
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_VARINT) {
      uint64_t value = 0;
      if (!in.ReadVarint64(&value)) return false;
      values[field - 1] = static_cast<int32_t>(value);  // an int32 is its varint's low 32 bits
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return false;
    }
  }
  return in.ConsumedEntireMessage();
}

// Fields in number order, a zero left out: what generated code writes for a proto3 message.
std::string Encode(const std::vector<int32_t>& values) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream sink(&bytes);
    google::protobuf::io::CodedOutputStream out(&sink);
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] != 0) WireFormatLite::WriteInt32(static_cast<int>(i + 1), values[i], &out);
    }
  }
  return bytes;
}

std::string Answer(const Rpc& rpc, const std::vector<int32_t>& values) {
  if (!rpc.checksum) return Encode(values);
  return Encode({semantics::SumInt32(values)});  // Int32Msg: its one field
}

// One unary call: read the request, answer it, finish.
class LargeDataCall final : public grpc::ServerGenericBidiReactor {
 public:
  explicit LargeDataCall(Rpc rpc) : rpc_(rpc) { StartRead(&request_); }

  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::INTERNAL, "the call ended before its request came"));
      return;
    }
    std::vector<grpc::Slice> slices;
    std::string bytes;
    if (request_.Dump(&slices).ok()) {
      for (const auto& slice : slices) bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    }
    std::vector<int32_t> values(rpc_.fields);
    if (!Parse(bytes, values)) {
      Finish(grpc::Status(grpc::StatusCode::INTERNAL, "the request is not a LargeData message"));
      return;
    }
    grpc::Slice reply(Answer(rpc_, values));
    reply_ = grpc::ByteBuffer(&reply, 1);
    StartWriteAndFinish(&reply_, grpc::WriteOptions(), grpc::Status::OK);
  }

  void OnDone() override { delete this; }

 private:
  Rpc rpc_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer reply_;
};

class Unimplemented final : public grpc::ServerGenericBidiReactor {
 public:
  explicit Unimplemented(const std::string& method) {
    Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "no method " + method));
  }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerGenericBidiReactor* LargeDataService::CreateReactor(grpc::GenericCallbackServerContext* context) {
  Rpc rpc = RpcOf(context->method());
  if (rpc.fields == 0) return new Unimplemented(context->method());
  return new LargeDataCall(rpc);
}
