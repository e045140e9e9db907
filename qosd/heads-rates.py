#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# heads-rates.py FROM TO STEP [--class NAME] LOG...: what simulated heads
# delivered (their DEMANDFILE.log, simhead.c; with --class, of that class
# only, else of the one class they have), in windows of STEP seconds from
# CLOCK_MONOTONIC second FROM to TO. One line a window: its start, the
# cluster's rate and each head's, in bytes/s, and each head's ceiling at
# the window's end (0: none). A head's bytes at a moment are interpolated
# between the two records around it.
import bisect
import sys


def load(path, cls):
    t, b, m = [], [], []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 5 and cls in (None, w[1]):
                t.append(float(w[0]))
                b.append(int(w[2]))
                m.append(int(w[4]))
    return t, b, m


def at(log, x):
    t, b, _ = log
    i = bisect.bisect_left(t, x)
    if i <= 0:
        return b[0]
    if i >= len(t):
        return b[-1]
    return b[i - 1] + (b[i] - b[i - 1]) * (x - t[i - 1]) / (t[i] - t[i - 1])


def ceiling(log, x):
    t, _, m = log
    i = bisect.bisect_right(t, x)
    return m[i - 1] if i else 0


def main():
    start, end, step = (float(a) for a in sys.argv[1:4])
    args, cls = sys.argv[4:], None
    if args[:1] == ["--class"]:
        cls, args = args[1], args[2:]
    logs = [load(p, cls) for p in args]
    if any(not log[0] for log in logs):
        sys.exit("a head recorded nothing")
    end = min([end] + [log[0][-1] for log in logs])
    x = start
    while x + step <= end + 1e-9:
        r = [(at(log, x + step) - at(log, x)) / step for log in logs]
        m = [ceiling(log, x + step) for log in logs]
        print("%.3f %d %s %s" % (x, sum(r), " ".join("%d" % v for v in r),
                                 " ".join("%d" % v for v in m)))
        x += step


main()
