#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of the instruction profile (bench/insn-prof.c, bench/vm-insn-prof).

  insn-prof.py mark
      Ask the plugin for a dump: run "xchg %bx,%bx" (66 87 db), which the
      plugin watches for. Prints nothing.
  insn-prof.py report NAME KALLSYMS SHORT LONG READS [NAME KALLSYMS ...]...
      Instructions per read by function. Each setup NAME names the
      symbols in force during its runs (a copy of /proc/kallsyms) and the
      dumps of two fio runs, the second READS reads longer than the
      first: their difference is what READS reads cost, fio's start and
      end cancelling out. The first setup is the baseline; the others
      are set beside it, with the functions that differ most and every
      function of nvmet-qos's own, whose sum no other work of the system
      moves, and the kernel functions that code calls: how often a read,
      and what a call of each costs on average with what it calls in
      turn (its instructions and its callees' over its calls, system
      wide; nvmet-qos's own code, counted already, left out). Prints one
      JSON line, "NQ-PROF-RESULT {...}", then the same as a table.
"""

import bisect
import ctypes
import json
import mmap
import os
import sys

USER_TOP = 1 << 47          # below: user space
MODULE = "nvmet_qos"


def mark():
    code = b"\x66\x87\xdb\xc3"   # xchg %bx,%bx; ret
    buf = mmap.mmap(-1, mmap.PAGESIZE,
                    prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    buf.write(code)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    ctypes.CFUNCTYPE(None)(addr)()


class Symbols:
    """Text symbols of /proc/kallsyms, core kernel and modules."""

    def __init__(self, path):
        syms = []
        for line in open(path):
            f = line.split()
            if len(f) < 3 or f[1] not in "tTwW":
                continue
            name = f[2] + (" " + f[3] if len(f) > 3 else "")
            syms.append((int(f[0], 16), name))
        syms.sort()
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]

    def name(self, addr):
        """The function ADDR is in, and whether ADDR is its entry."""
        if addr < USER_TOP:
            return "[user]", False
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return "[unknown]", False
        return self.names[i], self.addrs[i] == addr


def load(path, syms):
    """{function: [instructions, calls]} of one dump, and
    {(caller, callee): calls}: blocks that end in a direct call, or in a
    jump to another function's entry (a tail call)."""
    out, edges = {}, {}
    for line in open(path):
        f = line.split()
        k, entry = syms.name(int(f[0], 16))
        e = out.setdefault(k, [0, 0])
        e[0] += int(f[1])
        if entry:
            e[1] += int(f[2])
        if len(f) == 5:
            to, to_entry = syms.name(int(f[3], 16))
            if to_entry and to != k:
                edges[(k, to)] = edges.get((k, to), 0) + int(f[4])
    return out, edges


def per_read(syms, short, long, reads):
    """What READS reads cost, by function, and the calls between them."""
    (a, ea), (b, eb) = load(short, syms), load(long, syms)
    z = [0, 0]
    funcs = {k: [(b.get(k, z)[i] - a.get(k, z)[i]) / reads for i in (0, 1)]
             for k in set(a) | set(b)}
    edges = {k: (eb.get(k, 0) - ea.get(k, 0)) / reads for k in set(ea) | set(eb)}
    return funcs, edges


def own(k):
    return k.endswith(" [%s]" % MODULE)


def per_call(funcs, edges):
    """cost(F): F's instructions a call with those of what it calls in
    turn, averaged over all of F's calls; nvmet-qos's own functions cost
    nothing here (they are counted as its own code), nor does a cycle."""
    out_of = {}
    for (f, g), n in edges.items():
        out_of.setdefault(f, []).append((g, n))
    memo = {}

    def cost(f, path):
        if own(f) or f in path:
            return 0.0
        if f not in memo:
            ins, calls = funcs.get(f, [0, 0])
            if calls <= 0:
                return 0.0
            sub = sum(n * cost(g, path | {f}) for g, n in out_of.get(f, ()))
            memo[f] = (ins + sub) / calls
        return memo[f]
    return lambda f: cost(f, frozenset())


def callees(funcs, edges):
    """[callee, calls a read, instructions a call] of the kernel functions
    nvmet-qos's own code calls, the costliest first."""
    calls = {}
    for (f, g), n in edges.items():
        if own(f) and not own(g) and n > 0:
            calls[g] = calls.get(g, 0) + n
    cost = per_call(funcs, edges)
    return sorted(([g, n, cost(g)] for g, n in calls.items()),
                  key=lambda x: -x[1] * x[2])


def report(setups, top=40):
    runs = [(name,) + per_read(Symbols(ks), s, l, int(n))
            for name, ks, s, l, n in setups]
    base_name, base, _ = runs[0]
    z = [0, 0]
    res = {"base": base_name, "kernel": os.uname().release,
           "transport": os.environ.get("NQ_TRTYPE", "?"), "setups": []}
    for name, r, edges in runs:
        d = {k: r.get(k, z)[0] - base.get(k, z)[0] for k in set(base) | set(r)}
        rows = sorted(((v, k) for k, v in d.items() if abs(v) >= 0.5),
                      key=lambda x: -abs(x[0]))
        mine = {k: round(v[0], 1) for k, v in r.items()
                if own(k) and round(v[0], 1)}
        called = [c for c in callees(r, edges) if round(c[1] * c[2], 1)]
        res["setups"].append({
            "name": name, "per_read": round(sum(v[0] for v in r.values()), 1),
            "kernel": round(sum(v[0] for k, v in r.items() if k != "[user]"), 1),
            "extra": round(sum(d.values()), 1),
            # nvmet-qos's own code, which no other work of the system moves
            "module": round(sum(mine.values()), 1), "module_functions": mine,
            # and the kernel functions it calls: callee, calls a read,
            # instructions a call
            "called": round(sum(n * c for _, n, c in called), 1),
            "callees": [[g, round(n, 2), round(c, 1)] for g, n, c in called],
            # function, its instructions per read in the baseline and here,
            # the difference, and its calls per read here and in the baseline
            "functions": [[k, round(base.get(k, z)[0], 1), round(r.get(k, z)[0], 1),
                           round(v, 1), round(r.get(k, z)[1], 2),
                           round(base.get(k, z)[1], 2)]
                          for v, k in rows[:top]]})
    return res


def table(res):
    base = res["setups"][0]
    print("# instructions per 4 KiB read: %s %.1f" % (base["name"], base["per_read"]))
    for s in res["setups"][1:]:
        print("# %s: %.1f (%+.1f, %+.2f%%), of which nvmet-qos's own code %.1f"
              % (s["name"], s["per_read"], s["extra"],
                 100.0 * s["extra"] / base["per_read"], s["module"]))
        for k, v in sorted(s["module_functions"].items(), key=lambda x: -x[1]):
            print("#   %9.1f  %s" % (v, k))
        print("#   and %.1f in the kernel functions it calls (%.1f in all, %.2f%%):"
              % (s["called"], s["module"] + s["called"],
                 100.0 * (s["module"] + s["called"]) / base["per_read"]))
        for g, n, c in s["callees"]:
            print("#   %9.1f  %s (%.2f calls a read, %.1f a call)" % (n * c, g, n, c))
        print("#   %9s %9s %9s %13s  %s" % ("extra", "base", "here",
                                           "calls (base)", "function"))
        for k, a, b, v, calls, base_calls in s["functions"]:
            print("#   %+9.1f %9.1f %9.1f %6.2f %6.2f  %s"
                  % (v, a, b, calls, base_calls, k))


def main():
    if sys.argv[1] == "mark":
        mark()
        return
    args = sys.argv[2:]
    if sys.argv[1] != "report" or not args or len(args) % 5:
        sys.exit(__doc__)
    res = report([args[i:i + 5] for i in range(0, len(args), 5)])
    print("NQ-PROF-RESULT " + json.dumps(res, separators=(",", ":")))
    table(res)


if __name__ == "__main__":
    main()
