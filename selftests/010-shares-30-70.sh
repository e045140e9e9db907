#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two hosts in classes with shares 30 and 70, both saturating a 50 MB/s
# device with 128 KiB random reads: the split of the cost both moved
# while both ran, as the hosts' block layers count it, follows 30/70
# within 3 percentage points (on a slow machine whose CPU, not the
# device, was the bottleneck, a miss is a skip: nq_judge_split). Stock
# nvmet is measured in the same boot for contrast.
# Transports: tcp rdma loop fc
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=${NQ_SECS:-20}
FIO="--rw=randread --bs=128k --iodepth=16"

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1

nq_fio_hosts stock "$SECS" "$FIO" "$d1" "$d2"
s1=$(nq_fio_total stock 1); s2=$(nq_fio_total stock 2)
log "stock nvmet: host 1 $(pct "$s1" $((s1 + s2)))%, $((s1 / SECS / 1000)) kB/s; host 2 $((s2 / SECS / 1000)) kB/s"

nq_load_qos
nq_classes "training --share 30" "prep --share 70"

nq_overlap_split qos "$SECS" "$FIO" training prep "$d1" "$d2"
split=$NQ_SPLIT
q1=$(nq_fio_total qos 1); q2=$(nq_fio_total qos 2)
log "nvmet-qos 30/70: host 1 ${split}% while both ran, aggregate $(((q1 + q2) / SECS / 1000)) kB/s vs stock $(((s1 + s2) / SECS / 1000)) kB/s"
nq_judge_split 30 131072
"$NQ_CTL" class list | sed 's/^/# /'
"$NQ_CTL" device list | sed 's/^/# /'

nq_finish
