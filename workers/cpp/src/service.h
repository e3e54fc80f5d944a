// grpc-cpp's arena.Arena: every rpc but the LargeData ones (large.h) on gRPC C++'s callback API
// (the CallbackService generated from arena.proto without its LargeData messages),
// answered inline on gRPC's own threads, as the callback API's users do when a handler does not
// block; InvertStream is a ServerBidiReactor, one reply per word, in order.
#pragma once

#include <memory>

#include <grpcpp/impl/service_type.h>

std::unique_ptr<grpc::Service> NewArenaService();
