#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory pressure does not turn scheduling off. The fault build (kmod-for
# --fault nomem_io, which scripts/check builds) fails every allocation
# the I/O path makes in atomic context, request trackers and domains
# alike, as a long spell of memory pressure would. A tracker then comes
# from the module's reserve, and the device's domain from a worker that
# may sleep for it. Two hosts in 30/70 classes must still split 30/70
# within 3 pp; the host table must count the requests that ran
# unscheduled before the domain was made (at least one: the fault fired)
# and no more than 1% of all; and every request the device admitted must
# complete. Before the reserve and the worker, every request ran
# unscheduled and the split was stock's.
# Transports: tcp
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=${NQ_SECS:-20}
FIO="--rw=randread --bs=128k --iodepth=16"
fault_ko=$NQ_ROOT/build/kmod-$(uname -r)-fault-nomem_io/kmod/nvmet-qos.ko
[ -f "$fault_ko" ] || die "$fault_ko missing: scripts/check builds it (scripts/kmod-for --fault nomem_io)"
[ "$(modinfo -F fault "$fault_ko")" = nomem_io ] || die "$fault_ko is not the nomem_io fault build"

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1

NQ_KO=$fault_ko nq_load_qos
grep -q 'fault build "nomem_io"' <(dmesg) || fail "the fault build did not say so when it loaded"
nq_classes "training --share 30" "prep --share 70"

nq_overlap_split qos "$SECS" "$FIO" training prep "$d1" "$d2"
log "30/70 with every atomic allocation of the I/O path failing: host 1 ${NQ_SPLIT}% while both ran"
nq_judge_split 30 131072

log "host table: $("$NQ_CTL" host table --json)"
reads=$(( $(nq_fio_total qos 1) / 131072 + $(nq_fio_total qos 2) / 131072 ))
unsched=$(nq_table unscheduled) ||
	{ fail "no unscheduled count in the host table"; unsched=0; }
log "$unsched of some $reads requests ran unscheduled"
[ "$unsched" -ge 1 ] || fail "no request ran unscheduled: the fault build did not fail the domain's allocation"
[ $((unsched * 100)) -le "$reads" ] || fail "$unsched of $reads requests ran unscheduled, over 1%"
"$NQ_CTL" device list | sed 's/^/# /'

nq_finish
