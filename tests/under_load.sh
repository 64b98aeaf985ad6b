#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test binaries (core, kernels, command line, widgets: every test but the valgrind pass) RUNS times
# in a row while two busy loops hold the CPU, each binary in settings and cache folders of its own.
# Prints each run's time and failures; exits 1 when any run failed.
# Usage: under_load.sh BUILD_DIR [RUNS]
set -uo pipefail
build=$1
runs=${2:-20}
(while :; do :; done) &
busy1=$!
(while :; do :; done) &
busy2=$!
trap 'kill $busy1 $busy2 2>/dev/null' EXIT
failed=0
for i in $(seq 1 "$runs"); do
  start=$(date +%s)
  bad=""
  for t in core kernels cli ui; do
    home=$(mktemp -d)
    log=$(mktemp)
    if ! XDG_CONFIG_HOME=$home XDG_CACHE_HOME=$home timeout 1200 "$build/tests/attnscope_${t}_tests" >"$log" 2>&1; then
      bad="$bad $t"
      grep -E "^\[  FAILED  \]|Failure" "$log" | head -5
    fi
    rm -rf "$home" "$log"
  done
  [ -n "$bad" ] && failed=$((failed + 1))
  echo "run $i: $(( $(date +%s) - start )) s${bad:+, failed:$bad}"
done
echo "under load: $failed of $runs runs failed"
[ "$failed" -eq 0 ]
