#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Work conservation: a 30% class alone gets at least 95% of what stock
# nvmet delivers to the same host alone, and under contention the two
# classes together get at least 95% of stock's aggregate, same boot.
# Transports: tcp rdma
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=${NQ_SECS:-15}
FIO="--rw=randread --bs=128k --iodepth=16"

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1

nq_fio_hosts stock_alone "$SECS" "$FIO" "$d1"
nq_fio_hosts stock_both "$SECS" "$FIO" "$d1" "$d2"
sa=$(nq_fio_total stock_alone 1)
sb=$(($(nq_fio_total stock_both 1) + $(nq_fio_total stock_both 2)))

nq_load_qos
nq_classes "training --share 30" "prep --share 70"

nq_fio_hosts qos_alone "$SECS" "$FIO" "$d1"
nq_fio_hosts qos_both "$SECS" "$FIO" "$d1" "$d2"
qa=$(nq_fio_total qos_alone 1)
qb=$(($(nq_fio_total qos_both 1) + $(nq_fio_total qos_both 2)))

alone=$(pct "$qa" "$sa")
both=$(pct "$qb" "$sb")
log "30% class alone: $((qa / SECS / 1000)) kB/s = ${alone}% of stock ($((sa / SECS / 1000)) kB/s)"
log "both classes: $((qb / SECS / 1000)) kB/s = ${both}% of stock ($((sb / SECS / 1000)) kB/s)"
python3 -c "import sys; sys.exit(0 if $alone >= 95 else 1)" || fail "idle peer: only ${alone}% of stock"
python3 -c "import sys; sys.exit(0 if $both >= 95 else 1)" || fail "contention: only ${both}% of stock"

nq_finish
