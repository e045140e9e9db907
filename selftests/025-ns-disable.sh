#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The namespace is disabled and re-enabled while nvmet-qos holds requests
# for it (a class capped far below demand). nvmet's disable waits for every
# request that holds the namespace, so the module must let its held ones go
# at once rather than at the capped rate: the disable completes within 2 s
# and nothing stays held. Once re-enabled, both hosts write and read back
# verified data without error.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

NS=/sys/kernel/config/nvmet/subsystems/$NQ_SUBNQN/namespaces/1
nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
nq_connect 2 > /dev/null || exit 1
nq_load_qos
nq_classes "slow --share 10 --max 1M" "other --share 90"

nq_held_reader "$d1"
nq_await_held "when the namespace is disabled" nq_held_total

t0=$(date +%s%N)
timeout 30 sh -c "echo 0 > $NS/enable" || fail "disabling the namespace failed or hung"
ms=$(nq_ms_since "$t0")
log "disable took $ms ms; $(nq_held_total) still held"
[ "$ms" -lt 2000 ] || fail "disable took $ms ms: held requests kept the namespace"
[ "$(nq_held_total)" -eq 0 ] || fail "requests still held after the disable"
kill "$NQ_HELD_PID" 2>/dev/null
wait "$NQ_HELD_PID" 2>/dev/null

echo 1 > "$NS/enable" || die "cannot re-enable the namespace"
# The hosts see the namespace come back (an AEN, then a rescan).
for h in 1 2; do
	for _ in $(seq 100); do
		ctrl=$(nq_host_ctrl "$h") && dev=/dev/${ctrl}n1 && [ -b "$dev" ] &&
			dd if="$dev" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null && break
		dev=
		sleep 0.2
	done
	[ -n "$dev" ] || die "host $h did not get the namespace back"
	eval "dev$h=$dev"
done
nq_fio_hosts after 8 "--rw=randrw --bs=64k --iodepth=8 --verify=crc32c --verify_fatal=1 --verify_backlog=16" \
	"$dev1" "$dev2"
for h in 1 2; do
	[ "$(nq_fio_errors "$NQ_WORK/after.$h.json")" -eq 0 ] || fail "host $h: fio errors after re-enable"
done
[ "$(nq_held_total)" -eq 0 ] || fail "requests held after the last I/O"

nq_check_balance

nq_finish
