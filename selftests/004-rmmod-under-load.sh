#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rmmod nvmet-qos while three hosts run verified I/O: it waits for the
# requests in flight through the module and returns; I/O carries on
# through stock nvmet, loading again picks it up, and no data is lost.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

# Long enough that every host is still busy after the last reload.
RUNTIME=40

nq_load_qos
nq_target_setup 100 512

pids=()
for h in 1 2 3; do
	d=$(nq_connect "$h") || exit 1
	fio --name="load$h" --filename="$d" --ioengine=libaio --direct=1 \
		--rw=randrw --rwmixread=50 --bs=64k --iodepth=16 --size=32M \
		--offset=$(((h - 1) * 128))M --time_based --runtime=$RUNTIME \
		--verify=crc32c --verify_fatal=1 --verify_backlog=64 \
		--output-format=json > "$NQ_WORK/l$h.json" 2> "$NQ_WORK/l$h.err" &
	pids+=($!)
done

# Alternate unload and load while the I/O runs.
for round in 1 2 3; do
	sleep 3
	nq_host_json "$(host_nqn 1)" >/dev/null || fail "no counters for host 1 before round $round"
	t0=$(date +%s%N)
	rmmod nvmet_qos || { fail "rmmod under load failed (round $round)"; break; }
	ms=$((($(date +%s%N) - t0) / 1000000))
	log "round $round: rmmod under load took ${ms} ms"
	[ "$ms" -lt 10000 ] || fail "rmmod under load took ${ms} ms"
	sleep 2
	nq_load_qos
done
sleep 3
after=$(nq_host_json "$(host_nqn 1)") || fail "no counters after reloading"
[ -n "$after" ] && [ "$(nq_json_get "$after" read_ios)" -gt 0 ] ||
	fail "reloaded module counted no I/O"

for h in 1 2 3; do
	wait "${pids[$((h - 1))]}" || fail "fio of host $h exited $?: $(head -c 300 "$NQ_WORK/l$h.err")"
	[ "$(nq_fio_errors "$NQ_WORK/l$h.json" 2>/dev/null || echo 1)" -eq 0 ] ||
		fail "fio of host $h reported errors"
done
dmesg | grep -q "nvmet_qos: detached from nvmet" || fail "no detach logged"

nq_check_balance

nq_finish
