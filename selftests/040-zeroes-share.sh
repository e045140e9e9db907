#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A host that writes zeroes is held to its class's share like one that
# writes data: host 1 issues Write Zeroes of 256 KiB, 16 at a time, in
# class "zeroes" (share 30), host 2 writes 256 KiB at queue depth 4 in
# class "writes" (share 70), on a 50 MB/s device that writes every
# zeroed block (null_blk has no Write Zeroes of its own, so nvmet writes
# zero pages). The split of the cost both moved while both ran, as the
# hosts' block layers count it (a Write Zeroes counts its range as
# written), follows 30/70 within 3 percentage points (nq_judge_split).
# Stock nvmet is measured in the same boot for contrast.
#
# The kernel runs one BLKZEROOUT of a block device at a time (it holds
# the device's invalidate lock throughout), so the zeroes go through 16
# dm-linear devices, 4 MiB slices of host 1's namespace: each is a block
# device of its own, and passes its Write Zeroes down unchanged.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio blkdiscard dmsetup python3

SECS=${NQ_SECS:-20}
ZQD=16 WQD=4

slices_remove() {
	local i
	for i in $(seq 0 $((ZQD - 1))); do
		dmsetup remove "nqz$i" 2>/dev/null
	done
	return 0
}
trap 'slices_remove; nq_cleanup' EXIT

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1
q=/sys/block/${d1#/dev/}/queue
# Without it the host would write zeroes as plain writes.
[ "$(cat "$q/write_zeroes_max_bytes")" -ge $((256 << 10)) ] ||
	die "the host does not send Write Zeroes of 256 KiB to nvmet"
modprobe dm-mod 2>/dev/null
slices=()
for i in $(seq 0 $((ZQD - 1))); do
	echo "0 8192 linear $d1 $((i * 8192))" | dmsetup create "nqz$i" ||
		die "cannot create dm-linear slice $i of $d1"
	# /dev/dm-N: the guest has no udev to make /dev/mapper's names
	slices+=("$(dmsetup info -c --noheadings -o blkdevname "nqz$i")")
done
q=/sys/block/${slices[0]}/queue
[ "$(cat "$q/write_zeroes_max_bytes")" -ge $((256 << 10)) ] ||
	die "the dm-linear slices do not pass Write Zeroes of 256 KiB down"

# zero_load SECS: on every slice, 256 KiB Write Zeroes over the slice
# again and again until SECS seconds are over; fails, with what
# blkdiscard said, if any blkdiscard did (-f: no probing for signatures
# first).
zero_load() {
	local end=$((EPOCHSECONDS + $1)) i pids=() rc=0
	for i in $(seq 0 $((ZQD - 1))); do
		(
			while [ "$EPOCHSECONDS" -lt "$end" ]; do
				blkdiscard -f -z -p 256K "/dev/${slices[i]}" \
					2> "$NQ_WORK/zeroes.$i" || exit 1
			done
		) &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	[ "$rc" -eq 0 ] || fail "a blkdiscard -z failed: $(grep -hv 'Operation forced' "$NQ_WORK"/zeroes.*)"
	return $rc
}

# load NAME: the zeroes on host 1 and the writes on host 2 for SECS
# seconds; fails if either did.
load() {
	local z rc=0
	zero_load "$SECS" &
	z=$!
	nq_fio_hosts "$1" "$SECS" "--rw=write --bs=256k --iodepth=$WQD" "$d2" || rc=1
	wait "$z" || rc=1
	return $rc
}

load stock &
pid=$!
if nq_overlap_deltas stock "$SECS" "$d1" "$d2"; then
	all=$((NQ_COSTS[0] + NQ_COSTS[1]))
	log "stock nvmet: the zeroes took $(pct "${NQ_COSTS[0]}" "$all")% of $((all * 1000 / NQ_WINDOW_MS)) cost units/s"
fi
wait "$pid" || fail "run stock failed"

nq_load_qos
nq_classes "zeroes --share 30" "writes --share 70"
load qos &
nq_split_of qos "$SECS" zeroes writes "$d1" "$d2" $!
log "nvmet-qos 30/70: the zeroes took ${NQ_SPLIT}% of $NQ_SPLIT_RATE cost units/s"
nq_judge_split 30 262144
"$NQ_CTL" class list | sed 's/^/# /'
"$NQ_CTL" device list | sed 's/^/# /'
nq_check_balance

nq_finish
