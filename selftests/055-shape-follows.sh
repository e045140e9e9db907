#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nvmet-qos follows a device's shape while it runs. A host's requests
# reach their device's domain by the flow their controller's record keeps,
# without looking the device up, and the domain has its device looked at
# again once a second. Here the device comes back with other tags: the
# namespace disabled, the null_blk taken down and brought up again with a
# queue a quarter as deep, at the same device number, the namespace
# enabled again, the host's controller connected throughout (a controller
# made anew would look its device up on its first request, and show
# nothing). After a few seconds of reads, the device's tags in "device
# list" must be the new ones.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

NS=/sys/kernel/config/nvmet/subsystems/$NQ_SUBNQN/namespaces/1
NB=/sys/kernel/config/nullb/$NQ_NULLB

# reads DEV SECS NAME: 4 KiB random reads at QD4.
reads() {
	fio --name="$3" --filename="$1" --ioengine=libaio --direct=1 --rw=randread \
		--bs=4k --iodepth=4 --size=64M --time_based --runtime="$2" \
		--output-format=json > "$NQ_WORK/$3.json" 2> /dev/null || fail "fio $3 failed"
	[ "$(nq_fio_errors "$NQ_WORK/$3.json")" -eq 0 ] || fail "fio $3: I/O errors"
}

NQ_NULLB_ATTRS="hw_queue_depth=64" nq_target_setup 0 256
nq_load_qos
# after the module: the controller has a record, which keeps the flow
d1=$(nq_connect 1) || exit 1
ctrl=$(nq_host_ctrl 1) || die "no controller of host 1"
id=$(nq_dev_id "$NQ_NULLB") || die "no device number for $NQ_NULLB"
queues=$(cat "$NB/submit_queues")

reads "$d1" 2 before
tags=$(nq_device_field "$id" tags)
log "before: $tags tags (64 a queue, $queues queues)"
[ "$tags" = $((64 * queues)) ] || fail "tags $tags before the change, want $((64 * queues))"

echo 0 > "$NS/enable" || die "cannot disable the namespace"
echo 0 > "$NB/power" || die "cannot take $NQ_NULLB down"
echo 16 > "$NB/hw_queue_depth" || die "cannot set $NQ_NULLB's depth"
echo 1 > "$NB/power" || die "cannot bring $NQ_NULLB up"
for _ in $(seq 50); do [ -b "/dev/$NQ_NULLB" ] && break; sleep 0.1; done
[ "$(nq_dev_id "$NQ_NULLB")" = "$id" ] ||
	skip "$NQ_NULLB came back as another device number, a domain of its own"
echo 1 > "$NS/enable" || die "cannot enable the namespace again"
# The host sees the namespace come back (an AEN, then a rescan).
dev=
for _ in $(seq 100); do
	[ "$(nq_host_ctrl 1)" = "$ctrl" ] || die "host 1's controller changed"
	dev=/dev/${ctrl}n1
	[ -b "$dev" ] && dd if="$dev" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null && break
	dev=
	sleep 0.2
done
[ -n "$dev" ] || die "host 1 did not get the namespace back"

reads "$dev" 4 after
tags=$(nq_device_field "$id" tags)
log "after: $tags tags (16 a queue)"
[ "$tags" = $((16 * queues)) ] ||
	fail "tags $tags after the device came back with 16 a queue, want $((16 * queues))"
nq_finish
