#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send one raw request to the nvmet_qos generic netlink family.

Bypasses the nvmet-qos tool's own checks, so tests can see what the kernel
accepts and what it says when it refuses.

  nlraw.py [--dump | --repeat N] COMMAND [ATTR=TYPE:VALUE ...]

COMMAND and ATTR are names from uapi/nvmet_qos.h without their prefix
(DEV_SET, DEV_ID); TYPE is u8, u16, u32, u64, str (NUL-terminated), or hex
(raw bytes). Prints "ok" or "error ERRNO: MESSAGE" and exits 0 when the
kernel accepted the request, 1 when it refused it, 2 on local errors.
With --dump the request is a dump: "ok N messages in MS ms" on success.
With --repeat the request is sent N times, one after another on one
socket (a flood of changes, each an event), and stops at a refusal.
"""
import errno
import os
import re
import socket
import struct
import sys
import time

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_EXT_ACK = 11
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLMSGERR_ATTR_MSG = 1
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 16, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
HEADER = os.path.join(os.path.dirname(__file__), "..", "uapi", "nvmet_qos.h")


def uapi_enums():
    """Every enumerator of the uapi header, by name without NVMET_QOS_."""
    names, text = {}, open(HEADER).read()
    for body in re.findall(r"enum\s*{(.*?)}", text, re.S):
        for i, name in enumerate(re.findall(r"^\s*(NVMET_QOS_\w+),", body, re.M)):
            names[name[len("NVMET_QOS_"):]] = i
    return names


def attr(atype, payload):
    length = 4 + len(payload)
    return struct.pack("=HH", length, atype) + payload + b"\0" * (-length % 4)


def encode(atype, spec):
    kind, _, value = spec.partition(":")
    if kind in ("u8", "u16", "u32", "u64"):
        fmt = {"u8": "=B", "u16": "=H", "u32": "=I", "u64": "=Q"}[kind]
        return attr(atype, struct.pack(fmt, int(value, 0)))
    if kind == "str":
        return attr(atype, value.encode() + b"\0")
    if kind == "hex":
        return attr(atype, bytes.fromhex(value))
    raise ValueError("unknown type " + kind)


def parse_attrs(data):
    out, off = {}, 0
    while off + 4 <= len(data):
        length, atype = struct.unpack_from("=HH", data, off)
        if length < 4:
            break
        out[atype & 0x3FFF] = data[off + 4:off + length]
        off += (length + 3) & ~3
    return out


def request(sock, mtype, cmd, payload, version=1,
            flags=NLM_F_REQUEST | NLM_F_ACK, seq=1):
    """Send one request; (errno, extack message, reply payloads). A dump
    ends with NLMSG_DONE instead of an ack; messages of other sequence
    numbers (left over from an earlier request) are skipped."""
    body = struct.pack("=BBH", cmd, version, 0) + payload
    sock.send(struct.pack("=IHHII", 16 + len(body), mtype, flags, seq, 0) + body)
    replies = []
    while True:
        data = sock.recv(1 << 20)
        off = 0
        while off + 16 <= len(data):
            length, rtype, mflags, rseq, _ = struct.unpack_from("=IHHII", data, off)
            msg = data[off + 16:off + length]
            off += (length + 3) & ~3
            if rseq != seq:
                continue
            if rtype == NLMSG_DONE:
                err = struct.unpack_from("=i", msg)[0] if len(msg) >= 4 else 0
                return -err, "", replies
            if rtype != NLMSG_ERROR:
                replies.append(msg)
                continue
            err = struct.unpack_from("=i", msg)[0]
            text = ""
            if mflags & 0x200:  # NLM_F_ACK_TLVS
                inner = struct.unpack_from("=I", msg, 4)[0]
                skip = 4 + (16 if mflags & 0x100 else inner)  # NLM_F_CAPPED
                tlv = parse_attrs(msg[skip:])
                text = tlv.get(NLMSGERR_ATTR_MSG, b"").rstrip(b"\0").decode()
            return -err, text, replies


def family_id(sock):
    err, text, replies = request(sock, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                                 attr(CTRL_ATTR_FAMILY_NAME, b"nvmet_qos\0"))
    if err:
        sys.exit("nlraw: family nvmet_qos not found: " + os.strerror(err))
    return struct.unpack("=H", parse_attrs(replies[0][4:])[CTRL_ATTR_FAMILY_ID][:2])[0]


def main(argv):
    dump = len(argv) > 1 and argv[1] == "--dump"
    repeat = 1
    if dump:
        argv = argv[1:]
    elif len(argv) > 1 and argv[1] == "--repeat":
        if len(argv) < 3 or not argv[2].isdigit() or int(argv[2]) < 1:
            sys.exit(__doc__)
        repeat = int(argv[2])
        argv = argv[2:]
    if len(argv) < 2:
        sys.exit(__doc__)
    names = uapi_enums()
    cmd = names["CMD_" + argv[1]]
    payload = b""
    for spec in argv[2:]:
        name, _, value = spec.partition("=")
        payload += encode(names["A_" + name] if not name.isdigit() else int(name), value)
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
    family = family_id(sock)
    t0 = time.monotonic()
    for seq in range(1, repeat + 1):
        err, text, replies = request(sock, family, cmd, payload, seq=seq,
                                     flags=NLM_F_REQUEST |
                                     (NLM_F_DUMP if dump else NLM_F_ACK))
        if err:
            break
    if not err:
        if dump:
            print("ok %d messages in %d ms"
                  % (len(replies), (time.monotonic() - t0) * 1000))
        else:
            print("ok")
        return 0
    print("error %s: %s" % (errno.errorcode.get(err, err), text))
    return 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (KeyError, ValueError, struct.error) as e:
        print("nlraw: bad argument: %s" % e, file=sys.stderr)
        sys.exit(2)
