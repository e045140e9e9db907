#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# QoS makes no host time out. Host 1 keeps 64 writes of 1 MiB outstanding
# for 60 s against its class's 1 MB/s ceiling: each write waits about
# 67 s, more than twice the host's 30 s I/O timeout. nvmet-qos holds a
# request at most hold_max_ms (25 s) at a time and then asks the host to
# send it again (Command Interrupted), the command keeping its place in
# line.
# Judged:
# - fio completes every write without error, and no host timed out,
#   recovered or reset its controller (run.sh's host-fault scan of the
#   kernel log, the host's and the target's alike);
# - the ceiling holds within 5% from 10 s to 60 s (the host's counters);
# - the device asked for retries (retried > 0) and dispatched nothing past
#   the ceiling (forced = 0), and every request is accounted for.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=60 CEIL=1000000
nq_target_setup 100 512
nq_load_qos
nq_ctl class add slow --share 50 --max 1M
nq_ctl host assign "$(host_nqn 1)" slow
deep=
trap '[ -n "$deep" ] && kill -INT "$deep" 2>/dev/null; wait; nq_cleanup' EXIT
d1=$(nq_connect 1) || exit 1
log "host 1's I/O timeout: $(cat /sys/module/nvme_core/parameters/io_timeout) s, retries $(cat /sys/module/nvme_core/parameters/max_retries); hold_max_ms $(cat /sys/module/nvmet_qos/parameters/hold_max_ms), hold_retries $(cat /sys/module/nvmet_qos/parameters/hold_retries)"

written() { nq_json_get "$(nq_host_json "$(host_nqn 1)")" write_bytes; }

# --mem=shm: Debian 6.1's nvmet-tcp hits "usercopy: Kernel memory exposure
# attempt" (a BUG) when a loopback host writes 1 MiB blocks from
# transparent huge pages, stock nvmet alone included; shared memory is not
# backed by them while shmem_enabled says never.
grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/shmem_enabled ||
	die "shared memory may be backed by transparent huge pages here"
t0=$(date +%s%N)
fio --name=deep --filename="$d1" --ioengine=libaio --direct=1 --rw=write \
	--bs=1M --iodepth=64 --size=256M --time_based --runtime=$SECS --mem=shm \
	--output-format=json > "$NQ_WORK/deep.json" 2> "$NQ_WORK/deep.err" &
deep=$!
sleep 10
b1=$(written) m1=$(nq_ms_since "$t0")
sleep $((SECS - 10))
b2=$(written) m2=$(nq_ms_since "$t0")
rate=$(((b2 - b1) * 1000 / (m2 - m1)))
log "host 1 wrote $rate B/s from $((m1 / 1000)) s to $((m2 / 1000)) s under a $CEIL B/s ceiling"
# The writes still outstanding drain at the ceiling: about 67 s more.
wait "$deep" || fail "fio exited $?: $(head -c 300 "$NQ_WORK/deep.err")"
deep=
log "fio done after $(($(nq_ms_since "$t0") / 1000)) s"
[ "$(nq_fio_errors "$NQ_WORK/deep.json")" -eq 0 ] || fail "fio reported errors"
within "$rate" "$CEIL" $((CEIL / 20)) || fail "host 1 wrote $rate B/s, not within 5% of $CEIL"
dev=$("$NQ_CTL" device list --json)
read -r retried forced < <(python3 -c 'import json, sys
d = [d for d in json.load(sys.stdin)["devices"] if d["name"] == sys.argv[1]][0]
print(d["retried"], d["forced"])' "$NQ_NULLB" <<< "$dev")
log "the device asked for $retried retries and dispatched $forced requests past the ceiling"
[ "$retried" -gt 0 ] || fail "no request was held $(cat /sys/module/nvmet_qos/parameters/hold_max_ms) ms"
[ "$forced" -eq 0 ] || fail "$forced requests ran out of retries and went past the ceiling"
nq_check_balance
nq_finish
