#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A 10% class with a 20 MB/s floor keeps the floor against a 90% class on
# a 50 MB/s device (at least 95% of it), where its share alone would give
# it about 5 MB/s; the same classes without the floor are measured first
# (all rates at NQ_RATE_PCT). Rates are the bytes the hosts' block layers
# moved while both fio jobs surely ran (nq_overlap_start).
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
	local pid b10 b20 t0 b11 b21 t1=
	R1=0 R2=0
	nq_fio_hosts "$1" "$SECS" "$FIO" "$d1" "$d2" &
	pid=$!
	if nq_overlap_start "$1" "$SECS" "$d1" "$d2"; then
		t0=$(date +%s%3N); b10=$(nq_host_bytes "$d1"); b20=$(nq_host_bytes "$d2")
		nq_overlap_end
		t1=$(date +%s%3N); b11=$(nq_host_bytes "$d1"); b21=$(nq_host_bytes "$d2")
	fi
	wait "$pid" || fail "fio run $1 failed"
	[ -n "$t1" ] || return 0
	R1=$(((b11 - b10) * 1000 / (t1 - t0))) R2=$(((b21 - b20) * 1000 / (t1 - t0)))
}

run nofloor
without=$R1
nq_ctl class set small --min "$FLOOR"
run floor
with=$R1 peer=$R2
log "10% class: $without B/s without a floor, $with B/s with a floor of $FLOOR B/s (peer $peer B/s)"
python3 -c "import sys; sys.exit(0 if $with >= $FLOOR * 0.95 else 1)" ||
	fail "floor not kept: $with B/s < 95% of $FLOOR B/s"

nq_finish
