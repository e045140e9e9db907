#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A class capped at 10 MB/s delivers 10 MB/s +- 5% alone, next to a
# busy peer on a 50 MB/s device, even though its share is the larger one
# (both rates at NQ_RATE_PCT), and alone on CPUs kept busy 80 ms of every
# 200 (nq_busy_cpus). Rates are the bytes the hosts' block layers
# moved while all fio jobs surely ran (nq_overlap_start): a whole run's
# total adds the burst at its start and the 16 reads still in flight at
# its end, 2.4 MB, which is 11% of a 15 s run at NQ_RATE_PCT=15.
# Runs last 20 s: on the debug kernel over rdma, when each host ran a
# fio process of its own, the second host's started 4 s after the first,
# which left less than 5 s of a 15 s run. On a slow machine a class
# short of its ceiling is reported, a skip (nq_slow_miss); above the
# ceiling always fails.
# Transports: tcp rdma loop fc
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=${NQ_SECS:-20}
FIO="--rw=randread --bs=128k --iodepth=16"
CAP=$(nq_rate 10000000)

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1

nq_load_qos
nq_classes "capped --share 70 --max $CAP" "other --share 30"

# run NAME DEV...: fio on every DEV; the first is the capped host, the
# second, if any, its peer.
run() {
	local name=$1 rate
	shift
	nq_overlap_rates "$name" "$SECS" "$FIO" "$@"
	rate=${NQ_RATES[0]}
	# No window: nq_overlap_rates has failed the test already.
	[ "$NQ_WINDOW_MS" -gt 0 ] || return
	log "ceiling $CAP B/s, $name: $rate B/s ($(pct "$rate" "$CAP")%) over $NQ_WINDOW_MS ms${2:+, peer ${NQ_RATES[1]} B/s}"
	within "$(pct "$rate" "$CAP")" 100 5 && return
	# Short of the ceiling on a slow machine: 1.19 MB/s of 1.5 next to a
	# peer at 2.39 on the debug kernel. Above it always fails.
	[ "$rate" -lt "$CAP" ] && nq_slow_miss "$name: capped class at $rate B/s, short of $CAP B/s" \
		$((rate + ${NQ_RATES[1]:-0})) "$(nq_nullb_bytes 131072)" B/s && return
	fail "$name: capped class at $rate B/s, not $CAP B/s +- 5%"
}

run alone "$d1"
run both "$d1" "$d2"
# And alone on busy CPUs: the dispatcher that releases the class's held
# reads runs up to 80 ms late, past the 43 ms its burst keeps (256 KiB at
# the 6 MB/s of NQ_RATE_PCT=60); what the ceiling allowed in the
# meantime must still go. Before bucket_refill() kept it, the class
# read 87.3% of its ceiling here.
nq_busy_cpus 80 120
run busy "$d1"
nq_busy_stop

nq_finish
