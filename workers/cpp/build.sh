#!/bin/sh
# Builds grpc-cpp into OUT (the build cache's folder's cpp-worker), with the system's compiler,
# gRPC and protobuf (Debian's libgrpc++-dev, libprotobuf-dev, protobuf-compiler-grpc):
# - arena.proto's messages and service but the LargeData ones (src/large.h says why: their
#   generated C++ takes over half an hour of CPU to compile), by protoc and grpc_cpp_plugin,
#   compiled once per arena.proto, compiler and gRPC into their own folder of the cache
#   (cpp-arena-HASH);
# - the worker's sources at -O2 with contraction off (Distance sums without FMA), linked by
#   pkg-config's flags.
# Usage: sh build.sh OUT REPO (REPO: the tree whose proto/ it reads).
set -eu
out=$1
repo=$2
for lib in grpc++ protobuf; do
  pkg-config --exists "$lib" \
    || { echo "the C++ worker needs $lib's headers: apt-get install libgrpc++-dev libprotobuf-dev protobuf-compiler-grpc" >&2; exit 1; }
done
cxx=${CXX:-g++}
flags="-std=c++17 -O2 $(pkg-config --cflags grpc++ protobuf)"
here=$(pwd)
build=$(dirname "$out")
key=$( (cat "$repo/proto/arena.proto" build.sh; "$cxx" --version; protoc --version; pkg-config --modversion grpc++; echo "$flags") \
  | sha256sum | cut -c1-16)
arena="$(dirname "$build")/cpp-arena-$key"
if [ ! -f "$arena/OK" ]; then
  # a folder of its own per build, renamed into place whole: two builds at once each make theirs
  tmp="$arena.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  # the LargeData messages and rpcs are the sections between the generator's markers
  awk '/BEGIN GENERATED largedata/ {skip = 1} !skip {print} /END GENERATED largedata/ {skip = 0}' \
    "$repo/proto/arena.proto" > "$tmp/arena.proto"
  protoc -I "$tmp" --cpp_out="$tmp" --grpc_out="$tmp" --plugin=protoc-gen-grpc="$(command -v grpc_cpp_plugin)" arena.proto
  $cxx $flags -c "$tmp/arena.pb.cc" -o "$tmp/arena.pb.o"
  $cxx $flags -c "$tmp/arena.grpc.pb.cc" -o "$tmp/arena.grpc.pb.o"
  touch "$tmp/OK"
  mv -T "$tmp" "$arena" 2>/dev/null || rm -rf "$tmp"  # another build got there first: same bytes
fi
mkdir -p "$build/obj"
objects=""
for source in main limits semantics service large; do
  object="$build/obj/$source.o"
  # this folder is these sources' (keyed by their hash): an object in it is theirs, written whole
  # by the rename, so a build that failed later (the link) takes it up again
  if [ ! -f "$object" ]; then
    $cxx $flags -ffp-contract=off -Wall -Wextra -I "$arena" -c "$here/src/$source.cc" -o "$object.tmp"
    mv "$object.tmp" "$object"
  fi
  objects="$objects $object"
done
# shellcheck disable=SC2086 # the object and library lists are word lists
$cxx -o "$out" $objects "$arena/arena.pb.o" "$arena/arena.grpc.pb.o" $(pkg-config --libs grpc++ protobuf) -lpthread
