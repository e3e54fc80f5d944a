#!/bin/sh
# Builds the Node worker in DIR (the build cache's folder, or "." for the tests in place):
# - its npm packages exactly as package-lock.json pins them, from the npm cache when every one is
#   there (npm ci --offline), else from the registry;
# - arena.proto's messages generated ahead by pbjs (protobufjs-cli, pinned as a dev dependency):
#   @grpc/proto-loader would build them at every start, and protobufjs builds a message type in
#   time quadratic in its fields (LargeData8192 alone: 17 s), so grpc-node takes grpc-tools' road
#   of code generated once (README.md, "Why static code");
# - a descriptor set of arena.proto and predictions.proto (protoc), the services' and messages'
#   shapes the worker reads at start without building protobufjs types from them.
# Usage: sh build.sh DIR REPO (REPO: the tree whose proto/ it reads).
set -eu
node -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major > 20 || (major === 20 && minor >= 18) ? 0 : 1)' \
  || { echo "the Node worker needs Node.js 20.18 or later (undici 7, Fastify 5); this is $(node --version)" >&2; exit 1; }
dir=$1
repo=$2
here=$(pwd)
mkdir -p "$dir"
if [ "$(cd "$dir" && pwd)" != "$here" ]; then
  rm -rf "$dir/src"
  cp package.json package-lock.json "$dir/"
  cp -R src "$dir/src"
fi
cd "$dir"
# What the packages and the generated code are made from: when a tree built in place (the tests'
# ".") was built from the same, nothing is redone (pbjs alone takes 15 s of CPU).
inputs=$(cat package-lock.json "$repo/proto/arena.proto" "$repo/proto/predictions.proto" "$here/build.sh" | sha256sum)
if [ -f gen/inputs ] && [ "$(cat gen/inputs)" = "$inputs" ] && [ -d node_modules ] && [ -f gen/arena.cjs ]; then
  exit 0
fi
rm -f gen/inputs
npm ci --offline --ignore-scripts --no-audit --no-fund --loglevel=error 2>/dev/null \
  || npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
mkdir -p gen
protoc -I "$repo/proto" --include_imports --descriptor_set_out=gen/arena.pb arena.proto predictions.proto
node_modules/.bin/pbjs -t static-module -w commonjs --keep-case --no-create --no-verify --no-delimited \
  --no-typeurl --no-comments --no-service -o gen/arena.cjs "$repo/proto/arena.proto" "$repo/proto/predictions.proto"
echo "$inputs" > gen/inputs
