#!/usr/bin/env bash
# Native build (host's best arch): GoogleTest suite and native benchmarks, in build/native.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -f build/native/CMakeCache.txt ]; then
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build/native -j"$(nproc)"
echo "[build] native: build/native"
