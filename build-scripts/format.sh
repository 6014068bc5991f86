#!/usr/bin/env bash
# `npm run format`: rewrites every JS file with Prettier (.prettierrc.json) and every tracked C++
# file with Debian's clang-format 14 (.clang-format), the fuzz corpus aside. `npm run lint` checks.
set -euo pipefail
cd "$(dirname "$0")/.."
npx --no-install prettier --write --log-level warn '**/*.{js,mjs,cjs}'
files=()
while IFS= read -r f; do
  if [ -f "$f" ]; then files+=("$f"); fi
done < <(git ls-files -- '*.cpp' '*.hpp' '*.h' '*.cc' ':(exclude)tests/fuzz/corpus')
/usr/bin/clang-format --style=file -i "${files[@]}"
echo "[format] ${#files[@]} C++ files and the JS files formatted"
