#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "nvmet-qos stats" on real I/O: two hosts in 30/70 classes saturate a
# 50 MB/s device. Per-host byte counters of the stats equal fio's own byte
# counts exactly; the latency percentiles agree with fio's completion
# latency within the histogram's factor of two; requests were held and
# the QoS delay says so; a watch interval shows the 30/70 split; the
# Prometheus output is well formed and agrees with the JSON.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=${NQ_SECS:-12}
FIO="--rw=randread --bs=128k --iodepth=16"

nq_load_qos
nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1
nq_classes "training --share 30" "prep --share 70"

"$NQ_CTL" stats --json > "$NQ_WORK/before.json" || fail "stats --json failed"
nq_fio_hosts run "$SECS" "$FIO" "$d1" "$d2" &
fio_pid=$!
nq_await_moving 120 "$d1" "$d2" || fail "fio did not start on both hosts in 120 s"
sleep 1
"$NQ_CTL" stats --json --watch 3 --count 2 > "$NQ_WORK/watch.json" ||
	fail "stats --watch failed"
wait $fio_pid || fail "fio failed"
"$NQ_CTL" stats --json > "$NQ_WORK/after.json" || fail "stats --json failed"
"$NQ_CTL" stats --prometheus > "$NQ_WORK/prom.txt" || fail "stats --prometheus failed"
"$NQ_CTL" stats | sed 's/^/# /'

python3 - "$NQ_WORK" "$(host_nqn 1)" "$(host_nqn 2)" <<'PY' || fail "statistics disagree with fio"
import json, re, sys
work, nqns = sys.argv[1], sys.argv[2:]
ok = True

def check(cond, what):
    global ok
    print("# %s: %s" % ("ok" if cond else "FAIL", what))
    ok &= bool(cond)

def hosts(path):
    return {h["host"]: h for h in json.load(open(path))["hosts"]}

before, after = hosts(work + "/before.json"), hosts(work + "/after.json")
for i, nqn in enumerate(nqns, 1):
    fio = json.load(open("%s/run.%d.json" % (work, i)))["jobs"][0]["read"]
    got = after[nqn]["read_bytes"] - before.get(nqn, {}).get("read_bytes", 0)
    check(got == fio["io_bytes"], "host %d: %d bytes read in stats, fio %d" % (i, got, fio["io_bytes"]))
    a = after[nqn]
    check(a["held_ios"] > 0 and a["delay_ns"] > 0,
          "host %d: %d requests held, mean QoS delay %.1f ms" % (i, a["held_ios"], a["delay_ns"] / 1e6))
    for q, key in (("50.000000", "p50_ns"), ("99.000000", "p99_ns")):
        theirs = fio["clat_ns"]["percentile"][q]
        ratio = a[key] / theirs
        check(0.5 <= ratio <= 2.0, "host %d %s: stats %.1f ms, fio %.1f ms (x%.2f)"
              % (i, key, a[key] / 1e6, theirs / 1e6, ratio))
    check(sum(a["lat_hist"]) == a["read_ios"] + a["write_ios"],
          "host %d: histogram counts every completion" % i)

# The second screen of the watch covers 3 s in the middle of the run.
screen = json.loads(open(work + "/watch.json").read().splitlines()[-1])
check(screen["interval_s"] and abs(screen["interval_s"] - 3) < 1, "watch interval %s s" % screen["interval_s"])
cls = {c["class"]: c for c in screen["classes"]}
check(abs(cls["training"]["share_pct"] - 30) < 0.01, "training share %.2f%%" % cls["training"]["share_pct"])
check(abs(cls["training"]["got_pct"] - 30) <= 5, "training got %.2f%% of the interval" % cls["training"]["got_pct"])

# Prometheus: HELP and TYPE before each metric, labelled samples, monotonic
# buckets ending in +Inf equal to _count, which equals the I/Os in JSON.
sample = re.compile(r'^([a-z_]+)\{device="[^"]*",class="[^"]*",host="([^"]*)"(?:,le="([^"]+)")?\} ([0-9.e+-]+)$')
typed, buckets, counts = set(), {}, {}
for line in open(work + "/prom.txt"):
    line = line.rstrip("\n")
    if line.startswith("# TYPE "):
        typed.add(line.split()[2])
        continue
    if line.startswith("# HELP "):
        continue
    m = sample.match(line)
    if not m:
        check(False, "well-formed sample: %s" % line)
        continue
    name, host, le, val = m.groups()
    base = re.sub(r"_(bucket|sum|count)$", "", name)
    if base not in typed and name not in typed:
        check(False, "%s has no TYPE line" % name)
    if name.endswith("_bucket"):
        buckets.setdefault(host, []).append((le, float(val)))
    if name == "nvmet_qos_latency_seconds_count":
        counts[host] = float(val)
for nqn in nqns:
    b = buckets.get(nqn, [])
    vals = [v for _, v in b]
    check(b and b[-1][0] == "+Inf" and vals == sorted(vals) and vals[-1] == counts.get(nqn),
          "host %s: %d monotonic buckets ending at +Inf = count" % (nqn[-5:], len(b)))
    check(counts.get(nqn) == after[nqn]["read_ios"] + after[nqn]["write_ios"],
          "host %s: prometheus count equals JSON I/Os" % nqn[-5:])
sys.exit(0 if ok else 1)
PY

n=$("$NQ_CTL" stats --json --host "$(host_nqn 1)" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["hosts"]))')
[ "$n" -eq 1 ] || fail "--host: $n host rows, want 1"
c=$("$NQ_CTL" stats --json --class prep | python3 -c 'import json,sys; print(sorted({c["class"] for c in json.load(sys.stdin)["classes"]}))')
[ "$c" = "['prep']" ] || fail "--class prep shows classes $c"

nq_finish
