#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host table is bounded and gives back what nobody needs (module
# parameters max_hosts=3 and host_idle_secs=2 here):
# - a discovery controller creates no host;
# - a host past the bound is folded into "(overflow)" and still scheduled:
#   in the default class, held to its 2 MB/s ceiling (8 MiB of writes take
#   at least 3 s, where the device alone takes well under one), counted
#   by the device and by "(overflow)";
# - hosts that disconnected and were not assigned are reclaimed, with
#   their flows, within 10 s while the table is 3/4 full (two scans a
#   second apart: about 3 s); an assigned host is kept while assigned, and
#   once unassigned goes after host_idle_secs, the table being emptier;
# - a host connecting after that gets an entry of its own again;
# - two host NQNs of 223 characters (nvmet takes that many from a raw
#   connect, selftests/nvmetcp.py) that differ only in the last are one
#   host, found by the 222 the table keeps, and both reads count there;
# - every request is accounted for.
. "$(dirname "$0")/lib.sh"
nq_require nvme dd python3

W=$NQ_WORK
nq_target_setup 100 512
nq_load_qos max_hosts=3 host_idle_secs=2
nq_ctl class add gold --share 50
nq_ctl host assign "$(host_nqn 1)" gold
nq_ctl class set default --max 2M

[ "$(nq_table max_hosts)" -eq 3 ] || fail "max_hosts is $(nq_table max_hosts), want 3"

nvme discover -t "$NQ_TRTYPE" -a "$(host_addr 9)" -s "$NQ_PORT" \
	--hostnqn="$(host_nqn 9)" > /dev/null 2>&1 || fail "nvme discover failed"
nq_listed "$(host_nqn 9)" && fail "a discovery controller created host 9"

d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1
d3=$(nq_connect 3) || exit 1
for d in "$d1" "$d2" "$d3"; do
	dd if="$d" of=/dev/null bs=64k count=4 iflag=direct 2>/dev/null || fail "read of $d failed"
done
[ "$(nq_table hosts)" -eq 3 ] || fail "$(nq_table hosts) hosts after three connects, want 3"
log "table after three hosts: $("$NQ_CTL" host table --json)"

# Host 4 finds the table full.
d4=$(nq_connect 4) || exit 1
nq_listed "$(host_nqn 4)" && fail "host 4 has an entry past max_hosts=3"
nq_listed "(overflow)" || fail "no (overflow) entry although host 4 is past the bound"
adm0=$("$NQ_CTL" device list --json | python3 -c '
import json, sys; print(sum(d["admitted"] for d in json.load(sys.stdin)["devices"]))')
ms=$(nq_timed_write "$d4" 8)
adm1=$("$NQ_CTL" device list --json | python3 -c '
import json, sys; print(sum(d["admitted"] for d in json.load(sys.stdin)["devices"]))')
ov=$("$NQ_CTL" host show "(overflow)" --json)
log "host 4 (folded) wrote 8 MiB in $ms ms under default's 2 MB/s ceiling; the devices admitted $((adm1 - adm0)) requests; (overflow): $ov"
[ "$ms" -ge 3000 ] || fail "8 MiB from the folded host took $ms ms (< 3 s): not held to default's ceiling"
[ $((adm1 - adm0)) -ge 32 ] || fail "the devices admitted $((adm1 - adm0)) requests of the folded host's 32 writes: it ran unscheduled"
[ "$(nq_json_get "$ov" write_bytes)" -ge $((8 << 20)) ] ||
	fail "(overflow) counted $(nq_json_get "$ov" write_bytes) bytes written, want 8 MiB"
[ "$(nq_table hosts_folded)" -ge 1 ] || fail "no fold counted"

# Hosts 2 and 3 go; host 1 goes too, but it is assigned.
for n in 1 2 3; do
	echo 1 > "/sys/class/nvme/$(basename "$(eval echo "\$d$n")" n1)/delete_controller"
done
nq_await_hosts 1 10
[ "$(nq_table hosts)" -eq 1 ] || fail "$(nq_table hosts) hosts 10 s after hosts 1-3 left, want 1 (host 1, assigned)"
[ "$(nq_table hosts_reclaimed)" -ge 2 ] || fail "$(nq_table hosts_reclaimed) hosts reclaimed, want 2"
[ "$(nq_table flows_reclaimed)" -ge 2 ] || fail "$(nq_table flows_reclaimed) flows reclaimed, want 2"
nq_listed "$(host_nqn 1)" || fail "assigned host 1 was reclaimed"
nq_listed "$(host_nqn 2)" && fail "host 2 is still listed after it left"

# There is room again: host 5 gets its own entry, and is scheduled there.
d5=$(nq_connect 5) || exit 1
nq_listed "$(host_nqn 5)" || fail "host 5 got no entry although the table has room"
dd if="$d5" of=/dev/null bs=64k count=4 iflag=direct 2>/dev/null || fail "read of $d5 failed"
[ "$(nq_json_get "$("$NQ_CTL" host show "$(host_nqn 5)" --json)" read_ios)" -ge 4 ] ||
	fail "host 5's reads were not counted as its own"

# Unassigned, host 1 (no controller left) goes too.
nq_ctl host unassign "$(host_nqn 1)"
for _ in $(seq 100); do nq_listed "$(host_nqn 1)" || break; sleep 0.1; done
nq_listed "$(host_nqn 1)" && fail "host 1 is still listed 10 s after it was unassigned"

long=nqn.2026-11.io.nvmet-qos:$(printf 'l%.0s' $(seq 197))
python3 "$NQ_ROOT/selftests/nvmetcp.py" touch "$(host_addr 6)" "$NQ_PORT" \
	"$NQ_SUBNQN" "$long" 2 1 > "$W/touch" 2>&1 ||
	fail "the hosts of 223-character NQNs failed: $(tail -c 300 "$W/touch")"
if lh=$("$NQ_CTL" host show "$long" --json); then
	log "${long}1 and ${long}2 read a block each: $lh"
	[ "$(nq_json_get "$lh" read_ios)" -eq 2 ] ||
		fail "their host counted $(nq_json_get "$lh" read_ios) reads, want 2"
else
	fail "no host by the 222 characters the table keeps of ${long}1 and ${long}2"
fi

nq_check_balance
nq_finish
