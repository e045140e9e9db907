#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A small NVMe/TCP host, for what nvme-cli's host cannot be made to do.

The kernel's host always sends a write's data when the target asks for it
and opens one block device per namespace. Tests need a host that does
neither: one that stops mid-write (it sends the command, gets the target's
Ready to Transfer, and withholds the data), and many hosts each touching
many namespaces without a block device apiece. This speaks the protocol
(NVMe/TCP transport 1.0, fabrics connect and property set) from userspace
to the real nvmet target: no digests, no TLS, keep alive off.

Library: Host(addr, port, subnqn, hostnqn).connect(); read(),
write_stalled() and its Queue's send_data(). Command line:

  nvmetcp.py stall-write ADDR PORT SUBNQN HOSTNQN NSID SLBA BYTES BYTE
      Write BYTES of BYTE (0xbb) at block SLBA, withholding the data until
      a line arrives on standard input; print "r2t" once the target asked
      for it, "status N" when the write completed, then read the range
      back and print "readback ok" or "readback bad".
  nvmetcp.py touch ADDR PORT SUBNQN NQN-PREFIX HOSTS NSIDS
      Connect NQN-PREFIX1..HOSTS, each reading one block of each namespace
      1..NSIDS and disconnecting, a few hosts at a time (two per CPU, each
      one after another); print "done N" after each 1,024 hosts and at
      the end.
