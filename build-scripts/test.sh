#!/usr/bin/env bash
# `npm test`: set-up if needed, build everything, run every test suite. Fails on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash build-scripts/setup.sh
# The publishing suite's own set-up (Debian's hugo, jekyll, mkdocs; VitePress and Astro from
# tests/publish/package-lock.json) is mostly downloading and unpacking: it runs beside the lint and the
# builds, and the suite waits for it. Kept out of setup.sh so that `npm start` does not install them.
publish_log=$(mktemp)
bash tests/publish/setup.sh >"$publish_log" 2>&1 &
publish_setup=$!
# Lint first (ESLint, Prettier, the import rules, clang-format): a slip fails in seconds, not after the build.
bash build-scripts/lint.sh
bash build-scripts/lib/build-native.sh
echo "[test] GoogleTest (native) via ctest"
ctest --test-dir build/native --output-on-failure -j"$(nproc)"
bash build-scripts/build.sh
echo "[test] engine API against the real wasm modules (node --test)"
# Two files at a time: each is one single-threaded Node process, and node's default here is one.
node --test --test-concurrency=2 tests/js/
echo "[test] the same with wasm SIMD switched off in V8: the scalar fallback must load by itself"
ATTNSCALE_EXPECT_SIMD=0 node --no-enable-sse4-1 --test tests/js/engine/fallback.test.js
# One browser suite at a time: each file shares one browser between its tests (2-core machines).
suite() { # suite <label> <dir> [command prefix…]
  local label=$1 dir=$2; shift 2
  # Test files may sit in subfolders (node --test searches a folder recursively).
  find "$dir" -name '*.test.js' | grep -q . || return 0
  echo "[test] $label"
  "$@" node --test --test-concurrency=1 "$dir"/
}
suite "end-to-end in headless chromium (node --test)" tests/e2e
suite "the npm package as its users install it (pack, install, Node/Vite/TypeScript/CDN consumers)" tests/consumer
wait "$publish_setup" || { cat "$publish_log"; echo "[test] tests/publish/setup.sh failed" >&2; exit 1; }
cat "$publish_log"
suite "publishing: real Hugo, Jekyll, VitePress, Astro (MDX) and MkDocs sites with the charts" tests/publish
suite "Firefox ESR over WebDriver BiDi (puppeteer-core)" tests/firefox
# WebKit takes navigator.language from LANG/LC_ALL ('C' under C.UTF-8: Intl rejects it; 'en-US' under
# en_US.UTF-8, no generated locale needed); tests/webkit checks that it got the language meant.
suite "WebKitGTK (Safari's engine) via WebKitWebDriver, LANG=C.UTF-8" tests/webkit env LANG=C.UTF-8 LC_ALL=C.UTF-8 xvfb-run -a
# Under en_US.UTF-8 the smoke suite only: the phone's touch drags do not depend on the language.
echo "[test] WebKitGTK via WebKitWebDriver, LANG=en_US.UTF-8 (smoke suite)"
env LANG=en_US.UTF-8 LC_ALL=en_US.UTF-8 xvfb-run -a node --test --test-concurrency=1 tests/webkit/smoke.test.js
