#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fuzz the nvmet_qos generic netlink family and check what it kept.

  nlfuzz.py COUNT SEED

Sends COUNT generated requests: every command (and unknown ones), as do
and as dump, with attributes missing, duplicated, oversized, wrongly
sized, out of range, flagged nested with garbage inside, unknown, or
random bytes in place of attributes. Every request must be answered (an
error or an ack; a dump its messages and an end). The requests the kernel
accepted are replayed on a model of the policy; at the end the kernel's
classes, hosts, devices and cluster state must be exactly the model's. Prints KTAP-style
"# " lines and a final "fuzz: ..." summary as JSON; exits 1 on a mismatch.
"""
import errno
import json
import random
import socket
import struct
import sys

from nlraw import (NETLINK_EXT_ACK, NETLINK_GENERIC, NLM_F_ACK, NLM_F_DUMP,
                   NLM_F_REQUEST, SOL_NETLINK, attr, family_id, parse_attrs,
                   request, uapi_enums)

NLA_F_NESTED = 0x8000
E = uapi_enums()
SETS = {s: max(v for n, v in E.items() if n.startswith("A_%s_" % s))
        for s in ("HOST", "CLASS", "DEV", "STATS", "CTRL", "TABLE", "CLUSTER")}
CMDS = {n[4:]: v for n, v in E.items() if n.startswith("CMD_")}
SET_OF = {c: c.split("_")[0] for c in CMDS if c != "UNSPEC"}
U64, U32, U8, STR = "u64", "u32", "u8", "str"
TYPES = {
    "HOST": {"NQN": STR, "CLASS": STR, "WEIGHT": U32},
    "CLASS": {"NAME": STR, "SHARE": U32, "MIN_BPS": U64, "MAX_BPS": U64,
              "MIN_IOPS": U64, "MAX_IOPS": U64, "BURST": U64, "LATENCY": U8},
    "DEV": {"ID": U32, "WRITE_COST": U32, "IO_COST": U32, "CAPACITY": U64,
            "STRIPE_CHUNK": U32},
    "CLUSTER": {"STATE": U32, "NOTE": STR},
}
CHANGES = ["HOST_SET", "HOST_DEL", "CLASS_NEW", "CLASS_SET", "CLASS_DEL",
           "DEV_SET", "CLUSTER_SET"]
KEYS = ("NQN", "NAME", "ID", "STATE")
NQNS = ["nqn.2026-11.io.fuzz:h%d" % i for i in range(48)]
CLASSES = ["c%d" % i for i in range(80)] + ["default"]
DEVIDS = [(8 << 20) | i for i in range(24)]


def decode(kind, raw):
    """An attribute's value as the kernel reads it."""
    if kind == STR:
        return raw.split(b"\0")[0].decode("latin-1")
    return int.from_bytes(raw, "little")


