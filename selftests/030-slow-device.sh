#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A device far slower than its hosts ask, for a long time: a 5 MB/s
# null_blk under four hosts of verified 64 KiB random I/O at QD32 in
# classes that hold requests back, for 90 s, with the hung-task
# detector at 20 s. No verify error, no hung task, and no growth of the
# module's memory: its per-request cache ("tracked", not merged with
# others since the VM boots with slab_nomerge) grows from what it held
# before the load (the module's reserve of 1,024 trackers, taken at
# load) by no more than the requests outstanding (plus the CPUs' slabs)
# while the load runs, and holds no more objects than before once the
# load ends. Trackers the CPUs keep for their next requests (at most 32
# a CPU, the host table's spare_trackers) are in no request: each count
# is taken less the spares read right after it. Slab figures reported.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=${NQ_SLOW_SECS:-90}
W=$NQ_WORK

# trackers [READS]: the module's trackers in the slab, less those the CPUs
# keep as spares (read right after).
trackers() {
	local objs spares
	objs=$(slab tracked "${1:-1}")
	spares=$(nq_table spare_trackers) || die "no spare_trackers in the host table"
	echo $((objs - spares))
}

# slab NAME [READS]: objects allocated from slab cache NAME, empty if it
# has none; the least of READS reads (default 1). Shrinking first returns
# the CPUs' slabs to the cache (and, under KASAN, empties its quarantine
# of freed objects), so that /proc/slabinfo counts what is allocated, not
# what is cached. It is read with builtins right after: on a debug kernel
# under load, starting /bin/true took 7 s, in which the CPUs' slabs and
# the quarantine can fill again. Under load even a builtin read can come
# late (one counted 377 objects where 128 requests at most were out), so
# samples take the least of several: what refilled since a shrink varies
# from read to read, while what is allocated, a leak included, is in all.
slab() {
	local name active rest low= i
	for ((i = 0; i < ${2:-1}; i++)); do
		echo 1 2>/dev/null > "/sys/kernel/slab/$1/shrink"
		while read -r name active rest; do
			[ "$name" = "$1" ] || continue
			[ -z "$low" ] || [ "$active" -lt "$low" ] && low=$active
			break
		done < /proc/slabinfo
	done
	echo "$low"
}
unreclaimable() { awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo; }

[ -w /proc/sys/kernel/hung_task_timeout_secs ] ||
	skip "the kernel has no hung-task detector"
saved_hung=$(cat /proc/sys/kernel/hung_task_timeout_secs)
trap 'echo "$saved_hung" > /proc/sys/kernel/hung_task_timeout_secs; nq_cleanup' EXIT
echo 20 > /proc/sys/kernel/hung_task_timeout_secs

nq_target_setup 5 512
nq_load_qos
[ -n "$(slab tracked)" ] ||
	die "the module's cache is not in /proc/slabinfo (boot with slab_nomerge)"
nq_classes "capped --share 10 --max 1M" "small --share 20" "mid --share 30" "big --share 40"

devs=()
for n in 1 2 3 4; do
	devs+=("$(nq_connect "$n")") || exit 1
done
before=$(trackers) kb_before=$(unreclaimable)

pids=()
for i in 0 1 2 3; do
	fio --name="slow$i" --filename="${devs[$i]}" --ioengine=libaio --direct=1 \
		--rw=randrw --rwmixread=50 --bs=64k --iodepth=32 --size=64M \
		--offset=$((i * 128))M --time_based --runtime="$SECS" \
		--verify=crc32c --verify_fatal=1 --verify_backlog=32 \
		--output-format=json > "$W/s$i.json" 2> "$W/s$i.err" &
	pids+=($!)
done

# Sample every 10 s while fio runs: held requests and the cache, which
# holds one object per request the module tracks (4 hosts x QD32 = 128
# outstanding at most).
# The samples keep a 10 s cadence however long one takes (the tool can
# take seconds to start on a debug kernel).
samples=()
t0=$SECONDS
next=$t0
while [ $((SECONDS - t0)) -lt $((SECS - 12)) ]; do
	next=$((next + 10))
	[ "$SECONDS" -lt "$next" ] && sleep $((next - SECONDS))
	held=$(nq_held_total)
	samples+=("$(trackers 5)")
	log "t=$((SECONDS - t0))s: $held held, tracked cache ${samples[-1]} objects but spares, SUnreclaim $(unreclaimable) kB"
done
for i in 0 1 2 3; do
	wait "${pids[$i]}" || fail "fio $i exited $?: $(head -c 300 "$W/s$i.err")"
	[ "$(nq_fio_errors "$W/s$i.json" 2>/dev/null || echo 1)" -eq 0 ] ||
		fail "fio $i reported errors"
done

peak=$(printf '%s\n' "${samples[@]}" | sort -n | tail -n 1)
log "tracked cache: $before objects before, peak ${peak} under load (${#samples[@]} samples)"
[ "${#samples[@]}" -ge 5 ] || fail "only ${#samples[@]} samples under load"
# Under load the CPUs' own slabs count as in use whatever they hold, so
# the bound is what the cache held before (the reserve) plus the 128
# requests outstanding plus four slabs per CPU; a leak of even one
# request in ten would pass it several times over.
per_slab=$(cat /sys/kernel/slab/tracked/objs_per_slab 2>/dev/null || echo 64)
bound=$((before + 128 + $(nproc) * 4 * per_slab))
[ "$peak" -le "$bound" ] || fail "the module's cache held $peak objects under load (bound $bound: $before before, 128 outstanding, the CPUs' slabs)"
nq_target_teardown
sleep 2
after=$(trackers)
log "tracked cache after the hosts left: $after objects but $(nq_table spare_trackers) spares"
log "SUnreclaim: $kb_before kB before, $(unreclaimable) kB after"
[ "$after" -le "$before" ] || fail "the module's cache kept $((after - before)) objects after the load"
admitted=$("$NQ_CTL" device list --json | python3 -c 'import json,sys; print(sum(d["admitted"] for d in json.load(sys.stdin)["devices"]))')
log "$admitted requests went through the module"
[ "$admitted" -gt 1000 ] || fail "only $admitted requests: the test did not load the device"

nq_check_balance

nq_finish
