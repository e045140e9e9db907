#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Reads that need no privilege stay cheap at 4,096 flows on one device.
# 4,096 hosts (selftests/nvmetcp.py, a few at a time) each read a block,
# so the device has a flow for each; host_idle_secs keeps them after the
# hosts leave. A user without privileges then dumps the statistics and
# lists the hosts:
# - every dump lists every flow, and every host list every host;
# - a dump costs work in proportion to the flows: each message copies one
#   flow per hold of the device's lock and resumes by number, where it
#   used to walk the flows before the one wanted, under that lock with
#   interrupts off. The kernel's part of a dump (raw netlink, no tool),
#   the fastest of 5 (what noise cannot lengthen), is timed with a
#   quarter of the hosts known and again with all of them: its cost a
#   flow at 4,097 flows must stay within 1.5 times its cost a flow at
#   1,024. The old walk's fastest took 271 to 402 ms for 4,097 flows
#   against 98 to 105 ms now (TCG), a walk's share of the cost growing
#   with the flows; an absolute bar (50 us a flow) failed on a machine
#   slower by half, where the ratio, taken in one boot, does not move;
# - the tool's own dumps and host list, and a probe host's 4 KiB QD1
#   reads alone and while the tool dumps in a loop, are reported.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3 setpriv

HOSTS=${NQ_HOSTS:-4096} SECS=${NQ_SECS:-10} GROWTH_PCT=150
FIRST=$((HOSTS / 4))
W=$NQ_WORK
nq_target_setup 0 64
nq_load_qos host_idle_secs=3600
trap 'rm -f "$W/run"; [ -n "$loop" ] && wait "$loop"; nq_cleanup' EXIT
loop=

# touch PREFIX COUNT: COUNT hosts named PREFIX1.. connect, read a block
# and leave (selftests/nvmetcp.py), each making a flow
touch_hosts() {
	python3 "$NQ_ROOT/selftests/nvmetcp.py" touch "$(host_addr 2)" "$NQ_PORT" \
		"$NQ_SUBNQN" "nqn.2026-11.io.nvmet-qos:$1" "$2" 1 > "$W/touch" 2>&1 ||
		die "the hosts that make the flows failed: $(tail -c 300 "$W/touch")"
}

# as_nobody CMD...: run CMD as a user without privileges
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# kernel_dumps FLOWS: 5 raw dumps of every flow, as nobody; BEST and
# WORST are the fastest's and the slowest's ms. Not in a command
# substitution: a failure there would end only the subshell.
kernel_dumps() {
	local i out ms
	BEST='' WORST=0
	for i in 1 2 3 4 5; do
		out=$(as_nobody python3 "$NQ_ROOT/selftests/nlraw.py" --dump STATS_GET)
		[[ $out =~ ^ok\ ([0-9]+)\ messages\ in\ ([0-9]+)\ ms$ ]] || die "raw dump: $out"
		ms=${BASH_REMATCH[2]}
		[ "$ms" -gt "$WORST" ] && WORST=$ms
		[ -z "$BEST" ] || [ "$ms" -lt "$BEST" ] && BEST=$ms
		[ "${BASH_REMATCH[1]}" -ge "$1" ] ||
			fail "raw dump $i: ${BASH_REMATCH[1]} messages for $1 flows"
	done
}

t0=$(date +%s)
touch_hosts raw "$FIRST"
few=$(nq_table flows)
[ "$few" -ge "$FIRST" ] || fail "$few flows, want at least $FIRST"
kernel_dumps "$few"
fbest=$BEST fworst=$WORST
touch_hosts rawb $((HOSTS - FIRST))
log "$HOSTS hosts connected, read and left in $(($(date +%s) - t0)) s"
d1=$(nq_connect 1) || exit 1

probe() {
	fio --name=probe --filename="$d1" --rw=randread --bs=4k --iodepth=1 \
		--direct=1 --time_based --runtime="$SECS" --output-format=json > "$W/$1.json" ||
		fail "probe fio $1 failed"
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["read"]
print(j["clat_ns"]["percentile"]["99.000000"] // 1000, int(j["iops"]))' "$W/$1.json"
}
read -r alone alone_iops < <(probe alone)

flows=$(nq_table flows) hosts=$(nq_table hosts)
log "$flows flows, $hosts hosts"
[ "$flows" -ge "$HOSTS" ] || fail "$flows flows, want at least $HOSTS"

# The kernel's part alone, at all the flows, against a quarter of them.
kernel_dumps "$flows"
kbest=$BEST kworst=$WORST
log "raw netlink dumps of $few flows: fastest of 5 $fbest ms, slowest $fworst ms"
log "raw netlink dumps of $flows flows: fastest of 5 $kbest ms, slowest $kworst ms"
[ "$fbest" -gt 0 ] || die "a dump of $few flows took under 1 ms: too few to time"
# per flow: kbest / flows against fbest / few, in percent
growth=$((kbest * few * 100 / (fbest * flows)))
log "cost a flow at $flows flows: ${growth}% of that at $few (bar ${GROWTH_PCT}%)"
[ "$growth" -le "$GROWTH_PCT" ] ||
	fail "a dump's cost a flow grew to ${growth}% of its cost at $few flows when the flows went to $flows"

# Each dump, timed, as a user without privileges: its ms and its flows.
worst=0
for i in 1 2 3 4 5; do
	t=$(date +%s%N)
	n=$(as_nobody "$NQ_CTL" stats --json | grep -o '"host":' | wc -l)
	ms=$(nq_ms_since "$t")
	[ "$ms" -gt "$worst" ] && worst=$ms
	[ "$n" -eq "$flows" ] || fail "dump $i listed $n flows of $flows"
done
t=$(date +%s%N)
n=$(as_nobody "$NQ_CTL" host list --json | grep -o '"nqn":' | wc -l)
log "slowest of 5 statistics dumps of $flows flows: $worst ms; a host list of $n hosts: $(nq_ms_since "$t") ms"
[ "$n" -eq "$hosts" ] || fail "host list listed $n hosts of $hosts"

# Until $W/run goes; a dump under way ends first, so that nothing holds
# the module when the test unloads it.
touch "$W/run"
# shellcheck disable=SC2016
as_nobody bash -c 'while [ -e "$2" ]; do "$1" stats --json | grep -o "\"host\":" | wc -l; done' \
	_ "$NQ_CTL" "$W/run" > "$W/dumps" 2>&1 &
loop=$!
read -r loaded loaded_iops < <(probe loaded)
rm "$W/run"
wait "$loop"
loop=
dumps=$(grep -c . "$W/dumps")
log "probe p99 $alone us ($alone_iops IOPS) alone, $loaded us ($loaded_iops IOPS) while $dumps dumps ran in $SECS s"
[ "$dumps" -ge 2 ] || fail "the unprivileged loop made $dumps dumps: $(head -c 200 "$W/dumps")"
nq_finish