class Fuzzer:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        self.sock.settimeout(20)
        self.fam = family_id(self.sock)
        self.seq = 1
        self.stats = {"sent": 0, "accepted": 0, "refused": 0, "dumps": 0}
        self.errnos = {}
        self.changes = {}
        # The model: what the accepted requests made of the policy.
        self.classes = {"default": self.class_conf(100)}
        self.hosts = {}
        self.devs = {}
        self.cluster = {"STATE": 0, "NOTE": ""}

    @staticmethod
    def class_conf(share):
        return {"SHARE": share, "MIN_BPS": 0, "MAX_BPS": 0, "MIN_IOPS": 0,
                "MAX_IOPS": 0, "BURST": 0, "LATENCY": 0}

    # ---- generation ------------------------------------------------------

    def value(self, kind):
        r = self.rng.random()
        if kind == STR:
            return None
        bits = {U8: 8, U32: 32, U64: 64}[kind]
        if r < 0.5:
            return self.rng.choice([0, 1, 2, 10, 100, 999, 1000, 1001, 4096,
                                    1 << 20, (1 << 20) + 1, 1000000, 999999,
                                    (1 << bits) - 1])
        return self.rng.getrandbits(bits) >> self.rng.randrange(bits)

    def string(self, name):
        r = self.rng.random()
        if name in ("NQN",):
            pool = NQNS
        elif name in ("NAME", "CLASS"):
            pool = CLASSES
        else:
            pool = NQNS
        if r < 0.8:
            return self.rng.choice(pool).encode()
        if r < 0.85:
            return b""
        if r < 0.9:
            return b"x" * self.rng.choice([31, 32, 222, 223, 300])
        n = self.rng.randrange(1, 40)
        return bytes(self.rng.randrange(1, 256) for _ in range(n))

    def good_attr(self, aset, name, kind):
        atype = E["A_%s_%s" % (aset, name)]
        if kind == STR:
            s = self.string(name)
            term = b"\0" if self.rng.random() < 0.95 else b""
            return attr(atype, s + term)
        if name == "ID" and self.rng.random() < 0.8:
            v = self.rng.choice(DEVIDS)
        else:
            v = self.value(kind)
        fmt = {U8: "=B", U32: "=I", U64: "=Q"}[kind]
        return attr(atype, struct.pack(fmt, v & ((1 << (8 * struct.calcsize(fmt))) - 1)))

    def bad_attr(self, aset):
        atype = self.rng.randrange(0, SETS[aset] + 4)
        r = self.rng.random()
        if r < 0.3:
            size = self.rng.choice([0, 1, 2, 3, 5, 7, 9, 16])
            return attr(atype, bytes(self.rng.randrange(256) for _ in range(size)))
        if r < 0.5:
            inner = bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(24)))
            return attr(atype | NLA_F_NESTED, inner)
        if r < 0.6:
            return attr(atype, b"y" * 400 + b"\0")
        if r < 0.7:
            # A length field that lies about the payload.
            return struct.pack("=HH", self.rng.choice([1, 3, 200]), atype) + b"\0" * 4
        return attr(atype, struct.pack("=Q", self.rng.getrandbits(64)))

    def message(self):
        # Half of them change something, so that many are accepted.
        if self.rng.random() < 0.5:
            cmd_name = self.rng.choice(CHANGES)
        else:
            cmd_name = self.rng.choice(list(SET_OF) + ["UNKNOWN"])
        cmd = CMDS.get(cmd_name, self.rng.choice([0, 99, 255]))
        aset = SET_OF.get(cmd_name, self.rng.choice(list(TYPES)))
        flags = NLM_F_REQUEST | NLM_F_ACK
        if self.rng.random() < 0.03:
            flags |= NLM_F_DUMP
        r = self.rng.random()
        if r < 0.05:
            return cmd, flags, bytes(self.rng.randrange(256)
                                     for _ in range(self.rng.randrange(64)))
        attrs = b""
        types = TYPES.get(aset, {})
        for name, kind in types.items():
            if self.rng.random() < (0.9 if name in KEYS else 0.4):
                attrs += self.good_attr(aset, name, kind)
                if self.rng.random() < 0.05:    # duplicated
                    attrs += self.good_attr(aset, name, kind)
        if self.rng.random() < 0.25:
            attrs += self.bad_attr(aset)
        return cmd, flags, attrs

    # ---- exchange --------------------------------------------------------

    def send(self, cmd, flags, payload, version=1):
        self.seq += 1
        err, _, replies = request(self.sock, self.fam, cmd, payload, version,
                                  flags, self.seq)
        return err, replies

    # ---- the model -------------------------------------------------------

    def apply(self, cmd_name, payload):
        # As the kernel parses an accepted request: the last one wins.
        a = parse_attrs(payload)
        names = {E["A_%s_%s" % (s, n)]: n for s in TYPES for n in TYPES[s]
                 if cmd_name.startswith(s)}
        v = {}
        for atype, raw in a.items():
            n = names.get(atype)
            if n is None:
                continue
            kind = TYPES[cmd_name.split("_")[0]][n]
            v[n] = decode(kind, raw)
        # Counted as the kernel notifies: a change that changes nothing
        # (apply_* returns False) has no event.
        if getattr(self, "apply_" + cmd_name.lower())(v) is not False:
            self.changes[cmd_name] = self.changes.get(cmd_name, 0) + 1

    def apply_host_set(self, v):
        cur = self.hosts.get(v["NQN"]) or ["default", 100]
        self.hosts[v["NQN"]] = [v.get("CLASS", cur[0]), v.get("WEIGHT", cur[1])]

    def apply_host_del(self, v):
        # Unassigned: the kernel forgets it once idle, so None stands for
        # "in default at weight 100, or gone".
        self.hosts[v["NQN"]] = None

    def apply_class_new(self, v):
        conf = self.class_conf(100)
        conf.update({k: x for k, x in v.items() if k != "NAME"})
        self.classes[v["NAME"]] = conf

    def apply_class_set(self, v):
        self.classes[v["NAME"]].update({k: x for k, x in v.items() if k != "NAME"})

    def apply_class_del(self, v):
        del self.classes[v["NAME"]]
        for h in self.hosts.values():
            if h and h[0] == v["NAME"]:
                h[0] = "default"

    def apply_dev_set(self, v):
        d = self.devs.setdefault(v["ID"], {"WRITE_COST": 200, "IO_COST": 4096,
                                           "CAPACITY": 0, "STRIPE_CHUNK": 0})
        d.update({k: x for k, x in v.items() if k != "ID"})

    def apply_cluster_set(self, v):
        new = {"STATE": v["STATE"], "NOTE": v.get("NOTE", "")}
        changed = new != self.cluster
        self.cluster = new
        return changed

    # ---- run and compare -------------------------------------------------

    def run(self, count):
        for _ in range(count):
            cmd, flags, payload = self.message()
            version = 1 if self.rng.random() < 0.98 else self.rng.randrange(256)
            err, _ = self.send(cmd, flags, payload, version)
            self.stats["sent"] += 1
            if flags & NLM_F_DUMP:
                self.stats["dumps"] += 1
            if err:
                self.stats["refused"] += 1
                name = errno.errorcode.get(err, str(err))
                self.errnos[name] = self.errnos.get(name, 0) + 1
                continue
            self.stats["accepted"] += 1
            name = next((n for n, c in CMDS.items() if c == cmd), None)
            if name in CHANGES and not flags & NLM_F_DUMP:
                self.apply(name, payload)

    def dump(self, cmd, aset, flags=NLM_F_DUMP):
        err, replies = self.send(CMDS[cmd], NLM_F_REQUEST | NLM_F_ACK | flags, b"")
        if err:
            sys.exit("nlfuzz: %s failed: %s" % (cmd, errno.errorcode.get(err)))
        out = []
        for msg in replies:
            a = parse_attrs(msg[4:])
            v = {}
            for n, kind in TYPES[aset].items():
                raw = a.get(E["A_%s_%s" % (aset, n)])
                if raw is None:
                    continue
                v[n] = decode(kind, raw)
            out.append(v)
        return out

    def get(self, cmd, aset):
        """The one object a do request answers with."""
        out = self.dump(cmd, aset, 0)
        if len(out) != 1:
            sys.exit("nlfuzz: %s answered %d messages" % (cmd, len(out)))
        return out[0]

    def compare(self):
        bad = []
        got = {c.pop("NAME"): c for c in self.dump("CLASS_GET", "CLASS")}
        if got != self.classes:
            bad.append("classes: kernel %s, model %s" % (got, self.classes))
        # An assigned host is listed as assigned; an unassigned one (None)
        # in default at weight 100 until the kernel forgets it.
        got = {h["NQN"]: [h["CLASS"], h["WEIGHT"]] for h in self.dump("HOST_GET", "HOST")}
        diff = {k: (got.get(k), self.hosts.get(k)) for k in set(got) | set(self.hosts)
                if got.get(k) != self.hosts.get(k) and
                (self.hosts.get(k, 0) is not None or got[k] != ["default", 100])}
        if diff:
            bad.append("hosts differ (kernel, model): %s" % diff)
        got = {d.pop("ID"): d for d in self.dump("DEV_GET", "DEV")}
        if got != self.devs:
            bad.append("devices: kernel %s, model %s" % (got, self.devs))
        got = self.get("CLUSTER_GET", "CLUSTER")
        if got != self.cluster:
            bad.append("cluster: kernel %s, model %s" % (got, self.cluster))
        return bad


def main(argv):
    count, seed = int(argv[1]), int(argv[2])
    fz = Fuzzer(seed)
    fz.run(count)
    bad = fz.compare()
    for b in bad:
        print("# MISMATCH " + b[:2000])
    print("# classes %d, hosts %d, devices %d" % (len(fz.classes), len(fz.hosts),
                                                 len(fz.devs)))
    print("fuzz: " + json.dumps({"seed": seed, **fz.stats, "errnos": fz.errnos,
                                 "changes": fz.changes}, sort_keys=True))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
