#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A class capped at 10 MB/s delivers 10 MB/s +- 5% alone and next to a
# busy peer on a 50 MB/s device, even though its share is the larger one
# (both rates at NQ_RATE_PCT). Rates are the bytes the hosts' block layers
# moved while all fio jobs surely ran (nq_overlap_start): a whole run's
# total adds the burst at its start and the 16 reads still in flight at
# its end, 2.4 MB, which is 11% of a 15 s run at NQ_RATE_PCT=15.
# Transports: tcp rdma
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=${NQ_SECS:-15}
FIO="--rw=randread --bs=128k --iodepth=16"
CAP=$(nq_rate 10000000)

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1

nq_load_qos
nq_classes "capped --share 70 --max $CAP" "other --share 30"

# run NAME DEV...: fio on every DEV; RATE is the first DEV's (the capped
# host's) rate over the window, PEER the second's.
run() {
	local name=$1 pid
	shift
	RATE=0 PEER=0
	nq_fio_hosts "$name" "$SECS" "$FIO" "$@" &
	pid=$!
	if nq_overlap_deltas "$name" "$SECS" nq_host_bytes "$@"; then
		RATE=$((NQ_DELTAS[0] * 1000 / NQ_WINDOW_MS))
		[ $# -gt 1 ] && PEER=$((NQ_DELTAS[1] * 1000 / NQ_WINDOW_MS))
	fi
	wait "$pid" || fail "fio run $name failed"
	log "ceiling $CAP B/s, $name: $RATE B/s ($(pct "$RATE" "$CAP")%) over $NQ_WINDOW_MS ms${2:+, peer $PEER B/s}"
	within "$(pct "$RATE" "$CAP")" 100 5 ||
		fail "$name: capped class at $RATE B/s, not $CAP B/s +- 5%"
}

run alone "$d1"
run both "$d1" "$d2"

nq_finish