"""
import multiprocessing
import os
import socket
import struct
import sys
import uuid

ICREQ, ICRESP, CMD, RSP, H2C, C2H, R2T = 0x00, 0x01, 0x04, 0x05, 0x06, 0x07, 0x09
C2H_SUCCESS, H2C_LAST = 0x08, 0x04
SGL_INLINE = 0x01       # data block descriptor, offset into the capsule
SGL_TRANSPORT = 0x5A    # transport data block: data moves in separate PDUs
SGL_METABUF = 0x40      # PSDT: SGLs in this command
FABRICS, CONNECT, PROP_SET = 0x7F, 0x01, 0x00
IDENTIFY, READ, WRITE = 0x06, 0x02, 0x01
CC, CC_ENABLE = 0x14, 0x00460001    # IOSQES 6, IOCQES 4, EN


class Error(Exception):
    pass


class Queue:
    """One NVMe/TCP connection: an admin queue (qid 0) or an I/O queue."""

    def __init__(self, addr, port):
        self.sock = socket.create_connection((addr, port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.cid = 0
        self.maxh2c = 0
        self._icreq()

    def close(self):
        self.sock.close()

    def _recv(self, n):
        buf = b""
        while len(buf) < n:
            part = self.sock.recv(n - len(buf))
            if not part:
                raise Error("the target closed the connection")
            buf += part
        return buf

    def _pdu(self):
        """(type, flags, header after the common 8 bytes, data)"""
        ptype, flags, hlen, pdo, plen = struct.unpack("<BBBBI", self._recv(8))
        rest = self._recv(plen - 8)
        header = rest[:hlen - 8]
        data = rest[pdo - 8:] if pdo else b""
        return ptype, flags, header, data

    def _send(self, ptype, flags, header, data=b""):
        hlen = 8 + len(header)
        pdo = hlen if data else 0
        self.sock.sendall(struct.pack("<BBBBI", ptype, flags, hlen, pdo,
                                      hlen + len(data)) + header + data)

    def _icreq(self):
        # PFV 0, HPDA 0, no digests, MAXR2T 0 (one outstanding R2T)
        self._send(ICREQ, 0, struct.pack("<HBBI", 0, 0, 0, 0) + bytes(112))
        ptype, _, header, _ = self._pdu()
        if ptype != ICRESP:
            raise Error("no ICResp (PDU type %d)" % ptype)
        _, cpda, digest, self.maxh2c = struct.unpack("<HBBI", header[:8])
        if cpda or digest:
            raise Error("the target wants CPDA %d / digests %d" % (cpda, digest))

    def submit(self, sqe, data=b""):
        """Send a 64-byte command (its CID is filled in); returns the CID."""
        self.cid = (self.cid + 1) & 0xFFFF
        sqe = bytearray(sqe)
        struct.pack_into("<H", sqe, 2, self.cid)
        self._send(CMD, 0, bytes(sqe), data)
        return self.cid

    def reap(self, cid, want_r2t=False):
        """Receive until @cid completes (or asks for its data with
        @want_r2t): (status, result, data) or ("r2t", ttag, length)."""
        data = bytearray()
        while True:
            ptype, flags, header, payload = self._pdu()
            if ptype == C2H:
                ccid, _, off, length = struct.unpack("<HHII", header[:12])
                if ccid != cid:
                    raise Error("data for CID %d, expected %d" % (ccid, cid))
                data[off:off + length] = payload[:length]
                if flags & C2H_SUCCESS:
                    return 0, 0, bytes(data)
            elif ptype == R2T:
                ccid, ttag, off, length = struct.unpack("<HHII", header[:12])
                if ccid != cid or not want_r2t:
                    raise Error("unexpected R2T for CID %d" % ccid)
                return "r2t", ttag, length
            elif ptype == RSP:
                result, _, _, ccid, status = struct.unpack("<QHHHH", header[:16])
                if ccid != cid:
                    raise Error("completion of CID %d, expected %d" % (ccid, cid))
                return status >> 1, result, bytes(data)
            else:
                raise Error("unexpected PDU type %d" % ptype)

    def command(self, sqe, data=b""):
        status, result, out = self.reap(self.submit(sqe, data))
        if status:
            raise Error("command 0x%02x failed with status 0x%x"
                        % (sqe[0], status))
        return result, out

    def send_data(self, cid, ttag, data):
        """Answer an R2T with @data in H2CData PDUs."""
        step = self.maxh2c or len(data)
        for off in range(0, len(data), step):
            chunk = data[off:off + step]
            last = H2C_LAST if off + len(chunk) == len(data) else 0
            self._send(H2C, last,
                       struct.pack("<HHIII", cid, ttag, off, len(chunk), 0), chunk)


def sqe(opcode, nsid=0, sgl=(0, 0), cdw=b""):
    """A 64-byte command: SGL (type, length) in DPTR, CDW10 on from @cdw."""
    cmd = bytearray(64)
    struct.pack_into("<BB", cmd, 0, opcode, SGL_METABUF)
    struct.pack_into("<I", cmd, 4, nsid)
    struct.pack_into("<QI3xB", cmd, 24, 0, sgl[1], sgl[0])
    cmd[40:40 + len(cdw)] = cdw
    return cmd


class Host:
    """A controller of one host NQN: an admin queue and one I/O queue."""

    def __init__(self, addr, port, subnqn, hostnqn, depth=32):
        self.addr, self.port, self.depth = addr, port, depth
        self.subnqn, self.hostnqn = subnqn, hostnqn
        self.hostid = uuid.uuid4().bytes
        self.admin = self.io = None
        self.cntlid = 0xFFFF
        self.lba_shift = {}

    def _connect_queue(self, qid, sqsize):
        q = Queue(self.addr, self.port)
        data = bytearray(1024)
        data[0:16] = self.hostid
        struct.pack_into("<H", data, 16, self.cntlid)
        sub, host = self.subnqn.encode(), self.hostnqn.encode()
        data[256:256 + len(sub)] = sub
        data[512:512 + len(host)] = host
        cmd = sqe(FABRICS, sgl=(SGL_INLINE, 1024))
        cmd[4] = CONNECT
        struct.pack_into("<HHHBxI", cmd, 40, 0, qid, sqsize - 1, 0, 0)
        result, _ = q.command(cmd, bytes(data))
        return q, result & 0xFFFF

    def connect(self):
        self.admin, self.cntlid = self._connect_queue(0, 32)
        cmd = sqe(FABRICS)
        cmd[4] = PROP_SET
        struct.pack_into("<B3xIQ", cmd, 40, 0, CC, CC_ENABLE)
        self.admin.command(cmd)
        self.io, _ = self._connect_queue(1, self.depth)
        return self

    def close(self):
        for q in (self.io, self.admin):
            if q:
                q.close()

    def block_shift(self, nsid):
        """log2 of the namespace's block size, from Identify Namespace."""
        if nsid not in self.lba_shift:
            cmd = sqe(IDENTIFY, nsid, (SGL_TRANSPORT, 4096),
                      struct.pack("<I", 0))
            _, data = self.admin.command(cmd)
            flbas = data[26] & 0xF
            self.lba_shift[nsid] = data[128 + 4 * flbas + 2]
        return self.lba_shift[nsid]

    def _rw(self, opcode, nsid, slba, nbytes):
        """A read or write whose data moves in PDUs of its own."""
        nlb = (nbytes >> self.block_shift(nsid)) - 1
        return sqe(opcode, nsid, (SGL_TRANSPORT, nbytes),
                   struct.pack("<QI", slba, nlb))

    def read(self, nsid, slba, nbytes):
        return self.io.command(self._rw(READ, nsid, slba, nbytes))[1]

    def write_stalled(self, nsid, slba, nbytes):
        """Send a write whose data the target must ask for, and stop there:
        (cid, ttag, length) once its R2T came."""
        cid = self.io.submit(self._rw(WRITE, nsid, slba, nbytes))
        _, ttag, length = self.io.reap(cid, want_r2t=True)
        return cid, ttag, length


