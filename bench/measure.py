#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""One measurement of the benchmark, run inside the test VM by bench/vm-bench.
Prints one JSON record on stdout.

  measure.py pipeline MODE PHASE CTL DEV_TRAINING DEV_PREP DEV_INGEST DEV_INFER
      The AI pipeline's fio profiles on four connected hosts for two phases of
      PHASE seconds, counted from when all four move I/O. With MODE qos, the shares change from 30/70 to 50/50 at
      the start of the second phase. Per-second throughput per host comes from
      the host side's /sys/block/*/stat, the inference latency CDF from fio's
      per-I/O latency log.
  measure.py alone SECS DEV
      The inference profile alone: its uncontended latency.
  measure.py randread SECS DEV
      4 KiB random reads at QD32: IOPS and p99 (the overhead test).
  measure.py held SECS CTL CEIL_IOPS DEV...
      4 KiB random reads at QD32 from every device at once: IOPS summed,
      and how many of those reads nvmet-qos held (CTL stats --json before
      and after), the share of them that went through its dispatchers;
      CTL "-" for stock nvmet, which holds none. CEIL_IOPS, the hosts'
      class's ceiling (0: none), goes into the record.
  measure.py insns SECS DEV
      4 KiB random reads at QD1 after a second's ramp: in a VM booted with
      --icount (scripts/vm), where a guest nanosecond is one instruction,
      the mean and median time from submission to completion are the
      instructions the whole system executed for one read.
  measure.py scale SECS CLASS=DEV,DEV... ...
      128 KiB random reads at QD4 from every device at once; bytes and I/Os
      per class from fio's own counts.
"""

import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILES = os.path.join(HERE, "..", "fio-profiles")
WORK = os.environ.get("NQ_WORK", "/tmp")
IO_COST = 4096          # the engine's default fixed cost per I/O
ROLES = ("training", "prep", "ingest", "inference")
START_SLACK = 30        # seconds fio may take to start I/O
# Percentiles kept of a latency distribution, for the CDF chart.
CDF_PCTS = [p / 2 for p in range(1, 200)] + [99.5, 99.9, 99.99]


def disk_stat(dev):
    """(read ios, read bytes, write ios, write bytes) of /dev/DEV so far."""
    f = open("/sys/block/%s/stat" % os.path.basename(dev)).read().split()
    return (int(f[0]), int(f[2]) * 512, int(f[4]), int(f[6]) * 512)


def cost(st):
    """Cost units of a stat delta, with the device's write cost at 100%."""
    rios, rbytes, wios, wbytes = st
    return rbytes + wbytes + IO_COST * (rios + wios)


def delta(a, b):
    return tuple(y - x for x, y in zip(a, b))


def quantiles(samples):
    samples = sorted(samples)
    if not samples:
        return []
    return [[p, samples[min(len(samples) - 1, int(p / 100.0 * len(samples)))]]
            for p in CDF_PCTS]


def lat_log(prefix):
    """Completion latencies (ns) of every I/O fio logged under PREFIX."""
    out = []
    d, base = os.path.split(prefix)
    for name in os.listdir(d):
        if name.startswith(base + "_clat.") and name.endswith(".log"):
            with open(os.path.join(d, name)) as f:
                out += [int(line.split(",")[1]) for line in f if line.strip()]
    return out


def profile(name, dev, runtime, offset_mb, extra=()):
    env = dict(os.environ, NQ_DEV=dev, NQ_RUNTIME=str(runtime), NQ_SIZE="32M",
               NQ_PART_SIZE="32M", NQ_OFFSET="%dM" % offset_mb)
    cmd = ["fio", "--output-format=json", *extra,
           os.path.join(PROFILES, name + ".fio")]
    out = open(os.path.join(WORK, "bench.%s.json" % name), "w")
    return subprocess.Popen(cmd, env=env, stdout=out,
                            stderr=subprocess.DEVNULL), out.name


def fio_json(path):
    """fio's JSON output; a fio stopped by SIGINT says so before it."""
    text = open(path).read()
    return json.loads(text[text.index("{"):])


