#!/bin/sh
# Static checks of the Node worker: node --check parses every source and test file (no linter is
# pinned in package-lock.json, so none runs). Run from workers/node.
set -eu
for f in $(find src test -name '*.js'); do
  node --check "$f"
done
