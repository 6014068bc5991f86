#!/usr/bin/env bash
# Builds the two wasm variants (SIMD and scalar fallback) and copies them to web/generated/.
set -euo pipefail
cd "$(dirname "$0")/../.."
export NODE_PATH=/usr/share/nodejs  # Debian's emscripten links with the acorn found here
mkdir -p web/generated
for variant in simd scalar; do
  flag=ON; [ "$variant" = scalar ] && flag=OFF
  dir=build/wasm-$variant
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    emcmake cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DATTNSCALE_WASM_SIMD=$flag \
      -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
  fi
  cmake --build "$dir" -j"$(nproc)" --target attnscale_wasm
  cp "$dir/attnscale-$variant.mjs" "$dir/attnscale-$variant.wasm" web/generated/
done
echo "[build] wasm: web/generated/attnscale-{simd,scalar}.{mjs,wasm}"
