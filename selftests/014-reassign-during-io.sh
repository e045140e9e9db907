#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hosts reassigned, shares changed and classes deleted while three hosts
# run verified I/O with requests held back: fio sees no error, no request
# is lost, the kernel logs nothing.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=20

nq_target_setup 30 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1
d3=$(nq_connect 3) || exit 1

nq_load_qos
churn() {
	local i=0
	while [ -e "$NQ_WORK/churn" ]; do
		i=$((i + 1))
		"$NQ_CTL" class add c$((i % 3)) --share $((i % 9 + 1)) --max $((i % 4 + 1))0M 2>/dev/null
		"$NQ_CTL" host assign "$(host_nqn $((i % 3 + 1)))" c$((i % 3)) 2>/dev/null
		"$NQ_CTL" class set c$(((i + 1) % 3)) --share $((i % 7 + 2)) 2>/dev/null
		[ $((i % 5)) -eq 0 ] && "$NQ_CTL" class del c$(((i + 2) % 3)) 2>/dev/null
		sleep 0.05
	done
	echo "$i" > "$NQ_WORK/churn.count"
}
touch "$NQ_WORK/churn"
churn &
cpid=$!
nq_fio_hosts churned "$SECS" "--rw=randrw --bs=64k --iodepth=16 --verify=crc32c \
	--verify_fatal=1 --verify_backlog=32" "$d1" "$d2" "$d3"
rm "$NQ_WORK/churn"
wait $cpid
log "$(cat "$NQ_WORK/churn.count") policy change rounds during I/O"
for h in 1 2 3; do
	[ "$(nq_fio_errors "$NQ_WORK/churned.$h.json")" -eq 0 ] || fail "fio of host $h saw errors"
done
q=$("$NQ_CTL" device list --json | python3 -c 'import json,sys; print(sum(d["queued"] for d in json.load(sys.stdin)["devices"]))')
[ "$q" -eq 0 ] || fail "$q requests still held after the I/O ended"

nq_finish
