#!/usr/bin/env bash
# Debian packages rpcarena uses: protoc for native workers, capnp (Cap'n Proto's compiler) for the Rust
# worker's capnp-rust, nftables for bytes on the wire,
# Redis and HAProxy for the predictions and infobip suites, peer load tools for benchmarks,
# Chromium for the report test, iptables/ethtool/ping for the emulated link's delay line, g++,
# pkg-config and Debian's gRPC C++ (libgrpc++-dev, its protoc plugin) for grpc-cpp.
# Installs only what is missing; needs root (or sudo).
set -euo pipefail
declare -A want=(
  [protoc]=protobuf-compiler [nft]=nftables [redis-server]=redis-server [haproxy]=haproxy
  [wrk]=wrk [h2load]=nghttp2-client [chromium]=chromium
  [iptables]=iptables [ethtool]=ethtool [ping]=iputils-ping [capnp]=capnproto
  [g++]=g++ [pkg-config]=pkg-config [grpc_cpp_plugin]=protobuf-compiler-grpc
)
# libraries, not tools: found by their Debian package
libraries=(libgrpc++-dev libprotobuf-dev)
missing=()
for tool in "${!want[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("${want[$tool]}")
done
for package in "${libraries[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install these Debian packages as root: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "installing Debian packages: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
