#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-host read/write I/O and byte counters match what fio itself reports
# moving, within 1%, for three hosts running different patterns at once,
# and the I/O counters equal, exactly, the reads and writes each host's
# own block layer completed over the same time (no request is in flight
# at either end). The byte check alone passed a module that counted one
# request too many (scripts/check-mutants, host_count).
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

nq_load_qos
nq_target_setup 100 512

declare -A dev
for h in 1 2 3; do
	dev[$h]=$(nq_connect "$h") || exit 1
done

# Counters before fio: connecting already read the partition table.
snap() {
	local j
	j=$(nq_host_json "$(host_nqn "$1")" 2>/dev/null) ||
		j='{"read_ios":0,"write_ios":0,"read_bytes":0,"write_bytes":0}'
	echo "$j"
}
declare -A before
udevadm settle 2>/dev/null
for h in 1 2 3; do before[$h]=$(snap "$h"); done
# what each host's own block layer completed (nq_host_stats)
nq_host_stats "${dev[1]}" "${dev[2]}" "${dev[3]}"
reads0=("${NQ_READS[@]}") writes0=("${NQ_WRITES[@]}")

args=(--ioengine=libaio --direct=1 --output-format=json --group_reporting=0)
fio "${args[@]}" --name=h1 --filename="${dev[1]}" --rw=read --bs=1M \
	--size=48M --iodepth=4 > "$NQ_WORK/h1.json" &
fio "${args[@]}" --name=h2 --filename="${dev[2]}" --rw=randwrite --bs=128k \
	--size=32M --iodepth=8 --offset=64M > "$NQ_WORK/h2.json" &
fio "${args[@]}" --name=h3 --filename="${dev[3]}" --rw=randrw --rwmixread=70 \
	--bs=16k --size=16M --iodepth=16 --offset=128M > "$NQ_WORK/h3.json" &
wait

nq_host_stats "${dev[1]}" "${dev[2]}" "${dev[3]}"
worst=0
for h in 1 2 3; do
	[ "$(nq_fio_errors "$NQ_WORK/h$h.json")" -eq 0 ] || fail "fio of host $h saw errors"
	after=$(snap "$h")
	for rw in read write; do
		want=$(nq_fio_bytes "$NQ_WORK/h$h.json" "$rw")
		got=$(( $(nq_json_get "$after" "${rw}_bytes") - \
			$(nq_json_get "${before[$h]}" "${rw}_bytes") ))
		err=$(python3 -c "w,g=$want,$got; print('%.4f' % (abs(g-w)*100.0/w if w else (100.0 if g else 0.0)))")
		log "host $h $rw: fio $want bytes, nvmet-qos $got bytes, error ${err}%"
		worst=$(python3 -c "print(max($worst, $err))")
		python3 -c "import sys; sys.exit(0 if $err <= 1.0 else 1)" ||
			fail "host $h $rw bytes off by ${err}% (> 1%)"
	done
	for rw in read write; do
		got=$(( $(nq_json_get "$after" "${rw}_ios") - \
			$(nq_json_get "${before[$h]}" "${rw}_ios") ))
		if [ $rw = read ]; then
			want=$((NQ_READS[h - 1] - reads0[h - 1]))
		else
			want=$((NQ_WRITES[h - 1] - writes0[h - 1]))
		fi
		log "host $h $rw: its block layer completed $want, nvmet-qos counted $got"
		[ "$got" -eq "$want" ] || fail "host $h: nvmet-qos counted $got ${rw}s, the host completed $want"
	done
done
log "largest per-host byte counter error: ${worst}%"

nq_finish