def fio_errors(path):
    return sum(j["error"] + j.get("total_err", 0) for j in fio_json(path)["jobs"])


def lat_args(tag):
    prefix = os.path.join(WORK, "lat-" + tag)
    for name in os.listdir(WORK):
        if name.startswith("lat-" + tag + "_"):
            os.unlink(os.path.join(WORK, name))
    return prefix, ["--write_lat_log=" + prefix, "--log_avg_msec=0"]


def set_shares(ctl, training, prep):
    for cls, share in (("training", training), ("prep", prep)):
        subprocess.run([ctl, "class", "set", cls, "--share", str(share)],
                       check=True)


def wait_started(devs):
    """The moment every device has moved I/O: under emulation, four fio
    processes take seconds to start, and the window must not include that."""
    first = [disk_stat(d) for d in devs]
    limit = time.monotonic() + START_SLACK
    while time.monotonic() < limit:
        if all(disk_stat(d) != f for d, f in zip(devs, first)):
            break
        time.sleep(0.1)
    else:
        sys.exit("measure: not every host started I/O within %d s" % START_SLACK)
    return time.monotonic()


def pipeline(mode, phase, ctl, *devs):
    devs = dict(zip(ROLES, devs))
    runtime = 2 * phase
    prefix, extra = lat_args("pipeline-" + mode)
    # fio runs past the sampled window: it is stopped once that is over.
    procs = {}
    for i, (role, prof) in enumerate((("training", "training-resnet50"),
                                      ("prep", "prep-etl"),
                                      ("ingest", "kafka-ingest"),
                                      ("inference", "inference"))):
        procs[role] = profile(prof, devs[role], runtime + START_SLACK,
                              i * 256, extra if role == "inference" else ())
    t0 = wait_started([devs[r] for r in ROLES])
    prev = {r: disk_stat(devs[r]) for r in ROLES}
    series = {"t": [], **{r: [] for r in ROLES}}
    cost_s = {"t": [], **{r: [] for r in ROLES}}
    changed = False
    total = {r: (0, 0, 0, 0) for r in ROLES}
    tick = 1
    while tick <= runtime:
        if mode == "qos" and not changed and tick > phase:
            set_shares(ctl, 50, 50)
            changed = True
        time.sleep(max(0.0, t0 + tick - time.monotonic()))
        cur = {r: disk_stat(devs[r]) for r in ROLES}
        series["t"].append(tick)
        cost_s["t"].append(tick)
        for r in ROLES:
            d = delta(prev[r], cur[r])
            series[r].append((d[1] + d[3]) / 1e6)
            cost_s[r].append(cost(d))
            total[r] = tuple(a + b for a, b in zip(total[r], d))
        prev = cur
        tick += 1
    errors = 0
    for role, (p, path) in procs.items():
        p.send_signal(signal.SIGINT)
    for role, (p, path) in procs.items():
        p.wait(timeout=60)
        errors += fio_errors(path)
    lat = lat_log(prefix)
    return {
        "mode": mode, "phase": phase, "mbps": series, "cost": cost_s,
        "bytes": {r: total[r][1] + total[r][3] for r in ROLES},
        "fio_errors": errors,
        "inference_cdf": quantiles(lat),
        "inference_ios": len(lat),
    }


def alone(secs, dev):
    prefix, extra = lat_args("alone")
    p, path = profile("inference", dev, int(secs), 768, extra)
    p.wait(timeout=int(secs) + 60)
    lat = lat_log(prefix)
    return {"inference_cdf": quantiles(lat), "inference_ios": len(lat),
            "fio_errors": fio_errors(path)}


def fio_job(dev, secs, rw, bs, qd, offset_mb, name):
    out = os.path.join(WORK, "bench.%s.json" % name)
    cmd = ["fio", "--name=" + name, "--filename=" + dev, "--ioengine=libaio",
           "--direct=1", "--rw=" + rw, "--bs=" + bs, "--iodepth=%d" % qd,
           "--offset=%dM" % offset_mb, "--size=128M", "--time_based",
           "--runtime=%d" % secs, "--output-format=json"]
    return subprocess.Popen(cmd, stdout=open(out, "w"),
                            stderr=subprocess.DEVNULL), out


