#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A host disconnects while nvmet-qos holds its requests (its class is
# capped far below what it asks for): the controller's teardown completes
# within 10 s, the module shows nothing left held, and another host's
# verified I/O carries on without error.
# Transports: tcp rdma
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1

nq_load_qos
nq_classes "slow --share 10 --max 1M" "other --share 90"

nq_held_reader "$d1"
nq_verified_io other "$d2"

nq_await_held "for host 1 before it disconnects" nq_host_queued 1

ctrl=$(basename "$d1" n1)
t0=$(date +%s%N)
timeout 30 nvme disconnect -d "$ctrl" > /dev/null || fail "nvme disconnect -d $ctrl failed or hung"
ms=$(nq_ms_since "$t0")
log "disconnect with held requests took $ms ms"
[ "$ms" -lt 10000 ] || fail "teardown took $ms ms (> 10 s)"
kill "$NQ_HELD_PID" 2>/dev/null
wait "$NQ_HELD_PID" 2>/dev/null

# The target side must have let go of every request of that host.
for _ in $(seq 50); do
	q=$(nq_host_queued 1)
	[ "$q" -eq 0 ] && break
	sleep 0.2
done
[ "$q" -eq 0 ] || fail "$q requests of the disconnected host still held"

nq_check_verified other

nq_check_balance

nq_finish
