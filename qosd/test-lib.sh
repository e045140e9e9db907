# shellcheck shell=bash disable=SC2154
# SPDX-License-Identifier: GPL-2.0
#
# What qosd's test scripts share, sourced once they have $tmp (a fresh
# directory), $cluster (scripts/etcd-cluster) and pids (what they start
# in the background):
# - on exit, what they started is stopped, the etcd cluster under
#   $tmp/etcd too, and $tmp removed (kept with QOSD_KEEP=1);
# - KTAP results, written to $tmp/ktap while the test runs (fd 3 keeps
#   the real stdout) and printed with their plan at the end (ktap_end),
#   so that nothing a test starts in the background can print between.

cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
	wait 2> /dev/null
	"$cluster" stop "$tmp/etcd" 2> /dev/null
	[ -n "${QOSD_KEEP:-}" ] && echo "# kept $tmp" >&3 || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' TERM INT

n=0 failed=0
exec 3>&1 > "$tmp/ktap"

ok() { n=$((n + 1)); echo "ok $n - $1"; }
# nok NAME [DETAIL...]: a failure, each DETAIL a comment line under it.
nok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n - $1"
	shift
	[ $# -gt 0 ] && printf '# %s\n' "$@"
}
# check NAME CMD...: passes when CMD does.
check() { local name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }

# need TOOL...: skip the test (status 4) when one is missing.
need() {
	local t
	for t; do
		command -v "$t" > /dev/null || { echo "1..0 # SKIP no $t" >&3; exit 4; }
	done
}

# etcd_up PORT: a three-member etcd cluster on loopback from PORT on
# (scripts/etcd-cluster), its client URLs in $urls, or a skip.
etcd_up() {
	urls=$("$cluster" start "$tmp/etcd" 3 "$1") ||
		{ echo "1..0 # SKIP etcd would not start" >&3; exit 4; }
}
# ec ARG...: etcdctl against that cluster.
ec() { etcdctl --endpoints "$urls" "$@"; }
# mono: CLOCK_MONOTONIC seconds, the clock the simulated heads record in.
mono() { python3 -c 'import time; print("%.3f" % time.monotonic())'; }

# ktap_end: the plan and the results; the status fails if any did.
ktap_end() {
	exec 1>&3
	echo "TAP version 13"
	echo "1..$n"
	cat "$tmp/ktap"
	[ "$failed" -eq 0 ]
}
