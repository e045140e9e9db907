#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 100,000 host NQNs against the default bound (65,536): an admin script
# assigns them all over netlink.
# - the first 65,536 are taken, every later one is refused with ENOSPC and
#   a message naming max_hosts, and nothing else changes;
# - a host that connects while the table is full is still scheduled (as
#   "(overflow)", in default, held to its 2 MB/s ceiling: 6 MiB of writes
#   take at least 2 s);
# - unassigned again, all 65,536 are reclaimed within 30 s (at once while
#   the table is 3/4 full, the rest after host_idle_secs=5), and the
#   kernel's per-CPU and slab memory fall back to within 4 MiB of what
#   they were before the flood;
# - a host connecting after that gets an entry of its own.
. "$(dirname "$0")/lib.sh"
nq_require nvme dd python3

N=100000
W=$NQ_WORK
nq_target_setup 100 512
nq_load_qos host_idle_secs=5
nq_ctl class add bulk --share 50
nq_ctl class set default --max 2M

# kernel memory that hosts take: slab and per-CPU, in KiB
kmem() { awk '/^(Slab|Percpu):/ { s += $2 } END { print s }' /proc/meminfo; }

# flood VERB: HOST_SET (to bulk) or HOST_DEL every NQN on one socket,
# 256 requests to a datagram (netlink takes them one after another and
# acks each); prints how many were accepted, then each refusal reason
# with its count.
flood() {
	python3 - "$1" "$N" "$NQ_ROOT/selftests" <<'PY'
import collections, socket, struct, sys
sys.path.insert(0, sys.argv[3])
import nlraw as nl
verb, n = sys.argv[1], int(sys.argv[2])
names = nl.uapi_enums()
sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, nl.NETLINK_GENERIC)
sock.setsockopt(nl.SOL_NETLINK, nl.NETLINK_EXT_ACK, 1)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
fam = nl.family_id(sock)
cmd = names["CMD_" + verb]
cls = nl.encode(names["A_HOST_CLASS"], "str:bulk") if verb == "HOST_SET" else b""
ok, refused = 0, collections.Counter()

def message(i):
    body = struct.pack("=BBH", cmd, 1, 0) + cls + nl.encode(
        names["A_HOST_NQN"], "str:nqn.2026-11.io.nvmet-qos:flood%d" % i)
    return struct.pack("=IHHII", 16 + len(body), fam,
                       nl.NLM_F_REQUEST | nl.NLM_F_ACK, i + 2, 0) + body

for first in range(0, n, 256):
    last = min(first + 256, n)
    sock.send(b"".join(message(i) for i in range(first, last)))
    acked = 0
    while acked < last - first:
        data, off = sock.recv(1 << 20), 0
        while off + 16 <= len(data):
            length, rtype, flags, _, _ = struct.unpack_from("=IHHII", data, off)
            msg = data[off + 16:off + length]
            off += (length + 3) & ~3
            if rtype != nl.NLMSG_ERROR:
                continue
            acked += 1
            err = -struct.unpack_from("=i", msg)[0]
            if not err:
                ok += 1
                continue
            text = ""
            if flags & 0x200:  # NLM_F_ACK_TLVS
                skip = 4 + (16 if flags & 0x100 else struct.unpack_from("=I", msg, 4)[0])
                text = nl.parse_attrs(msg[skip:]).get(nl.NLMSGERR_ATTR_MSG, b"").rstrip(b"\0").decode()
            refused["%d %s" % (err, text)] += 1
print(ok)
for why, c in refused.items():
    print("%d x %s" % (c, why))
PY
}

m0=$(kmem)
t0=$(date +%s%N)
flood HOST_SET > "$W/set"
log "$N assigns in $(nq_ms_since "$t0") ms: $(head -n 1 "$W/set") taken; refused: $(tail -n +2 "$W/set" | tr '\n' ';')"
m1=$(kmem)
log "slab + per-CPU: $m0 KiB before, $m1 KiB with the table full"
[ "$(head -n 1 "$W/set")" -eq 65536 ] || fail "$(head -n 1 "$W/set") assigns taken, want 65536"
grep -q "^$((N - 65536)) x 28 .*max_hosts" "$W/set" ||
	fail "the $((N - 65536)) assigns past the bound were not all refused with ENOSPC naming max_hosts"
[ "$(nq_table hosts)" -eq 65536 ] || fail "$(nq_table hosts) hosts in the table, want 65536"

d1=$(nq_connect 1) || exit 1
nq_listed "$(host_nqn 1)" && fail "host 1 has an entry in a full table"
t0=$(date +%s%N)
dd if=/dev/zero of="$d1" bs=256k count=24 oflag=direct 2>/dev/null || fail "dd to $d1 failed"
ms=$(nq_ms_since "$t0")
log "host 1, past the bound, wrote 6 MiB in $ms ms under default's 2 MB/s ceiling"
[ "$ms" -ge 2000 ] || fail "6 MiB took $ms ms (< 2 s): the host past the bound was not held to default's ceiling"
nvme disconnect -n "$NQ_SUBNQN" > /dev/null 2>&1

t0=$(date +%s%N)
flood HOST_DEL > "$W/del"
log "$N unassigns in $(nq_ms_since "$t0") ms: $(head -n 1 "$W/del") taken"
[ "$(head -n 1 "$W/del")" -eq 65536 ] || fail "$(head -n 1 "$W/del") unassigns taken, want 65536"
nq_await_hosts 0 30
[ "$(nq_table hosts)" -eq 0 ] || fail "$(nq_table hosts) hosts left 30 s after all were unassigned"
[ "$(nq_table hosts_reclaimed)" -ge 65536 ] || fail "$(nq_table hosts_reclaimed) hosts reclaimed, want 65536"
# freed per-CPU chunks and slabs go back with some delay
for _ in $(seq 50); do
	[ $(($(kmem) - m0)) -le 4096 ] && break
	sleep 0.2
done
m2=$(kmem)
log "slab + per-CPU after reclaim: $m2 KiB ($((m2 - m0)) KiB over the start, $((m1 - m0)) KiB at the peak)"
[ $((m2 - m0)) -le 4096 ] || fail "slab + per-CPU memory is $((m2 - m0)) KiB above the start after reclaim"

d2=$(nq_connect 2) || exit 1
nq_listed "$(host_nqn 2)" || fail "host 2 got no entry after the table emptied"

nq_check_balance
nq_finish
