#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A class capped at 10 MB/s delivers 10 MB/s +- 5% alone and next to a
# busy peer on a 50 MB/s device, even though its share is the larger one
# (both rates at NQ_RATE_PCT).
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

nq_fio_hosts alone "$SECS" "$FIO" "$d1"
nq_fio_hosts both "$SECS" "$FIO" "$d1" "$d2"
for run in alone both; do
	rate=$(($(nq_fio_total $run 1) / SECS))
	log "ceiling $CAP B/s, $run: $rate B/s ($(pct "$rate" "$CAP")%)"
	within "$(pct "$rate" "$CAP")" 100 5 || fail "$run: capped class at $rate B/s, not $CAP B/s +- 5%"
done

nq_finish
