#!/bin/sh
# Generates the Go protobuf/gRPC code of proto/arena.proto into arenapb/.
#
# The generated file is ~4 MB (the LargeData messages carry up to 8192 fields),
# too large to commit, so every build runs this first (worker.json "build").
# Usage: sh gen.sh [TOOLS_DIR]   (plugins are installed there; default bin/tools)
set -eu
cd "$(dirname "$0")"
tools="${1:-$PWD/bin/tools}"
mkdir -p "$tools" arenapb
# Pinned to the runtime versions in go.mod: generated code and library must agree.
GOBIN="$tools" go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
GOBIN="$tools" go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
PATH="$tools:$PATH" protoc -I ../../proto \
  --go_out=arenapb --go_opt=paths=source_relative \
  --go-grpc_out=arenapb --go-grpc_opt=paths=source_relative \
  arena.proto
