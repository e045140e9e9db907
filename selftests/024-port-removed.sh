#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The target cuts a host off while nvmet-qos holds its requests: its port
# stops exporting the subsystem (the port's link is removed), so nvmet
# tears down every controller there. The module lets go of the held
# requests within 10 s, nvmet reports the controller gone, and a host on
# another port carries on with verified I/O, without error.
# Host recovery: the cut host tries to reconnect, by design
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

nq_target_setup 50 512
nq_port2_setup
cleanup() {
	kill "$mon" 2>/dev/null
	nq_port2_teardown
	nq_cleanup
}
trap cleanup EXIT

d1=$(nq_connect 1) || exit 1
d2=$(NQ_PORT=4421 nq_connect 2) || exit 1
nq_load_qos
nq_classes "slow --share 10 --max 1M" "other --share 90"
"$NQ_CTL" monitor --json > "$NQ_WORK/events.json" &
mon=$!

nq_held_reader "$d1"
nq_verified_io other "$d2"

nq_await_held "for host 1 when its port stops exporting the subsystem" nq_host_queued 1

# Each of the two ends of teardown is timed on its own, so a slow one
# says which side is slow: the module letting go of what it holds (polled,
# so an upper bound), and nvmet destroying the controller's admin queue
# (the time the monitor stamped on the event). Watched for up to 30 s so
# a miss of the bar shows by how much.
t0=$(date +%s%N)
rm "/sys/kernel/config/nvmet/ports/1/subsystems/$NQ_SUBNQN" || die "cannot unlink port 1"
released= gone=
while [ "$(nq_ms_since "$t0")" -lt 30000 ]; do
	[ -z "$released" ] && [ "$(nq_host_queued 1)" = 0 ] && released=$(nq_ms_since "$t0")
	if [ -z "$gone" ]; then
		ev=$(grep -m1 '"ctrl-disconnect".*host1"' "$NQ_WORK/events.json" |
			sed -n 's/^{"time":"\([^"]*\)".*/\1/p')
		[ -n "$ev" ] && gone=$((($(date -d "$ev" +%s%N) - t0) / 1000000))
	fi
	[ -n "$released" ] && [ -n "$gone" ] && break
	sleep 0.1
done
log "held requests released within ${released:-(not in 30 s)} ms; controller gone after ${gone:-(not in 30 s)} ms"
[ -n "$released" ] || fail "$(nq_host_queued 1) requests of the cut-off host still held after 30 s"
[ -n "$gone" ] || fail "nvmet did not tear the controller down within 30 s"
[ "${released:-30000}" -lt 10000 ] || fail "held requests released after ${released:-30000} ms (> 10 s)"
[ "${gone:-30000}" -lt 10000 ] || fail "controller gone after ${gone:-30000} ms (> 10 s)"

# The host keeps retrying a port that no longer exports the subsystem; let
# it go so its fio ends.
timeout 30 nvme disconnect -d "$(basename "$d1" n1)" > /dev/null || fail "host-side disconnect hung"
kill "$NQ_HELD_PID" 2>/dev/null
wait "$NQ_HELD_PID" 2>/dev/null

nq_check_verified other
log "host 2 read $(nq_fio_bytes "$NQ_WORK/other.json" read) and wrote $(nq_fio_bytes "$NQ_WORK/other.json" write) bytes, verified"

nq_check_balance

nq_finish
