// The bounds every server keeps (docs/worker-contract.md, "Bounds every server keeps"): the same
// numbers as limits.py, Go's limits and Node's limits.js.
#pragma once

#include <cstdint>

namespace limits {

// A request is at most 4 MiB: gRPC's default, said here so a library's change cannot move it.
constexpr int kMaxRequestBytes = 4 << 20;
// Calls in flight on one HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS). C-core's default is
// unlimited, so one peer could open streams until the server's memory runs out; a peer that opens
// one past this ends its connection (a protocol error), and gRPC clients queue theirs under it. 1000 is
// far above what a run puts on one connection (every client on one channel: --connections 1).
constexpr int kMaxConcurrentStreams = 1000;
// GetRandNums' count and any count a peer announces (semantics.py's MAX_COUNT).
constexpr int32_t kMaxCount = 1000000;

// How long a connection may send nothing, or take none of its replies: 60 s, or
// RPCARENA_IDLE_TIMEOUT_S when that is a positive number of seconds below it.
int IdleTimeoutMs();

}  // namespace limits
