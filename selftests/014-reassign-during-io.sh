#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hosts reassigned, shares changed and classes deleted as fast as the tool
# runs (10 ms between rounds of 3-4 changes; under TCG a round takes most
# of a second) for 60 s while three hosts run verified I/O with requests
# held back: fio sees no error, every request is accounted for, the kernel
# logs nothing.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=${NQ_CHURN_SECS:-60}

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
		sleep 0.01
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
log "$(cat "$NQ_WORK/churn.count") policy change rounds (3-4 changes each) in $SECS s of I/O"
for h in 1 2 3; do
	[ "$(nq_fio_errors "$NQ_WORK/churned.$h.json")" -eq 0 ] || fail "fio of host $h saw errors"
done
nq_check_balance

nq_finish
