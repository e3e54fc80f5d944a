#!/bin/sh
# Generates the Go protobuf/gRPC code of proto/arena.proto into arenapb/ and of
# proto/predictions.proto (the predictions seed's contract) into predictionspb/.
#
# arena.pb.go is ~4 MB (the LargeData messages carry up to 8192 fields), too
# large to commit, so every build runs this first (worker.json "build").
# Usage: sh gen.sh [TOOLS_DIR]   (plugins are installed there; default bin/tools)
set -eu
cd "$(dirname "$0")"
tools="${1:-$PWD/bin/tools}"
mkdir -p "$tools" arenapb predictionspb
# Pinned to the runtime versions in go.mod: generated code and library must agree.
GOBIN="$tools" go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
GOBIN="$tools" go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
for name in arena predictions; do
  PATH="$tools:$PATH" protoc -I ../../proto \
    --go_out="${name}pb" --go_opt=paths=source_relative \
    --go-grpc_out="${name}pb" --go-grpc_opt=paths=source_relative \
    "$name.proto"
done
