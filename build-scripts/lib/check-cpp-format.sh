#!/usr/bin/env bash
# Checks every tracked C++ file against the repo's .clang-format with Debian's clang-format 14
# (the fuzz corpus aside: its files are inputs, not code). Prints each file that is not clean and
# exits non-zero if there is one; `clang-format -i FILE` rewrites a file in place.
set -euo pipefail
cd "$(dirname "$0")/../.."

clang_format=/usr/bin/clang-format
if [ ! -x "$clang_format" ]; then
  echo "[format] $clang_format is missing: bash build-scripts/setup.sh installs it" >&2
  exit 2
fi

files=()
while IFS= read -r f; do
  if [ -f "$f" ]; then files+=("$f"); fi  # (skips a file deleted but not yet committed)
done < <(git ls-files -- '*.cpp' '*.hpp' '*.h' '*.cc' ':(exclude)tests/fuzz/corpus')

# One clang-format process for every file; each violation is reported as "FILE:LINE:COL: error: …".
status=0
report=$("$clang_format" --style=file --dry-run -Werror "${files[@]}" 2>&1) || status=$?
if [ "$status" -ne 0 ]; then
  mapfile -t dirty < <(printf '%s\n' "$report" | sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
  if [ ${#dirty[@]} -eq 0 ]; then
    printf '%s\n' "$report" >&2
    echo "[format] clang-format failed (exit $status)" >&2
    exit "$status"
  fi
  echo "[format] not clang-format clean ($("$clang_format" --version)):" >&2
  printf '  %s\n' "${dirty[@]}" >&2
  echo "[format] fix with: $clang_format -i ${dirty[*]}" >&2
  exit 1
fi
echo "[format] C++: ${#files[@]} files clean"
