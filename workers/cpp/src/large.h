// arena.Arena's LargeData rpcs (EchoLargeData128 ... 8192, ChecksumLargeData128 and 8192) on gRPC
// C++'s generic callback API, their messages read and written by protobuf's CodedInputStream and
// CodedOutputStream (the same wire): protoc's C++ for the 16,256 int32 fields of the seven
// LargeData messages is 470,000 lines whose compile takes over half an hour of CPU (and needs
// -ftemplate-depth past 2048 for LargeData8192's swap), as protobuf-java's generated code for
// them does not compile at all (grpc-java codes them the same way). Every field is still parsed
// into an int32 and every reply encoded from them, as generated code would.
#pragma once

#include <grpcpp/generic/async_generic_service.h>

// The server's generic service: the LargeData rpcs, and UNIMPLEMENTED for any other method the
// typed service does not serve.
class LargeDataService final : public grpc::CallbackGenericService {
 public:
  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* context) override;
};
