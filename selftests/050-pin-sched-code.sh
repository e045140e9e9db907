#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pinning nvmet's tracepoints (nq_pin_tracepoints, which 004 and 037 use
# so that nvmet-qos loads and unloads under I/O without patching code an
# emulated CPU runs) patches none of the scheduler's code either. The
# first trace event enabled would have the tracer record task names
# through probes on sched_switch and sched_wakeup, whose static keys sit
# in __schedule and the wake-up path; under QEMU's TCG before 8.1 a vCPU
# may then run a stale translation of text_poke_bp()'s int3 there (6.12:
# "Oops: int3" at ttwu_do_activate+0x8d in 037). Judged: the digests of
# the scheduler's hot functions' code, read from /proc/kcore (kcode.py),
# are the same before, while and after nvmet's events are pinned on; and
# the events are on while pinned, off after.
. "$(dirname "$0")/lib.sh"
nq_require python3

# The functions with the sched_switch and sched_wakeup tracepoints, or
# those they are inlined into, as this kernel has them.
fns=()
for f in __schedule try_to_wake_up ttwu_do_activate ttwu_do_wakeup wake_up_new_task; do
	grep -q " [tT] $f\$" /proc/kallsyms && fns+=("$f")
done
[ ${#fns[@]} -ge 3 ] || die "found only ${fns[*]} of the scheduler's functions in /proc/kallsyms"
kcode() { python3 "$NQ_ROOT/selftests/kcode.py" "${fns[@]}"; }

modprobe nvmet || die "modprobe nvmet failed"
before=$(kcode 2>&1) || die "cannot read the kernel's code: $before"
echo "$before" | sed 's/^/# before: /'
nq_pin_tracepoints || die "cannot pin nvmet's tracepoints on through tracefs"
[ "$(cat "$NQ_TRACING/events/nvmet/nvmet_req_init/enable")" = 1 ] ||
	fail "nvmet_req_init's event is not on while pinned"
pinned=$(kcode 2>&1) || die "cannot read the kernel's code while pinned: $pinned"
nq_unpin_tracepoints
[ "$(cat "$NQ_TRACING/events/nvmet/nvmet_req_init/enable")" = 0 ] ||
	fail "nvmet_req_init's event is still on after unpinning"
after=$(kcode 2>&1) || die "cannot read the kernel's code after unpinning: $after"
if [ "$pinned" != "$before" ]; then
	fail "pinning changed the scheduler's code: $(diff <(echo "$before") <(echo "$pinned") | grep '^>' | tr '\n' ' ')"
elif [ "$after" != "$before" ]; then
	fail "unpinning left the scheduler's code changed: $(diff <(echo "$before") <(echo "$after") | grep '^>' | tr '\n' ' ')"
else
	log "${#fns[@]} functions unchanged while nvmet's events were pinned on and after"
fi
modprobe -r nvmet 2>/dev/null
nq_finish
