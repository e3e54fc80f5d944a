#!/bin/sh
# The Node worker's own tests: built in place (build.sh: npm ci from package-lock.json, pbjs, protoc),
# then node's test runner over test/ (the golden specs, every shared vector through both servers,
# the drive loop, the bounds). Run from workers/node.
set -eu
sh build.sh . ../..
node --test --test-concurrency=1 test/
