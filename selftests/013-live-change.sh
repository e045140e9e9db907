#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shares change from 50/50 to 30/70 in the middle of a run. Every
# per-second sample of fio's bandwidth log (time-stamped in Unix time)
# that ends before the change splits 50/50, and every one that starts 1 s
# or more after it splits 30/70, within 3 percentage points (the first 2 s
# are fio's ramp). At least 3 samples fall on each side: the change is
# made 8 s after both hosts' I/O started, not at a fixed time after fio
# was launched, as starting fio takes seconds under TCG (over 10 s on
# the debug kernel, where a fixed delay once changed the shares first).
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=24
CHANGE=8
MIN_SAMPLES=3

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1

nq_load_qos
nq_classes "a --share 50" "b --share 50"

( nq_await_moving 120 "$d1" "$d2" || { log "fio did not start on both hosts in 120 s"; exit 1; }
  sleep $CHANGE; date +%s.%N > "$NQ_WORK/changed"
  "$NQ_CTL" class set a --share 30 && "$NQ_CTL" class set b --share 70 ) &
changer=$!
nq_fio_hosts live "$SECS" "--rw=randread --bs=128k --iodepth=16 \
	--write_bw_log=$NQ_WORK/bw@N@ --log_avg_msec=1000 --log_unix_epoch=1" "$d1" "$d2"
wait $changer || fail "changing shares failed"

python3 - "$NQ_WORK" "$MIN_SAMPLES" <<'PY' || fail "split did not follow the change"
import glob, sys
work, min_samples = sys.argv[1], int(sys.argv[2])
change = float(open(f"{work}/changed").read())
def series(n):
    f = sorted(glob.glob(f"{work}/bw{n}_bw.*.log"))[0]
    out = {}
    for line in open(f):
        t, v = [int(x) for x in line.split(",")[:2]]
        out[round(t / 1000)] = (v, t / 1000.0)  # window end, Unix time
    return out
a, b = series(1), series(2)
t0 = min(set(a) & set(b))
print(f"# shares changed {change - t0 + 1:.2f} s into the run")
bad = 0
n = {50: 0, 30: 0}
for s in sorted(set(a) & set(b)):
    (va, ea), (vb, eb) = a[s], b[s]
    if not va + vb:
        continue
    share = 100.0 * va / (va + vb)
    if s - t0 >= 2 and max(ea, eb) <= change:
        want = 50
    elif min(ea, eb) - 1 >= change + 1:
        want = 30
    else:
        want = None
    ok = want is None or abs(share - want) <= 3
    if want:
        n[want] += 1
    print(f"# t={s - t0 + 1:2d}s host1 {share:5.1f}% (want {want or '-'}), "
          f"both {(va + vb) // 1024} MiB/s{'' if ok else '  <-- off'}")
    bad += not ok
for want, count in n.items():
    if count < min_samples:
        print(f"# only {count} samples to split {want}/{100 - want}, fewer than {min_samples}")
        bad += 1
sys.exit(1 if bad else 0)
PY

nq_finish
