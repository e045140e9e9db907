#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A host disconnects while nvmet-qos holds its requests (its class is
# capped far below what it asks for): the controller's teardown completes
# within 10 s, the module shows nothing left held, and another host's
# verified I/O carries on without error.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1

nq_load_qos
nq_classes "slow --share 10 --max 1M" "other --share 90"

fio --name=held --filename="$d1" --ioengine=libaio --direct=1 --rw=randread \
	--bs=128k --iodepth=32 --time_based --runtime=60 --size=128M \
	> /dev/null 2>&1 &
held_fio=$!
fio --name=other --filename="$d2" --ioengine=libaio --direct=1 --rw=randrw \
	--bs=64k --iodepth=16 --offset=256M --size=64M --time_based --runtime=15 \
	--verify=crc32c --verify_fatal=1 --verify_backlog=32 \
	--output-format=json > "$NQ_WORK/other.json" 2> "$NQ_WORK/other.err" &
other_fio=$!

sleep 4
q=$("$NQ_CTL" host show "$(host_nqn 1)" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["queued"])')
log "host 1 has $q requests held before disconnecting"
[ "$q" -gt 0 ] || fail "nothing held: the test would not exercise the release path"

ctrl=$(basename "$d1" n1)
t0=$(date +%s%N)
timeout 30 nvme disconnect -d "$ctrl" > /dev/null || fail "nvme disconnect -d $ctrl failed or hung"
ms=$((($(date +%s%N) - t0) / 1000000))
log "disconnect with held requests took $ms ms"
[ "$ms" -lt 10000 ] || fail "teardown took $ms ms (> 10 s)"
kill "$held_fio" 2>/dev/null
wait "$held_fio" 2>/dev/null

# The target side must have let go of every request of that host.
for _ in $(seq 50); do
	q=$("$NQ_CTL" host show "$(host_nqn 1)" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["queued"])')
	[ "$q" -eq 0 ] && break
	sleep 0.2
done
[ "$q" -eq 0 ] || fail "$q requests of the disconnected host still held"

wait "$other_fio" || fail "fio of host 2 exited $?: $(head -c 300 "$NQ_WORK/other.err")"
[ "$(nq_fio_errors "$NQ_WORK/other.json")" -eq 0 ] || fail "fio of host 2 reported errors"

nq_finish
