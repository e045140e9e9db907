#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A 10% class with a 20 MB/s floor keeps the floor against a 90% class on
# a 50 MB/s device (at least 95% of it), where its share alone would give
# it about 5 MB/s; the same classes without the floor are measured first.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=${NQ_SECS:-15}
FIO="--rw=randread --bs=128k --iodepth=16"
FLOOR=20000000

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1

nq_load_qos
nq_classes "small --share 10" "big --share 90"

nq_fio_hosts nofloor "$SECS" "$FIO" "$d1" "$d2"
nq_ctl class set small --min 20M
nq_fio_hosts floor "$SECS" "$FIO" "$d1" "$d2"

without=$(($(nq_fio_total nofloor 1) / SECS))
with=$(($(nq_fio_total floor 1) / SECS))
peer=$(($(nq_fio_total floor 2) / SECS))
log "10% class: $without B/s without a floor, $with B/s with a 20 MB/s floor (peer $peer B/s)"
python3 -c "import sys; sys.exit(0 if $with >= $FLOOR * 0.95 else 1)" ||
	fail "floor not kept: $with B/s < 95% of 20 MB/s"

nq_finish
