#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print a digest of the running kernel's code of each function named.

  kcode.py FUNCTION...

One line each: "FUNCTION ADDRESS SIZE SHA256", the bytes read from
/proc/kcore from the function's address in /proc/kallsyms to the next
symbol's. A static key or static call patched in the function changes
its digest. Needs root (kallsyms shows 0 addresses otherwise).
"""
import bisect
import hashlib
import struct
import sys

PT_LOAD = 1


def symbols():
    addrs, names = [], {}
    with open("/proc/kallsyms") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1] not in "tTwW":
                continue
            a = int(parts[0], 16)
            addrs.append(a)
            names.setdefault(parts[2], a)
    addrs = sorted(set(addrs))
    if not addrs or addrs[-1] == 0:
        sys.exit("kcode: /proc/kallsyms shows no addresses (not root?)")
    return addrs, names


def segments(kcore):
    hdr = kcore.read(64)
    if hdr[:4] != b"\x7fELF" or hdr[4] != 2:
        sys.exit("kcode: /proc/kcore is not a 64-bit ELF file")
    phoff, = struct.unpack_from("<Q", hdr, 32)
    phentsize, phnum = struct.unpack_from("<HH", hdr, 54)
    segs = []
    for i in range(phnum):
        kcore.seek(phoff + i * phentsize)
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack(
            "<IIQQQQ", kcore.read(40))
        if p_type == PT_LOAD:
            segs.append((p_vaddr, p_filesz, p_offset))
    return segs


def read(kcore, segs, addr, size):
    for vaddr, filesz, offset in segs:
        if vaddr <= addr and addr + size <= vaddr + filesz:
            kcore.seek(offset + addr - vaddr)
            return kcore.read(size)
    sys.exit("kcode: %#x is in no segment of /proc/kcore" % addr)


def main(argv):
    addrs, names = symbols()
    with open("/proc/kcore", "rb") as kcore:
        segs = segments(kcore)
        for fn in argv[1:]:
            if fn not in names:
                sys.exit("kcode: no function %s in /proc/kallsyms" % fn)
            a = names[fn]
            i = bisect.bisect_right(addrs, a)
            if i >= len(addrs):
                sys.exit("kcode: no symbol after %s" % fn)
            size = addrs[i] - a
            code = read(kcore, segs, a, size)
            print("%s %#x %d %s" % (fn, a, size, hashlib.sha256(code).hexdigest()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
