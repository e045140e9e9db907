#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Three classes with shares 20/30/50 running different shapes: sequential
# 1 MiB reads, 80/20 mixed 128 KiB, sequential 256 KiB writes. Measured
# by the hosts' own block layers in the cost model's units (bytes, writes
# at 200%, plus 4096 per I/O) while all three surely run, each class's
# part is within 3 percentage points of its share. fio's own counts over
# the whole run are logged beside them. On a slow machine a miss is
# reported, a skip (nq_slow_miss).
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=${NQ_SECS:-20}

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1
d3=$(nq_connect 3) || exit 1

nq_load_qos
nq_classes "seqread --share 20" "mixed --share 30" "writer --share 50"

nq_fio_hosts mix "$SECS" "" "$d1 --rw=read --bs=1M --iodepth=4" \
	"$d2 --rw=randrw --rwmixread=80 --bs=128k --iodepth=16" \
	"$d3 --rw=write --bs=256k --iodepth=8" &
fio_pid=$!
nq_overlap_deltas mix "$SECS" "$d1" "$d2" "$d3"
wait $fio_pid || fail "fio run mix failed"
[ ${#NQ_COSTS[@]} -eq 3 ] || nq_finish
# The device serves at most its budget (nq_nullb_bytes 1): requests of
# mixed sizes, split to its largest, fill each tick's budget to different
# depths.
moved=$(((NQ_BYTES[0] + NQ_BYTES[1] + NQ_BYTES[2]) * 1000 / NQ_WINDOW_MS))
log "the hosts moved $moved B/s together over $NQ_WINDOW_MS ms, of at most $(nq_nullb_bytes 1) B/s the device serves"

if ! python3 - "$NQ_WORK" "${NQ_COSTS[@]}" <<'PY'
import json, sys
want = {1: 20, 2: 30, 3: 50}
cost = {}
for h in want:
    j = json.load(open(f"{sys.argv[1]}/mix.{h}.json"))["jobs"][0]
    r, w = j["read"], j["write"]
    cost[h] = int(sys.argv[1 + h])
    print(f"# host {h}: fio read {r['io_bytes']} B, wrote {w['io_bytes']} B; "
          f"cost {cost[h]} while all ran")
tot = sum(cost.values())
bad = 0
for h, w in want.items():
    got = 100.0 * cost[h] / tot
    ok = abs(got - w) <= 3
    bad += not ok
    print(f"# class {w}%: {got:.2f}% of cost{'' if ok else '  <-- off'}")
sys.exit(1 if bad else 0)
PY
then
	nq_slow_miss "cost shares off by more than 3 pp" "$moved" "$(nq_nullb_bytes 1)" B/s ||
		fail "cost shares off by more than 3 pp"
fi

nq_finish
