#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Details panel and timeline tests under valgrind memcheck: zero invalid reads or writes.
# Sanitizers cannot see a write that happens inside Qt (Qt 6.4's form layout once wrote past its
# buffers when AttnScope hid rows of it), so these widget tests run under valgrind too.
# Usage: valgrind.sh UI_TEST_BINARY [GTEST_FILTER]
set -euo pipefail
binary=$1
filter=${2:-'DetailsPanel.*:TimelineView.*'}
log=$(mktemp)
out=$(mktemp)
trap 'rm -f "$log" "$out"' EXIT
export QT_QPA_PLATFORM=offscreen
# Own settings and caches: the tests never see the user's.
XDG_CONFIG_HOME=$(mktemp -d) XDG_CACHE_HOME=$(mktemp -d)
export XDG_CONFIG_HOME XDG_CACHE_HOME
command -v valgrind >/dev/null || { echo "FAILED: valgrind is not installed (packaging/install-deps.sh installs it)" >&2; exit 1; }
status=0
valgrind --tool=memcheck --error-exitcode=99 --num-callers=30 --log-file="$log" \
    "$binary" --gtest_filter="$filter" >"$out" 2>&1 || status=$?
rm -rf "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"
summary=$(grep "ERROR SUMMARY" "$log" || true)
invalid=$(grep -c "Invalid \(read\|write\|free\)" "$log" || true)
echo "valgrind memcheck, $filter: $summary"
if [[ $status -ne 0 || $invalid -ne 0 ]]; then
    grep -B2 -A25 "Invalid \(read\|write\|free\)" "$log" | head -150 || true
    grep -A8 "Failure\|FAILED" "$out" | head -80 || true
    echo "FAILED: exit $status, $invalid invalid accesses" >&2
    exit 1
fi
