#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Data written and read back through the wrapped execute path is intact:
# fio --verify=crc32c from three hosts at once, and the counters prove the
# I/O went through nvmet-qos.
# Transports: tcp rdma loop fc
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

nq_load_qos
nq_target_setup 100 512

pids=()
for h in 1 2 3; do
	d=$(nq_connect "$h") || exit 1
	# Each host verifies its own region, with a different block size.
	fio --name="verify$h" --filename="$d" --ioengine=libaio --direct=1 \
		--rw=randwrite --bs=$((h * 16))k --iodepth=8 --size=24M \
		--offset=$(((h - 1) * 128))M --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --output-format=json > "$NQ_WORK/v$h.json" 2> "$NQ_WORK/v$h.err" &
	pids+=($!)
done
for h in 1 2 3; do
	wait "${pids[$((h - 1))]}" || fail "fio verify of host $h exited $?: $(head -c 300 "$NQ_WORK/v$h.err")"
	[ "$(nq_fio_errors "$NQ_WORK/v$h.json" 2>/dev/null || echo 1)" -eq 0 ] ||
		fail "fio verify of host $h reported errors"
	j=$(nq_host_json "$(host_nqn "$h")") || { fail "no counters for host $h"; continue; }
	w=$(nq_json_get "$j" write_bytes)
	r=$(nq_json_get "$j" read_bytes)
	log "host $h: nvmet-qos counted $w bytes written, $r bytes read"
	[ "$w" -ge $((24 << 20)) ] || fail "host $h: only $w bytes written went through nvmet-qos"
	[ "$r" -ge $((24 << 20)) ] || fail "host $h: only $r bytes read went through nvmet-qos"
done

nq_finish
