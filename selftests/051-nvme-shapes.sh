#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shares and ceilings on the backing a storage head exports: emulated NVMe
# drives (QEMU's nvme controller, the guest's PCI nvme driver with two
# hardware queues of 3 tags each), in four shapes:
# - drive: one NVMe namespace, exported as it is;
# - raid0: an md RAID0 over 4 drives with 32 KiB chunks, exported as one
#   namespace. md is a bio-based device with no tags of its own: a
#   128 KiB read takes a tag of each drive;
# - file: a file on ext4 on the drive that keeps data, exported through
#   nvmet's file backend with O_DIRECT;
# - buffered: the same file through the page cache (buffered_io).
# On each, two hosts in classes of shares 30 and 70 read 128 KiB blocks
# at QD16, and their split while both ran must be 30/70 within 3 pp; then
# the class of 70 is capped at 8 MB/s and must move 8 MB/s +- 5% beside
# the other. Each drive serves a request in a fixed time, as many at once
# as it has tags (scripts/check gives the boot its drives), so small
# requests do not queue behind large ones as they would in one FIFO; the
# data drive serves reads at 25 MB/s in one FIFO.
# Through the page cache the file is read into memory first, and the
# hosts' reads never reach the device: there the split is not measured
# (no scheduler can share out a device no one waits for; one run gave
# the class of 30 50.04%), and the ceiling, which holds whatever the
# device, is. Not partly cached: nvmet (io-cmd-file.c, the same in 6.1
# and 6.12) first tries a buffered read with IOCB_NOWAIT, and a read
# that finds only part of its range in the page cache comes back short,
# which nvmet_file_io_done() completes as an error: fio's 128 KiB random
# reads at QD16 met an I/O error within 5 s on 6.12 with nvmet-qos not
# loaded, and on 6.1 with it.
# Before the runs, the test checks what nvmet-qos took for each device's
# tags: the drive's tags over its hardware queues, counted per queue,
# and none for md, whose limit lies in the drives below it.
# Boot: nvme 4
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3 mdadm

SECS=${NQ_SECS:-12}
FIO="--rw=randread --bs=128k --iodepth=16"
CAP=8000000
MD=/dev/md/nqraid0

FS=$NQ_WORK/fs

cleanup() {
	nq_target_teardown
	! mountpoint -q "$FS" || umount "$FS"
	[ ! -e "$MD" ] || mdadm --stop "$MD" > /dev/null 2>&1
	nq_cleanup
	modprobe -r nvme 2>/dev/null
}
trap cleanup EXIT

nq_nvme_raid0 "$MD"

# expect_tags DEV: nvmet-qos's tags for DEV are its driver's: each
# hardware queue's depth over all of them, 0 for a device without them;
# and split over its queues where it has more than one.
expect_tags() {
	local b queues got want gotq wantq
	b=$(basename "$(readlink -f "$1")")
	queues=$(find "/sys/block/$b/mq" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l)
	want=0 wantq=0
	[ "$queues" -eq 0 ] || want=$((queues * $(cat "/sys/block/$b/queue/nr_requests")))
	[ "$queues" -le 1 ] || wantq=$queues
	got=$(nq_device_get "$b" tags)
	gotq=$(nq_device_get "$b" queues)
	if [ "$got" = "$want" ] && [ "$gotq" = "$wantq" ]; then
		log "$b: nvmet-qos counts $got tags over $gotq queues, as its driver has"
	else
		fail "$b: nvmet-qos counts ${got:-no} tags over ${gotq:-no} queues, its driver has $want over $wantq"
	fi
}

classes=
# shape NAME DEV [buffered]: the two runs on DEV exported as the
# namespace (buffered: a file through the page cache).
shape() {
	local name=$1 dev=$2 d1 d2 rate
	nq_target_export "$dev" "${3:-}"
	d1=$(nq_connect 1) || exit 1
	d2=$(nq_connect 2) || exit 1
	# A first read through each host before the timed runs: on the file
	# one host's fio started a second after the other's, which left less
	# than 5 s of a 12 s run overlapping.
	dd if="$d1" of=/dev/null bs=128k count=8 iflag=direct status=none
	dd if="$d2" of=/dev/null bs=128k count=8 iflag=direct status=none
	nq_load_qos
	if [ -z "$classes" ]; then
		nq_classes "training --share 30" "prep --share 70"
		classes=1
	fi

	if [ -z "${3:-}" ]; then
		nq_overlap_split "$name-split" "$SECS" "$FIO" training prep "$d1" "$d2"
		log "$name: training ${NQ_SPLIT}% of $NQ_SPLIT_RATE cost units/s while both ran"
		nq_judge_split 30 131072
	fi
	[ -f "$dev" ] || expect_tags "$dev"

	nq_ctl class set prep --max "$CAP"
	nq_overlap_rates "$name-cap" "$SECS" "$FIO" "$d1" "$d2"
	rate=${NQ_RATES[1]}
	if [ "$NQ_WINDOW_MS" -gt 0 ]; then
		log "$name: prep capped at $CAP B/s moved $rate B/s ($(pct "$rate" "$CAP")%), training ${NQ_RATES[0]} B/s"
		# A slow machine (check-debug) may not move the capped class
		# up to its ceiling at all: below it, that is the CPU's figure,
		# not the ceiling's; above it is a failure anywhere.
		if within "$(pct "$rate" "$CAP")" 100 5; then
			:
		elif nq_slow_machine && [ "$rate" -lt "$CAP" ]; then
			skip_later "slow machine, not judged: $name: the capped class moved $rate B/s, below its ceiling of $CAP B/s, beside ${NQ_RATES[0]} B/s"
		else
			fail "$name: capped class at $rate B/s, not $CAP B/s +- 5%"
		fi
	fi
	nq_ctl class set prep --max 0
	"$NQ_CTL" device list | sed 's/^/# /'
	nq_target_teardown
}

shape drive "${NQ_DRIVES[0]}"
shape raid0 "$MD"

# The file: 256 MiB written for the two hosts' regions.
nq_nvme_file "$FS" 256
data=$NQ_DATA
shape file "$FS/ns.img"
cat "$FS/ns.img" > /dev/null
read0=$(awk '{ print $3 }' "/sys/block/${data#/dev/}/stat")
shape buffered "$FS/ns.img" buffered
read1=$(awk '{ print $3 }' "/sys/block/${data#/dev/}/stat")
log "buffered: the drive read $(((read1 - read0) / 2)) KiB while the hosts read from the page cache"

nq_finish
