#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Latency class: 4 KiB QD1 random reads of an inference host in a latency
# class keep their p99 within 1.5x of their uncontended p99 while a
# bandwidth class saturates the device with 128 KiB reads at QD128. Stock
# nvmet is measured in the same boot for contrast.
#
# The device serves requests in parallel with a fixed service time and a
# bounded number of slots (null_blk: timer completion, 8 tags), as flash
# does: a request waits for a free slot, not for every request ahead of
# it. (A bandwidth-throttled null_blk serves strictly in order; there no
# scheduler can let a small read overtake work already at the device.)
. "$(dirname "$0")/../lib.sh"
nq_require nvme fio python3

SECS=${NQ_SECS:-10}
export NQ_NULLB_ATTRS="irqmode=2 completion_nsec=4000000 hw_queue_depth=8 submit_queues=1"
INF="--rw=randread --bs=4k --iodepth=1"
BW="--rw=randread --bs=128k --iodepth=64 --numjobs=2"

nq_target_setup 0 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1

p99() {
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["read"]["clat_ns"]["percentile"]
print(int(j["99.000000"]))' "$NQ_WORK/$1.1.json"
}

# run NAME: inference alone, then inference next to the bandwidth host.
run() {
	nq_fio_hosts "$1_alone" "$SECS" "$INF" "$d1"
	nq_fio_hosts "$1_inf" "$SECS" "$INF" "$d1" &
	local inf=$!
	fio --name=bw --filename="$d2" --ioengine=libaio --direct=1 $BW \
		--offset=256M --size=128M --time_based --runtime=$((SECS + 2)) \
		--output-format=json > "$NQ_WORK/$1_bw.json" 2>&1 &
	local bw=$!
	wait $inf
	wait $bw || fail "bandwidth fio failed"
}

run stock
nq_load_qos
nq_ctl class add inference --share 30 --latency
nq_ctl class add bulk --share 70
nq_ctl host assign "$(host_nqn 1)" inference
nq_ctl host assign "$(host_nqn 2)" bulk
run qos

sa=$(p99 stock_alone); sc=$(p99 stock_inf)
qa=$(p99 qos_alone); qc=$(p99 qos_inf)
log "stock nvmet: p99 $((sa / 1000)) us alone, $((sc / 1000)) us contended ($(pct "$sc" "$sa")%)"
log "nvmet-qos latency class: p99 $((qa / 1000)) us alone, $((qc / 1000)) us contended ($(pct "$qc" "$qa")%)"
[ "$qc" -le $((qa * 3 / 2)) ] || fail "contended p99 $((qc / 1000)) us > 1.5x uncontended $((qa / 1000)) us"

nq_finish