def randread(secs, dev):
    p, out = fio_job(dev, int(secs), "randread", "4k", 32, 0, "randread")
    p.wait(timeout=int(secs) + 60)
    r = fio_json(out)["jobs"][0]["read"]
    return {"iops": r["iops"], "p99_ns": r["clat_ns"]["percentile"]["99.000000"],
            "fio_errors": fio_errors(out)}


def held_ios(ctl):
    out = subprocess.run([ctl, "stats", "--json"], capture_output=True,
                         text=True, check=True).stdout
    hosts = json.loads(out)["hosts"]
    return (sum(h["held_ios"] for h in hosts),
            sum(h["read_ios"] + h["write_ios"] for h in hosts))


def held(secs, ctl, ceil_iops, *devs):
    stock = ctl == "-"
    held0, ios0 = (0, 0) if stock else held_ios(ctl)
    jobs = [fio_job(d, int(secs), "randread", "4k", 32, 0, "held%d" % i)
            for i, d in enumerate(devs)]
    iops, errors = 0, 0
    for p, out in jobs:
        p.wait(timeout=int(secs) + 60)
        iops += fio_json(out)["jobs"][0]["read"]["iops"]
        errors += fio_errors(out)
    rec = {"iops": iops, "ceil_iops": int(ceil_iops), "fio_errors": errors}
    if not stock:
        held1, ios1 = held_ios(ctl)
        rec["held_pct"] = 100.0 * (held1 - held0) / max(ios1 - ios0, 1)
    return rec


def insns(secs, dev):
    out = os.path.join(WORK, "bench.insns.json")
    # fio's own clock would read the TSC; the guest's clock is the one
    # that counts instructions
    subprocess.run(["fio", "--name=insns", "--filename=" + dev,
                    "--ioengine=libaio", "--direct=1", "--rw=randread",
                    "--bs=4k", "--iodepth=1", "--size=128M", "--time_based",
                    "--ramp_time=1", "--runtime=%d" % int(secs),
                    "--clocksource=clock_gettime", "--lat_percentiles=1",
                    "--output-format=json"],
                   stdout=open(out, "w"), stderr=subprocess.DEVNULL,
                   timeout=int(secs) * 20 + 120)
    r = fio_json(out)["jobs"][0]["read"]
    return {"ios": r["total_ios"], "mean": r["lat_ns"]["mean"],
            "median": r["lat_ns"]["percentile"]["50.000000"],
            "fio_errors": fio_errors(out)}


def scale(secs, *groups):
    procs = []
    n = 0
    for g in groups:
        cls, devs = g.split("=", 1)
        for dev in devs.split(","):
            p, out = fio_job(dev, int(secs), "randread", "128k", 4, n * 128,
                             "scale%d" % n)
            procs.append((cls, p, out))
            n += 1
    classes = {}
    errors = 0
    for cls, p, out in procs:
        p.wait(timeout=int(secs) + 120)
        j = fio_json(out)["jobs"][0]["read"]
        c = classes.setdefault(cls, {"hosts": 0, "bytes": 0, "ios": 0})
        c["hosts"] += 1
        c["bytes"] += j["io_bytes"]
        c["ios"] += j["total_ios"]
        errors += fio_errors(out)
    for c in classes.values():
        c["cost"] = c["bytes"] + IO_COST * c["ios"]
    return {"classes": classes, "secs": int(secs), "fio_errors": errors}


def main():
    what, args = sys.argv[1], sys.argv[2:]
    fn = {"pipeline": lambda: pipeline(args[0], int(args[1]), *args[2:]),
          "alone": lambda: alone(*args),
          "randread": lambda: randread(*args),
          "held": lambda: held(*args),
          "insns": lambda: insns(*args),
          "scale": lambda: scale(*args)}[what]
    print(json.dumps(fn()))


if __name__ == "__main__":
    main()
