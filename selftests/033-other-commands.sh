#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Commands that are not reads or writes are scheduled and charged too, so
# that a host cannot get around its class with them:
# - Write Zeroes (blkdiscard -z, 256 KiB at a time) counts its range
#   against the byte ceiling: 8 MiB under a 1 MB/s ceiling take at least
#   7 s (8.39 MB less the 256 KiB burst and the last command, whose debt
#   is paid after it completes: 7.86 s, less a tenth), where the device
#   alone takes well under a second (timed first, without nvmet-qos);
# - Dataset Management (blkdiscard, one 64 KiB deallocate at a time)
#   counts one I/O each against the IOPS ceiling: 40 under a 10 IOPS
#   ceiling take at least 3.5 s;
# - and both show in the class's counters: the write zeroes' bytes, and
#   at least one dispatch per discard the host's block layer counted.
. "$(dirname "$0")/lib.sh"
nq_require nvme blkdiscard python3

NQ_NULLB_ATTRS="discard=1" nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
q=/sys/block/${d1#/dev/}/queue
# Without these the host would write zeroes as plain writes, or not discard.
[ "$(cat "$q/write_zeroes_max_bytes")" -gt 0 ] || die "the host does not send Write Zeroes to nvmet"
[ "$(cat "$q/discard_max_bytes")" -gt 0 ] || die "the host does not send Dataset Management to nvmet"

# -f: no probing for signatures first, whose reads the ceilings would hold
zeroes() { blkdiscard -f -z -p 256K -o 0 -l 8M "$d1"; }
# discards completed by the host's block layer (field 12 of its stat)
host_discards() { awk '{ print $12 }' "/sys/block/${d1#/dev/}/stat"; }
discards() { blkdiscard -f -p 64K -o 16M -l $((40 * 64))K "$d1"; }

# timed CMD: run it, print milliseconds taken
timed() {
	local t0
	t0=$(date +%s%N)
	"$@" || { fail "$* failed"; echo 0; return; }
	nq_ms_since "$t0"
}

stock_z=$(timed zeroes)
stock_d=$(timed discards)
log "without nvmet-qos: 8 MiB of write zeroes in $stock_z ms, 40 deallocates in $stock_d ms"
[ "$stock_z" -lt 3500 ] || skip_later "the device alone took $stock_z ms for the write zeroes: the ceiling would not show"

nq_load_qos
nq_classes "capped --max 1M --max-iops 10"
c0=$("$NQ_CTL" class show capped --json)
qos_z=$(timed zeroes)
c1=$("$NQ_CTL" class show capped --json)
h1=$(host_discards)
qos_d=$(timed discards)
h2=$(host_discards)
c2=$("$NQ_CTL" class show capped --json)
log "under --max 1M --max-iops 10: 8 MiB of write zeroes in $qos_z ms, 40 deallocates in $qos_d ms"

field() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }
wb=$(($(field write_bytes <<< "$c1") - $(field write_bytes <<< "$c0")))
ios=$(($(field ios <<< "$c2") - $(field ios <<< "$c1")))
log "the class counted $wb bytes written by the write zeroes and $ios dispatches for the deallocates, of which the host's block layer counted $((h2 - h1))"
[ "$qos_z" -ge 7000 ] || fail "write zeroes of 8 MiB took $qos_z ms under a 1 MB/s ceiling (< 7 s): not held to it"
[ "$qos_d" -ge 3500 ] || fail "40 deallocates took $qos_d ms under a 10 IOPS ceiling (< 3.5 s): not held to it"
[ "$wb" -eq $((8 << 20)) ] || fail "the class counted $wb bytes of write zeroes, not $((8 << 20))"
[ $((h2 - h1)) -ge 40 ] || fail "the host's block layer counted $((h2 - h1)) discards, not at least 40"
[ "$ios" -ge $((h2 - h1)) ] || fail "the class counted $ios dispatches for $((h2 - h1)) discards"

nq_check_balance

nq_finish
