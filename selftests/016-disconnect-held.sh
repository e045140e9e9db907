#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A host disconnects while nvmet-qos holds its requests (its class is
# capped far below what it asks for): the controller's teardown completes
# within 10 s, the module shows nothing left held, and another host's
# verified I/O carries on without error.
#
# The bar is on the kernel's part of "nvme disconnect", its write to the
# controller's delete_controller, which strace times: on the debug kernel
# starting a command takes seconds with the guest's CPUs busy. That write
# waits for the host's outstanding reads (del_gendisk freezes the queue),
# which the target serves at the class's ceiling until the host's queues
# go: some 32 x 128 KiB at 1 MB/s, about 4 s.
# Transports: tcp rdma loop fc
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3 strace

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
timeout 60 strace -T -y -e trace=write -o "$NQ_WORK/strace" nvme disconnect -d "$ctrl" > /dev/null ||
	fail "nvme disconnect -d $ctrl failed or hung"
wall=$(nq_ms_since "$t0")
# write(3</sys/.../nvme0/delete_controller>, "1", 1) = 1 <4.567890>
ms=$(nq_strace_ms "$NQ_WORK/strace" 'write([0-9]*<[^>]*\/delete_controller>' 1)
if [ -z "$ms" ]; then
	fail "strace saw no write to delete_controller: $(head -c 300 "$NQ_WORK/strace")"
else
	log "disconnect with held requests took $ms ms in the kernel, $wall ms for the command"
	[ "$ms" -lt 10000 ] || fail "teardown took $ms ms (> 10 s)"
fi
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
