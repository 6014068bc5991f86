#!/usr/bin/env bash
# `npm run bench`: build, then the benchmark (native, wasm SIMD, wasm scalar, plain JS side by side).
set -euo pipefail
cd "$(dirname "$0")/.."
bash build-scripts/setup.sh
bash build-scripts/lib/build-native.sh
bash build-scripts/lib/build-wasm.sh
node tests/bench/bench.mjs "$@"
# The d_k sweep: this engine vs the reference one (build-baseline.sh), shared scalings, run/forward,
# peak memory, cancellation granularity.
bash build-scripts/lib/build-baseline.sh
node tests/bench/sweep-speed.mjs
# Training steps/s: native, Node and chromium wasm, and the built page if dist/ exists.
node tests/bench/train-speed.mjs
# The "Your model" report on a 75 MB file: parse, analyze per head on 1 thread and on 2 Workers.
node tests/bench/report-analyze.mjs
