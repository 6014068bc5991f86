#!/usr/bin/env bash
# `npm run fuzz [seconds]`: libFuzzer + AddressSanitizer + UBSan on each target for N seconds
# (default 60). New inputs that increase coverage are merged into tests/fuzz/corpus/<target>/,
# which `npm test` replays. A crash stops the run and leaves its input under build/fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
bash build-scripts/setup.sh
if [ ! -f build/fuzz/CMakeCache.txt ]; then
  CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNSCALE_FUZZ=ON \
    -DATTNSCALE_TESTS=OFF >/dev/null
fi
cmake --build build/fuzz -j"$(nproc)"
for bin in build/fuzz/fuzz_*; do
  target=$(basename "$bin"); target=${target#fuzz_}
  corpus=tests/fuzz/corpus/$target
  work=build/fuzz/work-$target
  mkdir -p "$work" "$corpus"
  echo "[fuzz] $target for ${seconds}s"
  "$bin" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="build/fuzz/crash-$target-" \
    "$work" "$corpus" 2>&1 | grep -E "^(stat::|#[0-9]+ *DONE|==[0-9]+==ERROR|SUMMARY)" || true
  # Keep the corpus small: only inputs that add coverage.
  "$bin" -merge=1 "$corpus" "$work" >/dev/null 2>&1 || true
done
ls build/fuzz/crash-* >/dev/null 2>&1 && { echo "[fuzz] crashes found: build/fuzz/crash-*"; exit 1; }
echo "[fuzz] clean"
