#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The latency class on an md RAID0 (32 KiB chunks) over 4 emulated NVMe
# drives: the striped set a head exports. md has no tags of its own; a
# 4 KiB read lies on one drive and sleeps there for a tag of its CPU's
# queue when bulk reads took them. Told the array's stripe (`device set
# --stripe auto`, from md's sysfs), nvmet-qos counts the drives' tags on
# each drive's queues, a request on every drive its range spans, and
# keeps tags of each drive's queue for the latency class. Without the
# stripe it could keep none (on these drives: contended p99 198% and
# 200% of uncontended, stock nvmet 186% and 180%, and the bulk class at
# 52% and 63% of stock's bytes).
#
# The drives are the "deep" ones (scripts/vm): 2 hardware queues of 12
# tags, 96 ms a request, a queue deep enough that the tags kept for the
# latency class are not a third of what it moves, as they are on 052's
# drive of 3 tags. The bar is the goal for a striped set: the
# latency class's contended p99 within 150% of uncontended, and the
# bulk class at least 90% of stock's bytes. (Before the depth's probe
# was spaced on such a device, 78%: README, "Slow devices".)
#
# The load is 052's: 4 KiB QD1 reads of a host in a latency class of
# share 30, beside 32 KiB reads at QD 128 of a host in a class of 70
# (each one chunk, so on one drive); stock nvmet and nvmet-qos alternate
# in one boot, three rounds, medians judged. After the first round the
# test checks that nvmet-qos took the stripe (4 members, 96 tags over 2
# queues), and that a stripe over a device without tags of its own is
# refused and changes nothing.
# Boot: nvme 4
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3 mdadm

SECS=${NQ_SECS:-10}
ROUNDS=${NQ_ROUNDS:-3}
INF="--rw=randread --bs=4k --iodepth=1"
BW="--rw=randread --bs=32k --iodepth=64 --numjobs=2"
MD=/dev/md/nqraid0

cleanup() {
	nq_target_teardown
	[ ! -e "$MD" ] || mdadm --stop "$MD" > /dev/null 2>&1
	nq_cleanup
	modprobe -r nvme 2>/dev/null
}
trap cleanup EXIT

nq_nvme_raid0 "$MD" deep
md=$(basename "$(readlink -f "$MD")")
b=${NQ_DRIVES[0]#/dev/}
queues=$(find "/sys/block/$b/mq" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$queues" -eq 2 ] || skip "$b has $queues hardware queues, not 2 (NQ_VM_NVME_QUEUES)"
tags=$(cat "/sys/block/$b/queue/nr_requests")
log "$md over ${NQ_DRIVES[*]:0:4}: $queues hardware queues of $tags tags a drive"
# nvme was loaded before with another depth: the bar is not this shape's
[ "$tags" -eq 12 ] || die "$b has $tags tags a queue, not 12 (io_queue_depth 13)"

nq_target_export "$MD"
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1

# check_stripe: what nvmet-qos took from md's sysfs, and a refusal.
check_stripe() {
	local tags nq members before after
	tags=$(nq_device_get "$md" tags)
	nq=$(nq_device_get "$md" queues)
	members=$(nq_device_get "$md" stripe_members)
	log "nvmet-qos counts $tags tags over $nq queues on $md, striped over $members"
	if [ "$tags" != 96 ] || [ "$nq" != 2 ]; then
		fail "nvmet-qos counts ${tags:-no} tags over ${nq:-no} queues on $md, not 96 over 2"
	fi
	[ "$(wc -w <<< "$members")" -eq 4 ] || fail "$md striped over '$members', not 4 drives"
	before=$("$NQ_CTL" device list --json)
	if "$NQ_CTL" device set "$b" --stripe "32Ki:$md,${NQ_DRIVES[1]#/dev/}" 2> "$NQ_WORK/refused"; then
		fail "a stripe with $md (no tags of its own) as a member was taken"
	else
		log "refused: $(cat "$NQ_WORK/refused")"
		grep -q 'no tags' "$NQ_WORK/refused" ||
			fail "the refusal does not say why: $(cat "$NQ_WORK/refused")"
	fi
	after=$("$NQ_CTL" device list --json)
	[ "$before" = "$after" ] || fail "a refused stripe changed the devices: $before / $after"
}

stripe_auto() { nq_ctl device set "$md" --stripe auto; }

nq_latency_rounds "$ROUNDS" "$SECS" "$INF" "$BW" "$d1" "$d2" stripe_auto check_stripe
"$NQ_CTL" device list | sed 's/^/# /'
nq_latency_verdict "$ROUNDS" 90
