#!/usr/bin/env bash
# A reference engine (commit ac0f359, wasm SIMD: the d_k sweep before its speed-ups) in
# build/baseline/, for the old-vs-new rows of tests/bench/sweep-speed.mjs. Built once from
# `git archive` of that commit (no worktree).
set -euo pipefail
cd "$(dirname "$0")/../.."
export NODE_PATH=/usr/share/nodejs  # Debian's emscripten needs acorn from here (TOOLCHAIN.md)
out=build/baseline
[ -f "$out/attnscale-simd.wasm" ] && exit 0
src=build/baseline-src
rm -rf "$src" && mkdir -p "$src"
git archive ac0f359 | tar -x -C "$src"
emcmake cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DATTNSCALE_WASM_SIMD=ON \
  -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
cmake --build "$src/build" -j"$(nproc)" --target attnscale_wasm
mkdir -p "$out"
cp "$src/build/attnscale-simd.mjs" "$src/build/attnscale-simd.wasm" "$out/"
echo "[build] baseline: $out/attnscale-simd.{mjs,wasm}"
