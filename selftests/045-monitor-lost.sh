#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A monitor too slow for the events says so and goes on; SIGINT ends it.
# A monitor is stopped (SIGSTOP) while 3,000 class changes are made, far
# more events than its socket holds; once it runs again it must print a
# "lost" event (and warn on stderr), then the change made after it was
# resumed, and exit 0 on SIGINT with its output ending in a whole line.
# A monitor started from a script has SIGINT ignored unless it catches
# the signal itself, which README says it does.
. "$(dirname "$0")/lib.sh"
nq_require python3

FLOOD=3000
NLRAW="python3 $(dirname "$0")/nlraw.py"
EV=$NQ_WORK/events.json

nq_configfs
modprobe nvmet || die "modprobe nvmet failed"
nq_load_qos
nq_ctl class add flood --share 1
"$NQ_CTL" monitor --json > "$EV" 2> "$NQ_WORK/events.err" &
mon=$!
trap 'kill -CONT $mon 2>/dev/null; kill $mon 2>/dev/null; nq_cleanup' EXIT
nq_await_monitors "$EV"

kill -STOP $mon
out=$($NLRAW --repeat $FLOOD CLASS_SET CLASS_NAME=str:flood CLASS_SHARE=u32:2)
[ "$out" = ok ] || fail "$FLOOD changes: $out"
kill -CONT $mon
# A change made before the monitor has read its backlog is dropped like
# the flood (the socket is still full): wait until the kernel says the
# monitor's netlink sockets hold nothing (found by inode in
# /proc/net/netlink: its queued bytes and the drops it counted).
inodes=$(readlink /proc/$mon/fd/* | sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p' | paste -sd,)
nl_queue() {
	awk -v l="$inodes" 'BEGIN { n = split(l, a, ","); for (k = 1; k <= n; k++) s[a[k]] = 1 }
		NR > 1 && ($10 in s) { q += $5; d += $9; f++ }
		END { print f + 0, q + 0, d + 0 }' /proc/net/netlink
}
for _ in $(seq 100); do
	read -r socks rmem drops < <(nl_queue)
	[ "$socks" -ge 1 ] && [ "$rmem" = 0 ] && grep -q '"lost"' "$EV" && break
	sleep 0.1
done
[ "$socks" -ge 1 ] || fail "the monitor has no netlink socket"
[ "$rmem" = 0 ] || fail "the monitor did not read its backlog in 10 s: $rmem bytes queued"
log "the monitor's $socks netlink socket(s) drained; the kernel counted $drops drop(s)"
[ "$drops" -ge 1 ] || fail "the kernel dropped nothing for the monitor, nothing tested"
nq_ctl class set flood --share 3
for _ in $(seq 100); do
	grep -Eq '"share":3[,}]' "$EV" && break
	sleep 0.1
done
sleep 0.2
kill -INT $mon
wait $mon
rc=$?
[ $rc -eq 0 ] || fail "the monitor exited with $rc on SIGINT"

seen=$(grep -c '"class-change"' "$EV")
lost=$(grep -c '"lost"' "$EV")
log "after $FLOOD changes made while it was stopped: $seen class-change events printed, $lost lost events; stderr: $(head -c 200 "$NQ_WORK/events.err")"
[ "$lost" -ge 1 ] || fail "no lost event after $FLOOD changes made while the monitor was stopped"
[ "$seen" -lt $((FLOOD + 1)) ] || fail "every event arrived: the flood did not overflow the monitor's socket, nothing tested"
grep -q "events were lost" "$NQ_WORK/events.err" || fail "no warning on stderr"
grep -Eq '"share":3[,}]' "$EV" || fail "the change made after the loss was not printed"
[ "$(tail -c 1 "$EV" | od -An -c | tr -d ' ')" = '\n' ] || fail "the output ends in half a line"
python3 -c '
import json, sys
for l in open(sys.argv[1]):
    json.loads(l)' "$EV" || fail "a line of the monitor's output is not JSON"

nq_finish
