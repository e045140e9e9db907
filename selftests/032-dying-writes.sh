#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# No held write reaches the device after its queue died. Host 1 writes
# pattern A over 4 MiB, then, capped at 128 KB/s, rewrites it with
# pattern B in 32 writes of 128 KiB at once, so that nvmet-qos holds
# most of them.
# The target then cuts the host off (its port stops exporting the
# subsystem: nvmet tears its controller and queues down), as a host's
# timeout, reset or lost path would. Under multipath the host retries
# those writes elsewhere and may write that range again; a held write
# executed after that would overwrite newer data. So every write held
# when the queue died must complete with an abort, not be executed: the
# writes held at the cut (less the few let through meanwhile) complete
# with an error, and read back through host 2 on another port, the range
# holds pattern B in exactly as many blocks as host 1's writes succeeded.
# They must go at once, not at their turn: none may still be held 10 s
# after the cut, where the ceiling alone would take one a second (with
# them left held at 1 MB/s, 25 writes drained in about 3 s, and this
# passed: scripts/check-mutants, dying_held).
# Host recovery: host 1 is cut off on purpose, as a failing path would be
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

BLOCKS=32
nq_target_setup 50 512
nq_port2_setup
cleanup() {
	kill "$writer" 2>/dev/null
	nq_port2_teardown
	nq_cleanup
}
trap cleanup EXIT

d1=$(nq_connect 1) || exit 1
d2=$(NQ_PORT=4421 nq_connect 2) || exit 1

# write_pattern DEV BYTE [FIO OPTION...]: BLOCKS x 128 KiB of BYTE from offset 0
write_pattern() {
	local dev=$1 byte=$2
	shift 2
	fio --name=pattern --filename="$dev" --ioengine=libaio --direct=1 \
		--rw=write --bs=128k --iodepth=$BLOCKS --size=$((BLOCKS * 128))k \
		--buffer_pattern="$byte" "$@" --output-format=json
}

# blocks_of DEV: per 128 KiB block of the range, read past any cache:
# A, B, or ? for anything else
blocks_of() {
	dd if="$1" of="$NQ_WORK/readback" bs=128k count=$BLOCKS iflag=direct \
		status=none || return 1
	python3 -c '
import sys
data = open(sys.argv[1], "rb").read()
out = ""
for i in range(0, len(data), 131072):
    b = set(data[i:i + 131072])
    out += "A" if b == {0xaa} else "B" if b == {0xbb} else "?"
print(out)' "$NQ_WORK/readback"
}

write_pattern "$d1" 0xaa > "$NQ_WORK/a.json" 2>&1 || die "cannot write pattern A: $(tail -c 300 "$NQ_WORK/a.json")"
before=$(blocks_of "$d2")
[ "$before" = "$(printf 'A%.0s' $(seq $BLOCKS))" ] || die "pattern A not read back through host 2: $before"

nq_load_qos
nq_classes "slow --share 10 --max 128K"
write_pattern "$d1" 0xbb > "$NQ_WORK/b.json" 2>&1 &
writer=$!
nq_await_held "of host 1's pattern B writes" nq_host_queued 1
# Let one go through, then cut the host off.
sleep 0.3
stats=$("$NQ_CTL" host show "$(host_nqn 1)" --json)
done_before=$(sed -n 's/.*"write_ios":\([0-9]*\).*/\1/p' <<< "$stats")
held=$(sed -n 's/.*"queued":\([0-9]*\).*/\1/p' <<< "$stats")
rm "/sys/kernel/config/nvmet/ports/1/subsystems/$NQ_SUBNQN" || die "cannot unlink port 1"
nq_now
cut=$NQ_NOW
log "host 1 cut off with $held writes held and $done_before completed"
# by the clock: each look starts the tool, which takes a while under TCG
while left=$(nq_host_queued 1) && [ "$left" != 0 ] && nq_now && [ $((NQ_NOW - cut)) -lt 10000 ]; do
	nq_sleep_ms 100
done
nq_now
if [ "$left" = 0 ]; then
	log "none held $((NQ_NOW - cut)) ms after the cut"
else
	fail "host 1's writes still held $((NQ_NOW - cut)) ms after its queue died: $left"
fi
timeout 30 nvme disconnect -d "$(basename "$d1" n1)" > /dev/null || fail "host-side disconnect hung"
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null

after=$(blocks_of "$d2")
nb=$(tr -cd B <<< "$after" | wc -c)
stats=$("$NQ_CTL" host show "$(host_nqn 1)" --json)
ios=$(sed -n 's/.*"write_ios":\([0-9]*\).*/\1/p' <<< "$stats")
errors=$(sed -n 's/.*"errors":\([0-9]*\).*/\1/p' <<< "$stats")
log "read back through host 2: $after ($nb of $BLOCKS blocks hold B)"
log "host 1: $ios pattern-B writes completed in all, $errors of them with an error (aborted)"
[ "$held" -ge 12 ] || fail "only $held writes were held at the cut: the test did not exercise the path"
# A few may have been let through between the count and the cut (128
# KB/s lets a 128 KiB write through about every second).
[ "$errors" -ge $((held - 4)) ] ||
	fail "$errors writes aborted, but $held were held when the queue died: held writes were executed after it"
[ "$nb" -eq $((ios - errors)) ] ||
	fail "$nb blocks hold B, but $((ios - errors)) writes succeeded: an aborted write reached the device"
tr -d AB <<< "$after" | grep -q . && fail "a block holds neither pattern: $after"

nq_check_balance

nq_finish
