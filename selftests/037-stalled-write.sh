#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rmmod does not wait on a host. A host (selftests/nvmetcp.py, which
# speaks NVMe/TCP itself) sends a 64 KiB write and, when the target asks
# for the data, withholds it: nvmet has initialised the request, and
# nvmet-qos armed it, but nvmet-tcp will not execute it until the data
# comes, which may be never. rmmod nvmet-qos must return within 10 s all
# the same, handing such requests back to nvmet's own handler. When the
# data then comes, the write must complete with success and read back as
# written: the request was neither lost nor left pointing into a module
# that is gone. The same rmmod must not hang while nvme-cli's host runs
# verified I/O beside it, nor cost that I/O anything.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

BOUND_MS=10000
nq_target_setup 100 512
nq_load_qos
# rmmod under I/O: no code patched under the emulator (lib.sh)
nq_pin_tracepoints || die "cannot pin nvmet's tracepoints on through tracefs"
nq_ctl class set default --max 20M

fifo=$NQ_WORK/go
mkfifo "$fifo"
cleanup() {
	# Whatever happened: the host goes (its queue's teardown disarms a
	# stalled write, which is what an old module's rmmod waits for).
	kill "$host" 2>/dev/null
	[ -n "$rmmod" ] && wait "$rmmod" 2>/dev/null
	nq_cleanup
}
host='' rmmod=''
trap cleanup EXIT

d2=$(nq_connect 2) || exit 1
nq_verified_io v2 "$d2"

python3 "$NQ_ROOT/selftests/nvmetcp.py" stall-write "$(host_addr 1)" "$NQ_PORT" \
	"$NQ_SUBNQN" "$(host_nqn 1)" 1 256 65536 0xbb < "$fifo" > "$NQ_WORK/host.out" 2>&1 &
host=$!
exec 9> "$fifo"		# keeps the host's standard input open
for _ in $(seq 100); do
	grep -q '^r2t' "$NQ_WORK/host.out" && break
	sleep 0.1
done
grep -q '^r2t' "$NQ_WORK/host.out" || die "no R2T for the stalled write: $(cat "$NQ_WORK/host.out")"
log "host 1: $(head -1 "$NQ_WORK/host.out"), data withheld"
sleep 2

t0=$(date +%s%N)
rmmod nvmet_qos &
rmmod=$!
while kill -0 "$rmmod" 2>/dev/null && [ "$(nq_ms_since "$t0")" -lt $((2 * BOUND_MS)) ]; do
	sleep 0.1
done
ms=$(nq_ms_since "$t0")
if kill -0 "$rmmod" 2>/dev/null; then
	fail "rmmod still waiting after $ms ms for a write whose data the host withholds (bound $BOUND_MS ms)"
else
	wait "$rmmod" || fail "rmmod failed"
	log "rmmod returned in $ms ms with host 1's write awaiting its data"
	[ "$ms" -le "$BOUND_MS" ] || fail "rmmod took $ms ms, over $BOUND_MS ms"
	nq_loaded nvmet_qos && fail "nvmet_qos still loaded after rmmod"
fi
dmesg | grep -E 'nvmet_qos: (detached|exit done)' | tail -2 | sed 's/^/# /'

# Now the data: nvmet's own handler must take it, whatever became of us.
echo go >&9
exec 9>&-
wait "$host"
sed 's/^/# host 1: /' "$NQ_WORK/host.out"
grep -qx 'status 0' "$NQ_WORK/host.out" || fail "the stalled write did not complete with success once its data came"
grep -qx 'readback ok' "$NQ_WORK/host.out" || fail "the stalled write's data did not read back"
wait "$rmmod" 2>/dev/null

nq_check_verified v2
nq_finish
