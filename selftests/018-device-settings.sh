#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-device settings. A capacity hint set before the device's first
# request caps the domain and the 30/70 split is kept of it; removing the
# hint gives the device back. The cost model's write cost and I/O cost
# change what a request is charged, exactly. The device's tags are learnt
# from its first request. Requests the tool's own checks would stop, sent
# raw, are refused by the kernel with a message and change nothing; so
# are changes from an unprivileged user.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3 setpriv

SECS=${NQ_SECS:-20}
FIO="--rw=randread --bs=128k --iodepth=16"
CAP=$(nq_rate 20000000)
NLRAW="python3 $(dirname "$0")/nlraw.py"

nq_target_setup 0 512
nq_load_qos
id=$(nq_dev_id "$NQ_NULLB") || die "no device number for $NQ_NULLB"

# dev_json KEY: one field of our device in "device list --json".
dev_json() { nq_device_field "$id" "$1"; }

# Before any I/O: the domain exists, nameless until its first request.
nq_ctl device set "$NQ_NULLB" --capacity "$CAP"
[ "$(dev_json capacity)" = "$CAP" ] || fail "capacity hint not shown before I/O: $(dev_json capacity)"
[ "$(dev_json tags)" = 0 ] || fail "tags $(dev_json tags) before the device's first request"

d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1
nq_classes "training --share 30" "prep --share 70"
[ "$(dev_json name)" = "$NQ_NULLB" ] || fail "device name not learnt from I/O: $(dev_json name)"
# Its tags: null_blk's depth on each submit queue (its poll queue takes
# no nvmet I/O).
nb=/sys/kernel/config/nullb/$NQ_NULLB
tags=$(($(cat "$nb/hw_queue_depth") * $(cat "$nb/submit_queues")))
[ "$(dev_json tags)" = "$tags" ] || fail "tags $(dev_json tags), want $tags (hw_queue_depth x submit_queues)"

nq_overlap_split hint "$SECS" "$FIO" training prep "$d1" "$d2"
split=$NQ_SPLIT
# The hint is in cost units: 128 KiB reads cost their bytes plus the
# 4096-byte I/O cost, as nq_host_stats counts them. Judged while both ran:
# fio's own rates cover each host's whole run, ramp and tail included,
# where one host can run alone and get the whole cap, which raises its
# average and the sum of the two.
got=$NQ_SPLIT_RATE
log "hint $CAP/s: $got cost units/s while both ran, training ${split}%; fio: $(($(nq_fio_rate hint 1) + $(nq_fio_rate hint 2))) B/s of reads over each host's run"
within "$(pct "$got" "$CAP")" 100 5 || fail "hint: $got cost units/s is not within 5% of $CAP"
within "$split" 30 3 || fail "hint: split not within 3 pp of 30/70"

nq_ctl device set "$NQ_NULLB" --capacity 0
nq_fio_hosts free 5 "$FIO" "$d1" "$d2"
f=$(($(nq_fio_rate free 1) + $(nq_fio_rate free 2)))
log "hint removed: $f B/s"
[ "$f" -gt $((2 * CAP * 131072 / 135168)) ] || fail "hint removed, still only $f B/s"

# Cost model: with no I/O cost a write of N bytes at 400% costs 4N.
nq_ctl device set "/dev/$NQ_NULLB" --write-cost 400 --io-cost 0
cls() { "$NQ_CTL" class show training --json | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
c0=$(cls cost); r0=$(cls read_bytes); w0=$(cls write_bytes)
dd if=/dev/urandom of="$d1" bs=1M count=8 oflag=direct status=none || fail "dd failed"
c1=$(cls cost); r1=$(cls read_bytes); w1=$(cls write_bytes)
log "8 MiB written: cost +$((c1 - c0)), read +$((r1 - r0)), written +$((w1 - w0))"
[ $((w1 - w0)) -eq $((8 << 20)) ] || fail "written bytes +$((w1 - w0)), want $((8 << 20))"
[ $((c1 - c0)) -eq $(((r1 - r0) + 4 * (w1 - w0))) ] || fail "cost is not reads + 4 x writes"

# Raw requests the tool would not send: each refused with a message,
# nothing changed.
before=$("$NQ_CTL" device list --json)
refuse() {
	local want=$1 out
	shift
	out=$($NLRAW "$@")
	log "$* -> $out"
	case $out in
	"error "*": "?*) ;;
	*) fail "$*: want a refusal with a message, got: $out" ;;
	esac
	[[ $out == *"$want"* ]] || fail "$*: message does not say '$want': $out"
}
refuse "missing device id" DEV_SET DEV_CAPACITY=u64:$CAP
refuse "nothing to set" DEV_SET DEV_ID=u32:$id
refuse "below 1 MB/s" DEV_SET DEV_ID=u32:$id DEV_CAPACITY=u64:999999
refuse "" DEV_SET DEV_ID=u32:$id DEV_WRITE_COST=u32:9
refuse "" DEV_SET DEV_ID=u32:$id DEV_WRITE_COST=u32:1001
refuse "" DEV_SET DEV_ID=u32:$id DEV_IO_COST=u32:1048577
refuse "" DEV_SET DEV_ID=u32:0 DEV_IO_COST=u32:1
refuse "" DEV_SET DEV_ID=u16:1 DEV_IO_COST=u32:1
# What the engine finds out is not the admin's to set.
refuse "" DEV_SET DEV_ID=u32:$id DEV_TAGS=u32:4
refuse "" DEV_SET DEV_ID=u32:$id DEV_DEPTH=u64:4096
# Valid values next to an invalid one must not be applied either.
refuse "below 1 MB/s" DEV_SET DEV_ID=u32:$id DEV_WRITE_COST=u32:100 DEV_CAPACITY=u64:5
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups $NLRAW DEV_SET DEV_ID=u32:$id DEV_IO_COST=u32:1)
log "unprivileged -> $out"
[[ $out == "error EPERM"* ]] || fail "unprivileged change not refused with EPERM: $out"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$NQ_CTL" device set "$NQ_NULLB" --io-cost 1 2>&1)
[ $? -eq 1 ] || fail "unprivileged tool: exit status not 1: $out"
log "unprivileged tool -> $out"
after=$("$NQ_CTL" device list --json)
python3 - "$before" "$after" <<'PY' || fail "a refused request changed the device"
import json, sys
keys = ("capacity", "write_cost", "io_cost", "tags")
b, a = (json.loads(x)["devices"] for x in sys.argv[1:])
assert [[d[k] for k in keys] for d in b] == [[d[k] for k in keys] for d in a], (b, a)
PY
"$NQ_CTL" device list | sed 's/^/# /'

nq_finish