def stall_write(addr, port, subnqn, hostnqn, nsid, slba, nbytes, byte):
    host = Host(addr, int(port), subnqn, hostnqn).connect()
    nsid, slba, nbytes = int(nsid), int(slba), int(nbytes)
    data = bytes([int(byte, 0)]) * nbytes
    cid, ttag, length = host.write_stalled(nsid, slba, nbytes)
    print("r2t %d bytes" % length, flush=True)
    sys.stdin.readline()
    host.io.send_data(cid, ttag, data)
    status, _, _ = host.io.reap(cid)
    print("status %d" % status, flush=True)
    back = host.read(nsid, slba, nbytes)
    print("readback %s" % ("ok" if back == data else "bad"), flush=True)
    host.close()


TOUCH_CHUNK = 256


def touch_some(args):
    """Hosts first..last of touch(), one after another; how many."""
    addr, port, subnqn, prefix, first, last, nsids = args
    for h in range(first, last + 1):
        host = Host(addr, port, subnqn, "%s%d" % (prefix, h), depth=4)
        host.connect()
        for nsid in range(1, nsids + 1):
            host.read(nsid, 0, 1 << host.block_shift(nsid))
        host.close()
    return last - first + 1


def touch(addr, port, subnqn, prefix, hosts, nsids):
    """A connection's setup is mostly round trips between this process
    and the target's work items: one host at a time leaves the CPUs idle
    (4,096 hosts took 121 s on 2 vCPUs)."""
    hosts, nsids = int(hosts), int(nsids)
    chunks = [(addr, int(port), subnqn, prefix, h,
               min(h + TOUCH_CHUNK - 1, hosts), nsids)
              for h in range(1, hosts + 1, TOUCH_CHUNK)]
    done = 0
    if not chunks:
        return
    with multiprocessing.Pool(min(len(chunks), 2 * os.cpu_count())) as pool:
        for n in pool.imap_unordered(touch_some, chunks):
            done += n
            if done % 1024 == 0 or done == hosts:
                print("done %d" % done, flush=True)


def main(argv):
    cmds = {"stall-write": (stall_write, 8), "touch": (touch, 6)}
    if len(argv) < 2 or argv[1] not in cmds or len(argv) - 2 != cmds[argv[1]][1]:
        sys.stderr.write(__doc__)
        return 2
    try:
        cmds[argv[1]][0](*argv[2:])
    except (Error, OSError) as e:
        print("error: %s" % e, file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
