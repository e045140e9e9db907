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

# ktap_end: the plan and the results; the status fails if any did.
ktap_end() {
	exec 1>&3
	echo "TAP version 13"
	echo "1..$n"
	cat "$tmp/ktap"
	[ "$failed" -eq 0 ]
}
