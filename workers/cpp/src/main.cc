// The C++ worker's command line (docs/worker-contract.md): `serve` only, grpc-cpp being a server
// without a client of its own (the Go, Python and Node clients call it). One line on stderr for
// every error: exit 2 for a command line that cannot run, 1 for a server that cannot start.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "large.h"
#include "limits.h"
#include "service.h"

namespace {

constexpr const char* kUsage = "usage: worker serve --contender grpc-cpp --host 127.0.0.1 --port 0";
constexpr const char* kContender = "grpc-cpp";

struct UsageError {
  std::string message;
};

// `--name value` pairs after the command; an unknown name or a missing value is the caller's error.
std::map<std::string, std::string> Options(int argc, char** argv) {
  std::map<std::string, std::string> found = {{"host", "127.0.0.1"}, {"port", "0"}};
  for (int i = 2; i < argc; i += 2) {
    std::string name = argv[i];
    if (name.rfind("--", 0) != 0 || i + 1 >= argc) throw UsageError{"serve: bad argument " + name + "; " + kUsage};
    found[name.substr(2)] = argv[i + 1];
  }
  for (const auto& [name, value] : found) {
    if (name == "redis") throw UsageError{std::string("serve: ") + kContender + " does not serve the predictions seed (no Redis client in this worker)"};
    if (name == "schema") throw UsageError{std::string("serve: ") + kContender + " does not serve a user's schema yet"};
    if (name != "contender" && name != "host" && name != "port") throw UsageError{"serve: unknown option --" + name + "; " + kUsage};
  }
  if (found["contender"] != kContender) throw UsageError{"serve: unknown contender '" + found["contender"] + "'; this worker serves " + kContender};
  return found;
}

int PortOf(const std::string& text) {
  size_t used = 0;
  int port = -1;
  try {
    port = std::stoi(text, &used);
  } catch (const std::exception&) {
  }
  if (used != text.size() || port < 0 || port > 65535) throw UsageError{"serve: --port " + text + " is not a port"};
  return port;
}

// The bounds of docs/worker-contract.md as C-core channel arguments: a message over 4 MiB is
// RESOURCE_EXHAUSTED; at most kMaxConcurrentStreams calls in flight on a connection; a connection
// that completes no HTTP/2 handshake, makes no call, or answers no keep-alive ping (a peer that
// stopped reading) within the idle timeout is closed; and no SO_REUSEPORT, which C-core sets by
// default, so no other process can take a share of the port.
void Bound(grpc::ServerBuilder& builder) {
  int idle_ms = limits::IdleTimeoutMs();
  builder.SetMaxReceiveMessageSize(limits::kMaxRequestBytes);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, limits::kMaxConcurrentStreams);
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, idle_ms);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, idle_ms);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, idle_ms);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, idle_ms);
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
}

// SIGTERM, SIGINT, or the end of stdin (the orchestrator gone): the signals are blocked in every
// thread (gRPC's threads inherit the mask) and taken here; stdin's end is turned into a SIGTERM.
void WaitForStop(const sigset_t& stops) {
  std::thread([] {
    char buffer[256];
    while (read(STDIN_FILENO, buffer, sizeof buffer) > 0) {
    }
    kill(getpid(), SIGTERM);
  }).detach();
  int signal = 0;
  sigwait(&stops, &signal);
}

int Serve(int argc, char** argv) {
  auto options = Options(argc, argv);
  int port = PortOf(options["port"]);
  std::string host = options["host"];
  std::string address = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);

  sigset_t stops;
  sigemptyset(&stops);
  sigaddset(&stops, SIGTERM);
  sigaddset(&stops, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stops, nullptr);

  std::unique_ptr<grpc::Service> service = NewArenaService();
  grpc::ServerBuilder builder;
  int bound = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &bound);
  builder.RegisterService(service.get());
  LargeDataService large_data;  // the rpcs the typed service lacks: the LargeData ones
  builder.RegisterCallbackGenericService(&large_data);
  Bound(builder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || bound == 0) {
    std::cerr << "worker: " << kContender << " cannot bind " << address << std::endl;
    return 1;
  }
  std::cout << R"({"event": "ready", "port": )" << bound << R"(, "pid": )" << getpid() << R"(, "contract": 1})"
            << std::endl;
  WaitForStop(stops);
  server->Shutdown(std::chrono::system_clock::now());  // at once: open streams are cancelled, not awaited
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string command = argc > 1 ? argv[1] : "";
  try {
    if (command == "serve") return Serve(argc, argv);
    if (command == "drive") throw UsageError{std::string(kContender) + " has no client: drive it with --client go, py or node"};
    throw UsageError{command.empty() ? kUsage : "unknown command '" + command + "'; " + kUsage};
  } catch (const UsageError& error) {
    std::cerr << "worker: " << error.message << std::endl;
    return 2;
  }
}
