#!/bin/sh
# Static checks of the Go worker: go vet, and gofmt on the code written by hand
# (arenapb/ and predictionspb/ are protoc's). gen.sh first: the packages import
# the generated code, so vet cannot type-check without it.
set -eu
cd "$(dirname "$0")"
sh gen.sh
go vet ./...
unformatted=$(gofmt -l cmd internal)
if [ -n "$unformatted" ]; then
  echo "gofmt: not formatted; run: gofmt -w $(echo $unformatted)" >&2
  exit 1
fi
