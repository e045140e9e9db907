#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The scheduling domain is the backing disk. Two 50 MB/s null_blks:
# nqtest0 is namespace 1, as in every test; nqtest1 carries an ext4 file
# system whose two files are namespaces 2 and 3. Hosts 1 and 2 read 128
# KiB at depth 16 in classes of shares 30 and 70 (rates at NQ_RATE_PCT):
# - one disk: host 1 reads namespace 2, host 2 namespace 3. Namespaces on
#   one disk share its budget, so the split of the cost both moved while
#   both ran, as the hosts' block layers count it, is 30/70 within 3 pp
#   (each file its own domain would leave the disk to split them about
#   evenly).
# - two disks: host 1 reads namespace 1, host 2 namespace 2. Disks are
#   scheduled apart, so host 1 moves at least 90% of what it moves on
#   its own disk alone (measured first, in the same run), where one
#   budget for both would hold it to its share.
# On a slow machine a miss is a skip (nq_judge_split, nq_slow_miss).
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3 mkfs.ext4

SECS=${NQ_SECS:-15}
FIO="--rw=randread --bs=128k --iodepth=16"
SUBSYS=/sys/kernel/config/nvmet/subsystems/$NQ_SUBNQN
FS=$NQ_WORK/fs

cleanup() {
	local n
	nvme disconnect -n "$NQ_SUBNQN" > /dev/null 2>&1
	for n in 2 3; do
		[ -d "$SUBSYS/namespaces/$n" ] || continue
		echo 0 > "$SUBSYS/namespaces/$n/enable"
		rmdir "$SUBSYS/namespaces/$n"
	done
	mountpoint -q "$FS" && umount "$FS"
	nq_nullb_remove nqtest1
	nq_cleanup
}
trap cleanup EXIT

nq_target_setup 50 512
# the second disk at the first one's rate, as nq_target_setup scaled it
nq_nullb nqtest1 "$(cat "/sys/kernel/config/nullb/$NQ_NULLB/mbps")" 512
mkfs.ext4 -q -F /dev/nqtest1 || die "mkfs.ext4 /dev/nqtest1 failed"
modprobe ext4 || die "modprobe ext4 failed"
mkdir -p "$FS"
mount /dev/nqtest1 "$FS" || die "cannot mount /dev/nqtest1"
# Written, not allocated: ext4 reads an unwritten extent as zeroes
# without asking the disk.
for n in 2 3; do
	dd if=/dev/zero of="$FS/ns$n" bs=1M count=64 oflag=direct status=none ||
		die "cannot write $FS/ns$n"
	mkdir "$SUBSYS/namespaces/$n" &&
		echo -n "$FS/ns$n" > "$SUBSYS/namespaces/$n/device_path" &&
		echo 1 > "$SUBSYS/namespaces/$n/enable" ||
		die "cannot export $FS/ns$n as namespace $n"
done

d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1
for d in "${d1%n1}n2" "${d2%n1}n3"; do
	for _ in $(seq 50); do [ -b "$d" ] && break; sleep 0.1; done
	[ -b "$d" ] || die "$d did not appear"
done
# the files are 64 MiB: each host reads one from its start
file1="${d1%n1}n2 --offset=0 --size=64M"
file2="${d2%n1}n3 --offset=0 --size=64M"

nq_load_qos
nq_classes "training --share 30" "prep --share 70"

# one disk, two files
nq_fio_hosts files "$SECS" "$FIO" "$file1" "$file2" &
nq_split_of files "$SECS" training prep "$file1" "$file2" $!
nq_judge_split 30 131072

# two disks: host 1 on nqtest0 alone, then beside host 2 on nqtest1
nq_overlap_rates alone "$SECS" "$FIO" "$d1"
alone=${NQ_RATES[0]}
nq_overlap_rates apart "$SECS" "$FIO" "$d1" "$file2"
apart=${NQ_RATES[0]}
log "two disks: host 1 moved $alone B/s alone, $apart B/s beside host 2 on the other disk (${NQ_RATES[1]} B/s)"
if [ "$alone" -gt 0 ] && [ $((apart * 100)) -lt $((alone * 90)) ]; then
	nq_slow_miss "two disks: host 1 at $(pct "$apart" "$alone")% of its rate alone" \
		"$apart" "$(nq_nullb_bytes 131072)" "B/s" ||
		fail "two disks: host 1 moved $(pct "$apart" "$alone")% of its rate alone beside a host on another disk (under 90%)"
fi
"$NQ_CTL" device list | sed 's/^/# /'

nq_finish
