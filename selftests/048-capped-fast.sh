#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A class at its ceiling holds only its own requests. While host 2's class
# (--max 1M) keeps requests held on the device, host 1, in a class of its
# own that binds nowhere, reads 1,024 blocks of 4 KiB at QD8; nvmet-qos
# must hold fewer than 5% of those reads. Some may be held, rightly: when
# host 2's class has earned enough of its ceiling back, its held request
# has the turn until the dispatcher sends it, and a read that comes then
# waits behind it. Before, one class at its ceiling sent every request of
# the device through the dispatcher: all 1,024 reads were held. Nor may
# host 1 leave its CPUs' slices for the device's lock: at least 90% of
# its reads must be admitted on one (the device's "fast" count; host 2's
# are held, and never are).
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

READS=1024

# fast: requests the device admitted on a CPU's slice so far.
fast() {
	"$NQ_CTL" device list --json | python3 -c '
import json, sys
print(sum(d.get("fast", 0) for d in json.load(sys.stdin)["devices"]))'
}

# held_ios N: requests of host N that nvmet-qos has held so far.
held_ios() {
	"$NQ_CTL" stats --json | python3 -c '
import json, sys
print(sum(h["held_ios"] for h in json.load(sys.stdin)["hosts"] if h["host"] == sys.argv[1]))' \
		"$(host_nqn "$1")"
}

nq_target_setup 0 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1
nq_load_qos
nq_classes "free --share 50" "capped --max 1M"

nq_held_reader "$d2"
nq_await_held "of the capped host" nq_host_queued 2
before=$(held_ios 1)
fast0=$(fast)
fio --name=free --filename="$d1" --ioengine=libaio --direct=1 --rw=randread \
	--bs=4k --iodepth=8 --size=128M --number_ios=$READS \
	--output-format=json > "$NQ_WORK/free.json" 2> "$NQ_WORK/free.err" ||
	fail "fio on host 1 failed: $(head -c 300 "$NQ_WORK/free.err")"
held=$(($(held_ios 1) - before))
fast=$(($(fast) - fast0))
still=$(nq_host_queued 2)
reads=$((($(nq_fio_bytes "$NQ_WORK/free.json" read)) / 4096))
kill "$NQ_HELD_PID" 2>/dev/null
wait "$NQ_HELD_PID" 2>/dev/null

log "host 1: $held of $reads reads held while host 2's class was at its ceiling ($still of its requests held at the end)"
log "the device admitted $fast requests on a CPU's slice meanwhile"
[ "$reads" -eq $READS ] || fail "host 1 read $reads blocks, not $READS"
[ "$still" -gt 0 ] || fail "host 2 had nothing held by the end: its ceiling did not bind throughout"
[ "$held" -lt $((READS * 5 / 100)) ] ||
	fail "$held of host 1's $reads reads were held behind a class at its ceiling (bar: under 5%)"
[ "$fast" -ge $((READS * 90 / 100)) ] ||
	fail "only $fast of host 1's $reads reads were admitted on a CPU's slice (bar: 90%)"
nq_finish
