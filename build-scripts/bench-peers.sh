#!/usr/bin/env bash
# `npm run bench:peers`: build (native, both wasm variants, the wasm mul+add peak module), then the
# peers benchmark (tests/bench/peers/run.mjs): Node, the native build as a separate process, and
# headless chromium. Writes build/bench/peers.{json,md} and build/bench/peers-chromium.md.
# Arguments pass through to run.mjs (--no-browser, --no-native, --quick, --shapes=128x16,512x128).
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs  # Debian's emscripten needs acorn from here (TOOLCHAIN.md)
bash build-scripts/lib/build-native.sh
bash build-scripts/lib/build-wasm.sh
mkdir -p build/bench
# The peak micro-benchmark: a standalone wasm with no imports (see peak.cpp), built like the engine
# (-O3 -msimd128), loaded by the same harness in Node and in chromium.
em++ -O3 -msimd128 --no-entry -sSTANDALONE_WASM \
  -sEXPORTED_FUNCTIONS=_run,_variants,_chainsOf,_flopsPerIteration \
  -o build/bench/peak.wasm tests/bench/peers/peak.cpp
node tests/bench/peers/run.mjs "$@"
