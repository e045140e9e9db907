#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hosts of one class share it equally unless given a weight. Two hosts in
# the one busy class read 128 KiB from a 50 MB/s device, host 1 at queue
# depth 8, host 2 at 32: the split of the cost both moved while both ran,
# as the hosts' block layers count it, is 50/50 within 3 pp with the
# default weights, then 75/25 with host 1 given weight 300 (host 2 keeps
# 100). A class served first come, first served would give each host
# what it keeps outstanding, host 1 about 20%, whatever the weights;
# stock nvmet is measured first, in the same boot, for that. On a slow
# machine a miss is a skip (nq_judge_split).
#
# Not 16 KiB against 128 KiB at one depth: under TCG the host of small
# requests kept so many of them on their way through nvme-tcp that its
# queue in the module ran dry, and it got 41.7% where 50 was due, the
# rest going to the other host as a work-conserving scheduler must.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=${NQ_SECS:-15}
FIO="--rw=randread --bs=128k --iodepth=32"

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1
# host 1 keeps a quarter of what host 2 keeps outstanding
few="$d1 --iodepth=8"

# split NAME: both hosts for SECS; NQ_SPLIT is host 1's share of the cost
# both moved while both ran (0 when that could not be measured, which
# has failed the test).
split() {
	local pid
	NQ_SPLIT=0 NQ_SPLIT_RATE=0
	nq_fio_hosts "$1" "$SECS" "$FIO" "$few" "$d2" &
	pid=$!
	nq_overlap_deltas "$1" "$SECS" "$d1" "$d2" && nq_split_costs
	wait "$pid" || fail "fio run $1 failed"
	log "$1: host 1 ${NQ_SPLIT}% of the cost both hosts moved over $NQ_WINDOW_MS ms ($NQ_SPLIT_RATE cost units/s)"
}

split stock
nq_load_qos
nq_classes "prep --share 70"
nq_ctl host assign "$(host_nqn 2)" prep

split equal
nq_judge_split 50 131072
nq_ctl host assign "$(host_nqn 1)" prep --weight 300
"$NQ_CTL" host list | sed 's/^/# /'
split weighted
nq_judge_split 75 131072
"$NQ_CTL" device list | sed 's/^/# /'

nq_finish
