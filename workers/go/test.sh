#!/bin/sh
# Generates arenapb/ (see gen.sh) and runs the Go worker's tests: the one command
# a fresh machine with go and protoc needs.
set -eu
cd "$(dirname "$0")"
sh gen.sh
go test ./... "$@"
