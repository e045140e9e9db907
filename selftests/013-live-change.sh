#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shares change from 50/50 to 30/70 in the middle of a run. Every
# per-second sample of fio's bandwidth log (time-stamped in Unix time)
# that ends before the change splits 50/50, and every one that starts 1 s
# or more after it took effect splits 30/70, within 3 percentage points
# (the first 2 s are fio's ramp). At least 3 samples fall on each side:
# the change is made 8 s after both hosts' I/O started, not at a fixed
# time after fio was launched, as starting fio takes seconds under TCG
# (over 10 s on the debug kernel, where a fixed delay once changed the
# shares first). It starts before the tool's first command and has taken
# effect when the second returns (on the debug kernel starting each
# takes seconds).
#
# At NQ_RATE_PCT below 100 a sample, the run and the delay stretch by
# 100/NQ_RATE_PCT, so that a sample counts as many requests as a second
# at full rate: at 12 MiB/s a second holds some 48 of each host's, and
# their split is no finer than a few points.
#
# Shares are only defined where the device is the bottleneck. On a slow
# machine (nq_slow_machine) a sample that misses while the hosts moved
# under 90% of what the device serves is not a failure: the test ends as
# a skip with its figures (as nq_judge_split does for a whole window).
# On the debug kernel both hosts read 4 to 6 MiB/s of the device's 6.25
# while the split wandered from 37.6 to 52.8% after the change.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

W_MS=$((100000 / NQ_RATE_PCT))
SECS=$((24 * W_MS / 1000))
CHANGE=$((8 * W_MS / 1000))
MIN_SAMPLES=3

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1

nq_load_qos
nq_classes "a --share 50" "b --share 50"

( nq_await_moving 120 "$d1" "$d2" || { log "fio did not start on both hosts in 120 s"; exit 1; }
  sleep $CHANGE; date +%s.%N > "$NQ_WORK/change-start"
  "$NQ_CTL" class set a --share 30 && "$NQ_CTL" class set b --share 70 || exit 1
  date +%s.%N > "$NQ_WORK/change-end" ) &
changer=$!
nq_fio_hosts live "$SECS" "--rw=randread --bs=128k --iodepth=16 \
	--write_bw_log=$NQ_WORK/bw@N@ --log_avg_msec=$W_MS --log_unix_epoch=1" "$d1" "$d2"
wait $changer || fail "changing shares failed"

slow=0
nq_slow_machine && slow=$(nq_nullb_capacity 131072)
python3 - "$NQ_WORK" "$MIN_SAMPLES" "$W_MS" "$slow" "$NQ_IO_COST" <<'PY'
import sys
work, min_samples, w = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) / 1000.0
cap = int(sys.argv[4])  # cost units/s of 128 KiB reads; 0: judge every sample
io_cost = int(sys.argv[5])
c0 = float(open(f"{work}/change-start").read())
c1 = float(open(f"{work}/change-end").read())
def series(n):
    f = f"{work}/bw{n}_bw.log"
    out = {}
    for line in open(f):
        t, v = [int(x) for x in line.split(",")[:2]]
        out[round(t / 1000 / w)] = (v, t / 1000.0)  # window end, Unix time
    return out
a, b = series(1), series(2)
k0 = min(set(a) & set(b))
first = max(a[k0][1], b[k0][1])
print(f"# shares changed {c0 - first + w:.2f} s into the run, in effect {c1 - c0:.2f} s later; {w:g} s samples")
bad = cpu = 0
n = {50: 0, 30: 0}
for k in sorted(set(a) & set(b)):
    (va, ea), (vb, eb) = a[k], b[k]
    if not va + vb:
        continue
    share = 100.0 * va / (va + vb)
    if min(ea, eb) - first >= 2 and max(ea, eb) <= c0:
        want = 50
    elif min(ea, eb) - w >= c1 + 1:
        want = 30
    else:
        want = None
    ok = want is None or abs(share - want) <= 3
    if want:
        n[want] += 1
    # KiB/s of 128 KiB reads, in cost units/s (nq_host_cost)
    load = (va + vb) * 1024 * (131072 + io_cost) / 131072
    idle = not ok and load < 0.9 * cap
    mark = "" if ok else f"  <-- off, device at {100 * load / cap:.0f}%" if idle else "  <-- off"
    print(f"# t={max(ea, eb) - first + w:5.1f}s host1 {share:5.1f}% (want {want or '-'}), "
          f"both {(va + vb) // 1024} MiB/s{mark}")
    cpu += idle
    bad += not ok and not idle
for want, count in n.items():
    if count < min_samples:
        print(f"# only {count} samples to split {want}/{100 - want}, fewer than {min_samples}")
        bad += 1
sys.exit(1 if bad else 2 if cpu else 0)
PY
case $? in
0) ;;
2) skip_later "slow machine: samples off their split while the hosts moved under 90% of the device's $slow cost units/s: the CPU, not the device, was the bottleneck" ;;
*) fail "split did not follow the change" ;;
esac

nq_finish
