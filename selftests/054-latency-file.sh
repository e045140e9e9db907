#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The latency class on the third shape a head exports: a file on ext4 on
# an NVMe drive, the namespace file-backed with O_DIRECT. The drive is
# the boot's one that keeps data (scripts/vm), its reads held by QEMU's
# throttling to 25 MB/s in one FIFO. nvmet-qos schedules the file as
# the disk of its file system, whose tags it counts.
#
# The load is 052's: 4 KiB QD1 reads of a host in a latency class of
# share 30, beside 32 KiB reads at QD 128 of a host in a class of 70;
# stock nvmet and nvmet-qos alternate in one boot, three rounds, medians
# judged.
#
# 1.5x is out of reach on this drive, for any scheduler: a 4 KiB read
# takes about 0.7 ms alone, and each 32 KiB read ahead of it in the FIFO
# 1.3 ms more (25 MB/s). With none ahead the drive idles between bulk
# reads; with one, the small read takes nearly three times as long. So
# the bar is what the latency class's order and a short queue at the
# drive can give without idling it, and the bulk class keeps at least
# 90% of stock's bytes.
#
# It is judged on the median read, the tail guarded. The median is what
# is queued ahead of a read at the drive, which is what the order and
# the short queue decide. The p99 of one read here is as much the
# machine's as theirs: alone, with nothing to order, it ranged from 0.6
# to 8.8 ms across runs while its median stayed within 0.2 to 1.0 ms,
# and contended it carries those stalls on top of the queue. Judged at
# half of stock's as % of uncontended, as this test first did (780%
# against stock's 2,612% when first measured), nvmet-qos's p99 sat at
# the bar: 0.35 to 0.54 of stock's across nine runs of three versions
# down to the test's first, and it failed a CI run (11.9 ms against
# stock's 23.5 ms). The median was 0.26 to 0.36 of stock's in each of
# 21 rounds (seven runs in three boots, the machine quiet and loaded);
# with the latency class served as a bandwidth class (mutant latency),
# 0.48 to 0.78 in two boots, its p99 0.66 in both. So: the median over
# rounds of nvmet-qos's contended median at most 40% of stock's, and of
# its contended p99 at most 75% of stock's, a bar it met by 0.24 or
# more in each run measured.
# Boot: nvme 4
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3 mkfs.ext4

# 6 s: a round has 450 to 1,400 contended samples for its percentiles
# (stock's reads wait longer), and make check's time is short
SECS=${NQ_SECS:-6}
ROUNDS=${NQ_ROUNDS:-3}
INF="--rw=randread --bs=4k --iodepth=1"
BW="--rw=randread --bs=32k --iodepth=64 --numjobs=2"
FS=$NQ_WORK/fs

cleanup() {
	nq_target_teardown
	! mountpoint -q "$FS" || umount "$FS"
	nq_cleanup
	modprobe -r nvme 2>/dev/null
}
trap cleanup EXIT

nq_nvme_up 4
# the bulk host reads from 256 MiB to 384 MiB
nq_nvme_file "$FS" 512
b=${NQ_DATA#/dev/}
log "$FS/ns.img on ext4 on $b: $(find "/sys/block/$b/mq" -mindepth 1 -maxdepth 1 -type d | wc -l) hardware queues of $(cat "/sys/block/$b/queue/nr_requests") tags"

nq_target_export "$FS/ns.img"
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1

# judge_fifo STOCK_PCT QOS_PCT STOCK_P99 QOS_P99 STOCK_MED QOS_MED:
# the medians over rounds of nvmet-qos's contended median at most 40% of
# stock's, and of its contended p99 at most 75% (us).
judge_fifo() {
	python3 -c "import sys; sys.exit(0 if 10 * $6 <= 4 * $5 else 1)" ||
		fail "median contended latency is $6 us, above 40% of stock nvmet's $5 us"
	python3 -c "import sys; sys.exit(0 if 4 * $4 <= 3 * $3 else 1)" ||
		fail "median contended p99 is $4 us, above 75% of stock nvmet's $3 us"
	nq_finish
}

nq_latency_rounds "$ROUNDS" "$SECS" "$INF" "$BW" "$d1" "$d2" :
"$NQ_CTL" device list | sed 's/^/# /'
nq_latency_verdict "$ROUNDS" 90 judge_fifo
