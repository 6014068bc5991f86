#!/usr/bin/env bash
# `npm test`: set-up if needed, build everything, run every test suite. Fails on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash build-scripts/setup.sh
bash build-scripts/build-native.sh
echo "[test] GoogleTest (native) via ctest"
ctest --test-dir build/native --output-on-failure -j"$(nproc)"
bash build-scripts/build.sh
echo "[test] engine API against the real wasm modules (node --test)"
node --test tests/js/
echo "[test] the same with wasm SIMD switched off in V8: the scalar fallback must load by itself"
ATTNSCALE_EXPECT_SIMD=0 node --no-enable-sse4-1 --test tests/js/fallback.test.js
if [ -d tests/e2e ] && ls tests/e2e/*.test.js >/dev/null 2>&1; then
  echo "[test] end-to-end in headless chromium (node --test)"
  node --test --test-concurrency=1 tests/e2e/
fi
