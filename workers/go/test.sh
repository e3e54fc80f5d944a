#!/bin/sh
# Generates arenapb/ (see gen.sh), vets and runs the Go worker's tests: the one
# command a fresh machine with go and protoc needs. Then a short, bounded fuzz
# run of the tagless frame handler (FUZZTIME=0 skips it; minimizing is bounded
# too, or one interesting input can hold the run for a minute).
set -eu
cd "$(dirname "$0")"
sh gen.sh
go vet ./...
go test ./... "$@"
if [ "${FUZZTIME:-10s}" != 0 ]; then
  go test -run='^$' -fuzz=FuzzTaglessFrame -fuzztime="${FUZZTIME:-10s}" -fuzzminimizetime=1s \
    ./internal/contenders/tagless/
fi
