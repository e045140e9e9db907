#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The IOPS limits and the burst hold as README says, on a 50 MB/s device
# (rates at NQ_RATE_PCT; the I/O rates are not scaled):
# - --max-iops 500: a host reading 4 KiB at depth 16 alone completes
#   500 reads a second +- 5% while its fio job surely ran.
# - --min-iops: a share-10 class reading 4 KiB at depth 64 against a
#   share-90 class reading 128 KiB at depth 16 gets at least 95% of a
#   1,500 IOPS floor; the same classes without the floor are measured
#   first and must stay below 60% of it (they got 367 of 900 at
#   NQ_RATE_PCT=60), or the floor's run would prove nothing. At depth 16
#   the small class got 805: each of its reads may wait a 20 ms tick of
#   null_blk's budget behind the large ones, and 16 reads outstanding
#   cannot carry 900 a second through that.
# - --max 2M --burst 8M: after idling, a class moves its burst at once
#   and then its ceiling: 12 MiB read at depth 1 take (12 MiB - 8 MB) /
#   2 MB/s = 2.29 s, where the default burst (256 KiB) would take 6.2 s
#   and no ceiling a fraction of a second; the 4 MiB read right after,
#   with the burst spent, take 4 MiB / 2 MB/s = 2.1 s, less what the
#   bucket gained between the two. Each within 20% and 300 ms (the
#   requests' own latency).
# On a slow machine a rate short of a ceiling or floor is a skip
# (nq_slow_miss); above a ceiling always fails.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=${NQ_SECS:-15}
SMALL="--rw=randread --bs=4k --iodepth=16"
MAX_IOPS=500
FLOOR=$(nq_rate 1500)

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1
nq_load_qos

# iops NAME "FIO ARGS" DEV...: IOPS[i], the 4 KiB reads a second DEV i
# completed while every fio job surely ran (0 if that was not measured,
# which has failed the test)
iops() {
	local name=$1 args=$2 i
	shift 2
	nq_overlap_rates "$name" "$SECS" "$args" "$@"
	IOPS=()
	for i in "${!NQ_RATES[@]}"; do IOPS+=($((NQ_RATES[i] / 4096))); done
	log "$name: ${IOPS[*]} reads/s of 4 KiB"
}

# --max-iops
nq_classes "capped --max-iops $MAX_IOPS"
iops max-iops "$SMALL" "$d1"
if [ "${IOPS[0]}" -gt $((MAX_IOPS * 105 / 100)) ]; then
	fail "--max-iops $MAX_IOPS: the host completed ${IOPS[0]} reads a second"
elif [ "${IOPS[0]}" -lt $((MAX_IOPS * 95 / 100)) ]; then
	nq_slow_miss "--max-iops $MAX_IOPS: ${IOPS[0]} reads a second" \
		"${NQ_RATES[0]}" "$(nq_nullb_bytes 4096)" "B/s" ||
		fail "--max-iops $MAX_IOPS: the host completed only ${IOPS[0]} reads a second"
fi

# --min-iops: host 1 reads 4 KiB in the small class, host 2 128 KiB
nq_classes "small --share 10" "big --share 90"
nq_ctl class del capped
iops no-floor "$SMALL" "$d1 --iodepth=64" "$d2 --bs=128k"
without=${IOPS[0]}
nq_ctl class set small --min-iops "$FLOOR"
iops floor "$SMALL" "$d1 --iodepth=64" "$d2 --bs=128k"
with=${IOPS[0]}
if [ "$without" -ge $((FLOOR * 60 / 100)) ]; then
	fail "without the floor the small class already did $without reads/s (60% of $FLOOR is the bar): the floor's run proves nothing"
fi
if [ "$with" -lt $((FLOOR * 95 / 100)) ]; then
	nq_slow_miss "--min-iops $FLOOR: $with reads/s" \
		$((NQ_RATES[0] + NQ_RATES[1])) "$(nq_nullb_bytes 4096)" "B/s" ||
		fail "--min-iops $FLOOR: the small class did $with reads/s (below 95%)"
fi

# --burst: host 1 alone in a class that has idled
nq_classes "bursty --max 2M --burst 8M"
# read_mib FROM MIB: read MIB MiB at depth 1 from FROM MiB on; READ_START and
# READ_END when it started and ended (ms since the epoch), with no
# process started around it
read_mib() {
	nq_now
	READ_START=$NQ_NOW
	dd if="$d1" of=/dev/null bs=128k count=$(($2 * 8)) skip=$(($1 * 8)) \
		iflag=direct status=none || fail "dd of $2 MiB failed"
	nq_now
	READ_END=$NQ_NOW
}
# judge NAME MIB MS WANT_MS: MIB MiB took MS ms, WANT_MS +- 20% and 300 ms
judge() {
	log "$1: $2 MiB in $3 ms (README: $4 ms)"
	within "$3" "$4" "$4 * 0.2 + 300" ||
		fail "$1: $2 MiB took $3 ms, not $4 ms +- 20% and 300 ms"
}
sleep 5
read_mib 0 12
first=$((READ_END - READ_START)) gap=$READ_END
read_mib 12 4
second=$((READ_END - READ_START)) gap=$((READ_START - gap))
# 12 MiB less the 8 MB burst at 2 MB/s; then 4 MiB at 2 MB/s, less
# what 2 MB/s refilled between the two reads
judge burst 12 "$first" $(((12 * 1048576 - 8000000) / 2000))
judge after 4 "$second" $((4 * 1048576 / 2000 - gap))
"$NQ_CTL" class list | sed 's/^/# /'

nq_finish
