#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A 10% class with a 20 MB/s floor keeps the floor against a 90% class on
# a 50 MB/s device (at least 95% of it), where its share alone would give
# it about 5 MB/s; the same classes without the floor are measured first
# and must stay below 60% of the floor (all rates at NQ_RATE_PCT): a
# module that did not schedule at all would split the device evenly and
# give the 10% class more than the floor with or without it, so only a
# share that binds makes the floor's run mean anything. Rates are the
# bytes the hosts' block layers
# moved while both fio jobs surely ran (nq_overlap_start). On a slow
# machine a floor missed is reported, a skip (nq_slow_miss).
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=${NQ_SECS:-15}
FIO="--rw=randread --bs=128k --iodepth=16"
FLOOR=$(nq_rate 20000000)

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1

nq_load_qos
nq_classes "small --share 10" "big --share 90"

# run NAME: both hosts for SECS; R1 and R2 their rates in B/s while both
# ran (0 when that could not be measured, which has failed the test).
run() {
	nq_overlap_rates "$1" "$SECS" "$FIO" "$d1" "$d2"
	R1=${NQ_RATES[0]} R2=${NQ_RATES[1]}
}

run nofloor
without=$R1
nq_ctl class set small --min "$FLOOR"
run floor
with=$R1 peer=$R2
# No window: nq_overlap_rates has failed the test already.
[ "$NQ_WINDOW_MS" -gt 0 ] || nq_finish
log "10% class: $without B/s without a floor, $with B/s with a floor of $FLOOR B/s (peer $peer B/s)"
[ $((without * 100)) -le $((FLOOR * 60)) ] ||
	fail "without a floor the 10% class got $without B/s, above 60% of $FLOOR B/s: its share did not bind, so the floor's run shows nothing"
if [ $((with * 100)) -lt $((FLOOR * 95)) ]; then
	nq_slow_miss "floor not kept: $with B/s < 95% of $FLOOR B/s" \
		$((with + peer)) "$(nq_nullb_bytes 131072)" B/s ||
		fail "floor not kept: $with B/s < 95% of $FLOOR B/s"
fi

nq_finish
