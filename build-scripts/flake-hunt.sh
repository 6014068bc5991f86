#!/usr/bin/env bash
# Runs each browser suite many times while a CPU burner keeps one core busy, and prints a table of
# the failures: which suite, how many runs, how many failed, and each failing test with its first
# error line. Not part of `npm test`: a full hunt takes about an hour on a 2-core machine.
#
#   bash build-scripts/flake-hunt.sh                # e2e ×10, the other suites ×5 each
#   bash build-scripts/flake-hunt.sh --runs 3 --e2e-runs 3 --suites e2e,webkit-c
#   bash build-scripts/flake-hunt.sh --jobs 2       # two suite runs at a time: more load, half the wall time
#
# Suites: e2e (Chromium), consumer (the npm package), firefox, webkit-c (LANG=C.UTF-8),
# webkit-en (LANG=en_US.UTF-8). It uses the build in dist/ and build/ (run `npm run build` first;
# it builds once if dist/ is missing). Logs: tests/output/flake-hunt/<suite>-<run>.log.
set -euo pipefail
cd "$(dirname "$0")/.."

e2e_runs=10
runs=5
suites=e2e,consumer,firefox,webkit-c,webkit-en
jobs=1
while [ $# -gt 0 ]; do
  case $1 in
    --e2e-runs) e2e_runs=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --suites) suites=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) echo "usage: $0 [--e2e-runs N] [--runs N] [--suites a,b,…] [--jobs J]" >&2; exit 2 ;;
  esac
done

[ -f dist/index.html ] || bash build-scripts/build.sh
out=tests/output/flake-hunt
rm -rf "$out"
mkdir -p "$out"

# The burner: one core busy for the whole hunt (stress-ng if Debian's package is there, else a
# busy loop in Node), stopped on any exit.
if command -v stress-ng >/dev/null; then
  stress-ng --cpu 1 --quiet &
else
  node -e 'for (;;) {}' &
fi
burner=$!
trap 'kill "$burner" 2>/dev/null || true' EXIT

run_suite() { # run_suite <suite> <log> <failures.jsonl>
  local reporters=(--test-reporter=spec --test-reporter-destination="$2"
    --test-reporter=./build-scripts/lib/flake/reporter.mjs --test-reporter-destination="$3")
  case $1 in
    e2e) node --test --test-concurrency=1 "${reporters[@]}" tests/e2e/ ;;
    consumer) node --test --test-concurrency=1 "${reporters[@]}" tests/consumer/ ;;
    firefox) node --test --test-concurrency=1 "${reporters[@]}" tests/firefox/ ;;
    webkit-c) env LANG=C.UTF-8 LC_ALL=C.UTF-8 xvfb-run -a node --test --test-concurrency=1 "${reporters[@]}" tests/webkit/ ;;
    webkit-en) env LANG=en_US.UTF-8 LC_ALL=en_US.UTF-8 xvfb-run -a node --test --test-concurrency=1 "${reporters[@]}" tests/webkit/ ;;
    *) echo "unknown suite: $1" >&2; return 2 ;;
  esac
}

run_task() { # run_task <suite> <i> <n>
  local suite=$1 i=$2 n=$3 start status
  start=$(date +%s)
  if run_suite "$suite" "$out/$suite-$i.log" "$out/$suite-$i.failures.jsonl" >/dev/null 2>"$out/$suite-$i.stderr"; then status=pass; else status=FAIL; fi
  # A run that failed without a failing test (a crash, a hook that threw) still counts as failed.
  [ "$status" = FAIL ] && [ ! -s "$out/$suite-$i.failures.jsonl" ] \
    && printf '{"file":"","name":"(the run itself)","error":"exit status non-zero; see %s"}\n' "$out/$suite-$i.log" >> "$out/$suite-$i.failures.jsonl"
  echo "[flake-hunt] $suite run $i/$n: $status ($(( $(date +%s) - start )) s)"
}

IFS=, read -r -a chosen <<< "$suites"
pids=()
hunt_start=$(date +%s)
for suite in "${chosen[@]}"; do
  n=$runs
  [ "$suite" = e2e ] && n=$e2e_runs
  for i in $(seq 1 "$n"); do
    # At most $jobs runs at once (the burner aside).
    while [ ${#pids[@]} -ge "$jobs" ]; do
      wait -n "${pids[@]}" || true
      alive=()
      for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive+=("$p"); done
      pids=("${alive[@]}")
    done
    run_task "$suite" "$i" "$n" &
    pids+=($!)
  done
done
[ ${#pids[@]} -eq 0 ] || wait "${pids[@]}" || true
echo "[flake-hunt] $(( ($(date +%s) - hunt_start) / 60 )) min, ${jobs} run(s) at a time beside the CPU burner, on $(nproc) cores"

node build-scripts/lib/flake/table.mjs "$out" "$e2e_runs" "$runs" "${chosen[@]}" | tee "$out/table.md"
