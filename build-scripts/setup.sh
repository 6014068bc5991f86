#!/usr/bin/env bash
# Installs what attnscale needs on a fresh Debian 12 machine (run as root), and only what is missing.
# Idempotent: a second run installs nothing and says so. Prints each action it takes.
set -euo pipefail

log() { printf '[setup] %s\n' "$*"; }

# Debian packages and a command (or file) that proves each is present.
declare -A probe=(
  [cmake]=/usr/bin/cmake
  [g++]=/usr/bin/g++
  [make]=/usr/bin/make
  [emscripten]=/usr/bin/emcc
  [binaryen]=/usr/bin/wasm-opt
  [libxsimd-dev]=/usr/include/xsimd/xsimd.hpp
  [libgtest-dev]=/usr/include/gtest/gtest.h
  [nodejs]=/usr/bin/node
  [npm]=/usr/bin/npm
  [chromium]=/usr/bin/chromium
  [clang]=/usr/bin/clang
  [libclang-rt-14-dev]=/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a
  # The C++ format check (build-scripts/lib/check-cpp-format.sh) runs Debian's clang-format 14.
  [clang-format]=/usr/bin/clang-format
  # The other two browser engines of the test suite: Firefox over WebDriver BiDi,
  # WebKitGTK (Safari's engine) through WebKitWebDriver + MiniBrowser under a virtual X server.
  [firefox-esr]=/usr/bin/firefox-esr
  [webkit2gtk-driver]=/usr/bin/WebKitWebDriver
  [xvfb]=/usr/bin/xvfb-run
  [xauth]=/usr/bin/xauth
)

missing=()
for pkg in "${!probe[@]}"; do
  if [ -e "${probe[$pkg]}" ]; then continue; fi
  # node/npm may come from elsewhere than Debian (e.g. a newer Node on PATH): accept any on PATH.
  if [ "$pkg" = nodejs ] && command -v node >/dev/null; then continue; fi
  if [ "$pkg" = npm ] && command -v npm >/dev/null; then continue; fi
  missing+=("$pkg")
done

# shellcheck source=lib/apt-install.sh
source "$(dirname "$0")/lib/apt-install.sh"
apt_install_missing "Debian packages" "${missing[@]}"

cd "$(dirname "$0")/.."
lock_stamp=node_modules/.package-lock.json
if [ ! -d node_modules ] || [ package-lock.json -nt "$lock_stamp" ]; then
  log "npm ci (from the committed package-lock.json)"
  # puppeteer-core never downloads a browser; the variable makes that explicit for any tool that might.
  PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
else
  log "npm dependencies: up to date"
fi
