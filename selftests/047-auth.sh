#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hosts that prove who they are (DH-HMAC-CHAP). Classes are keyed by the
# host NQN a controller presents, and any machine can present any NQN.
# The subsystem here admits two NQNs and allows no other host: host 1's
# with a key (nvmet's hosts/NQN/dhchap_key), host 2's without one. Both
# are in class "train", which admits authenticated controllers only
# (--auth); default is held to 2 MB/s.
# - a machine that claims host 1's NQN without the key, or with another
#   key, is refused, and leaves no controller counted; nvmet made a
#   controller for each claim, whose ctrl-disconnect says authentication
#   was required and never happened;
# - host 1 with its key connects: host list counts its controller as
#   authenticated, a ctrl-auth event says when it was, its ctrl-connect
#   says authentication was required; host 2's controller is counted,
#   not as authenticated, and says neither;
# - host 1's writes run in train, counted as host 1's; host 2's run as
#   "(unauthenticated)" in default, held to its ceiling (8 MiB take at
#   least 3 s, where the device alone takes under one) and not counted
#   as host 2's; with --no-auth on train, host 2's run in train;
# - bad input changes nothing: --auth on default, and assigning the
#   "(unauthenticated)" entry, are refused;
# - save writes the option and restore sets it again.
# On a kernel whose nvmet cannot authenticate (Debian's 6.1) only the
# refusal of --auth is checked, and the rest is skipped with that reason.
#
# nvmet logs "fatal error" for the controller of the claim with the wrong
# key, as it ends it; the test checks that no other controller gets one.
# Expected host fault: nvmet: ctrl [0-9]+ fatal error occurred
. "$(dirname "$0")/lib.sh"
nq_require nvme dd python3

S=/sys/kernel/config/nvmet/subsystems/$NQ_SUBNQN
H=/sys/kernel/config/nvmet/hosts
H1=$(host_nqn 1) H2=$(host_nqn 2)

nq_target_setup 40 512
nq_load_qos

if [ ! -d /sys/kernel/config/nvmet/hosts ] || ! mkdir "$H/$H1" ||
	[ ! -e "$H/$H1/dhchap_key" ]; then
	rmdir "$H/$H1" 2>/dev/null
	nq_ctl class add train
	out=$("$NQ_CTL" class set train --auth 2>&1) &&
		fail "class set --auth succeeded where nvmet cannot authenticate"
	grep -q "CONFIG_NVME_TARGET_AUTH" <<< "$out" ||
		fail "--auth refused without naming the reason: $out"
	[ "$(nq_json_get "$("$NQ_CTL" class show train --json)" auth)" = False ] ||
		fail "a refused --auth changed the class"
	log "refused as it should be: $out"
	skip "this kernel's nvmet has no DH-HMAC-CHAP (CONFIG_NVME_TARGET_AUTH unset in $(uname -r))"
fi

auth_teardown() {
	nvme disconnect -n "$NQ_SUBNQN" > /dev/null 2>&1
	rm -f "$S/allowed_hosts/$H1" "$S/allowed_hosts/$H2"
	rmdir "$H/$H1" "$H/$H2" 2>/dev/null
	nq_cleanup
}
mon=
trap '[ -z "$mon" ] || kill $mon 2>/dev/null; auth_teardown' EXIT

key1=$(nvme gen-dhchap-key -n "$H1") || die "nvme gen-dhchap-key failed"
key9=$(nvme gen-dhchap-key -n "$H1") || die "nvme gen-dhchap-key failed"
echo "$key1" > "$H/$H1/dhchap_key" || die "cannot set host 1's key"
mkdir "$H/$H2"
echo 0 > "$S/attr_allow_any_host"
ln -s "$H/$H1" "$S/allowed_hosts/$H1"
ln -s "$H/$H2" "$S/allowed_hosts/$H2"

nq_ctl class add train --auth
nq_ctl host assign "$H1" train
nq_ctl host assign "$H2" train
nq_ctl class set default --max 2M
"$NQ_CTL" monitor --json > "$NQ_WORK/events.json" 2> "$NQ_WORK/events.err" &
mon=$!
nq_await_monitors "$NQ_WORK/events.json"

# connect N [SECRET]: connect host N; prints its block device, or fails
connect() {
	local out ctrl
	# shellcheck disable=SC2046 # nq_host_opts prints options
	out=$(nvme connect -t "$NQ_TRTYPE" $(nq_host_opts "$1") -n "$NQ_SUBNQN" \
		--hostnqn="$(host_nqn "$1")" --hostid="$(cat /proc/sys/kernel/random/uuid)" \
		${2:+--dhchap-secret="$2"} -o json 2>&1) ||
		{ echo "$out"; return 1; }
	ctrl=$(sed -n 's/.*"device" *: *"\(nvme[0-9]*\)".*/\1/p' <<< "$out")
	for _ in $(seq 100); do
		[ -b "/dev/${ctrl}n1" ] && { echo "/dev/${ctrl}n1"; return 0; }
		sleep 0.1
	done
	echo "no block device for host $1 ($ctrl)"
	return 1
}

# ctrls NQN: "CONTROLLERS AUTHENTICATED" of NQN's entry in host list
ctrls() {
	"$NQ_CTL" host list --json | python3 -c '
import json, sys
h = [h for h in json.load(sys.stdin)["hosts"] if h["nqn"] == sys.argv[1]]
print(h[0]["ctrls"], h[0]["ctrls_auth"]) if h else print("0 0")' "$1"
}

# The spoofer: host 1's NQN without its key, then with another key.
for secret in "" "$key9"; do
	what="without a key"
	[ -z "$secret" ] || what="with another key"
	if out=$(connect 1 "$secret"); then
		fail "a controller claiming host 1's NQN $what was admitted ($out)"
	else
		log "host 1's NQN $what: refused ($(tail -1 <<< "$out"))"
	fi
done
# nvmet ends the refused controllers from a workqueue: wait until they
# are gone, and its log settled, before counting what it logged.
for _ in $(seq 50); do
	[ "$(ctrls "$H1")" = "0 0" ] && break
	sleep 0.1
done
[ "$(ctrls "$H1")" = "0 0" ] || fail "host 1 counts controllers $(ctrls "$H1") 5 s after the refused claims"
fatal=$(dmesg | grep -cE "nvmet: ctrl [0-9]+ fatal error")

d1=$(connect 1 "$key1") || fail "host 1 with its key was refused: $d1"
d2=$(connect 2) || fail "host 2 was refused: $d2"
[ "$(ctrls "$H1")" = "1 1" ] || fail "host 1: controllers, authenticated: $(ctrls "$H1"), want 1 1"
[ "$(ctrls "$H2")" = "1 0" ] || fail "host 2: controllers, authenticated: $(ctrls "$H2"), want 1 0"
log "host list: $("$NQ_CTL" host list | grep -E "host[12]|CTRLS")"

# written NQN: bytes its entry counts written (0 without an entry)
written() {
	local j
	j=$(nq_host_json "$1" 2>/dev/null) || { echo 0; return; }
	nq_json_get "$j" write_bytes
}

ms1=$(nq_timed_write "$d1" 8)
w2=$(written "$H2")
ms2=$(nq_timed_write "$d2" 8)
log "train --auth: host 1 (authenticated) wrote 8 MiB in $ms1 ms; host 2 (not) in $ms2 ms"
[ "$(written "$H1")" -ge $((8 << 20)) ] || fail "host 1's writes were not counted as host 1's"
[ "$ms1" -lt 2000 ] || fail "host 1 (authenticated, in train) took $ms1 ms: held to default's ceiling"
[ "$(written "(unauthenticated)")" -ge $((8 << 20)) ] ||
	fail "(unauthenticated) counted $(written "(unauthenticated)") bytes written, want 8 MiB"
[ "$(written "$H2")" -eq "$w2" ] || fail "host 2's unauthenticated writes were counted as host 2's"
[ "$ms2" -ge 3000 ] || fail "host 2 (unauthenticated) took $ms2 ms (< 3 s): not held to default's 2 MB/s"
[ "$(nq_json_get "$(nq_host_json "(unauthenticated)")" class)" = default ] ||
	fail "(unauthenticated) is not in default"

nq_ctl class set train --no-auth
ms2=$(nq_timed_write "$d2" 8)
log "train --no-auth: host 2 wrote 8 MiB in $ms2 ms"
[ "$(written "$H2")" -ge $((w2 + (8 << 20))) ] || fail "with --no-auth host 2's writes were not counted as host 2's"
[ "$ms2" -lt 2000 ] || fail "with --no-auth host 2 took $ms2 ms: still held to default's ceiling"

# Bad input is refused and changes nothing.
out=$("$NQ_CTL" class set default --auth 2>&1) && fail "--auth on default succeeded"
log "--auth on default: $out"
grep -q "default class" <<< "$out" || fail "--auth on default refused for another reason: $out"
[ "$(nq_json_get "$("$NQ_CTL" class show default --json)" auth)" = False ] || fail "a refused --auth changed default"
out=$("$NQ_CTL" host assign "(unauthenticated)" train 2>&1) && fail "assigning (unauthenticated) succeeded"
log "assigning (unauthenticated): $out"
grep -q "did not authenticate" <<< "$out" || fail "assigning (unauthenticated) refused for another reason: $out"
[ "$(nq_json_get "$(nq_host_json "(unauthenticated)")" class)" = default ] ||
	fail "a refused assignment moved (unauthenticated)"

# Saved and restored with the policy.
nq_ctl class set train --auth
nq_ctl save "$NQ_WORK/policy.json"
grep -q '"auth": true' "$NQ_WORK/policy.json" || fail "save did not write train's auth: $(cat "$NQ_WORK/policy.json")"
nq_ctl class set train --no-auth
nq_ctl restore "$NQ_WORK/policy.json"
[ "$(nq_json_get "$("$NQ_CTL" class show train --json)" auth)" = True ] || fail "restore did not set train's auth again"
# and it holds again: host 2's writes go back to (unauthenticated)
wu=$(written "(unauthenticated)")
ms2=$(nq_timed_write "$d2" 8)
log "--auth restored: host 2 wrote 8 MiB in $ms2 ms"
[ "$(written "(unauthenticated)")" -ge $((wu + (8 << 20))) ] ||
	fail "after restore host 2's writes were not counted as (unauthenticated)"
[ "$ms2" -ge 3000 ] || fail "after restore host 2 took $ms2 ms (< 3 s): not held to default's 2 MB/s"

# Gone, they are counted no more.
nvme disconnect -n "$NQ_SUBNQN" > /dev/null 2>&1
for _ in $(seq 50); do
	[ "$(ctrls "$H1") $(ctrls "$H2")" = "0 0 0 0" ] && break
	sleep 0.1
done
[ "$(ctrls "$H1") $(ctrls "$H2")" = "0 0 0 0" ] ||
	fail "after disconnecting, hosts 1 and 2 count controllers $(ctrls "$H1") and $(ctrls "$H2")"

# The events, per controller: host 1's NQN had three (two refused
# claims, then host 1), each required to authenticate, of which only the
# last did (a ctrl-auth, and its disconnect says so); host 2's one was
# not required to, and did not. Events go out from a worker: the four
# disconnects are awaited.
for _ in $(seq 50); do
	[ "$(grep -c '"event":"ctrl-disconnect"' "$NQ_WORK/events.json")" -ge 4 ] && break
	sleep 0.1
done
kill $mon 2>/dev/null
wait $mon 2>/dev/null
mon=
python3 - "$NQ_WORK/events.json" "$H1" "$H2" <<'PY' || fail "controller events do not say who authenticated (above)"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ctl = [(e["event"], e["ctrl"]) for e in ev if e.get("event", "").startswith("ctrl-")]
for k, c in ctl:
    print(f"# {k} {c['nqn']} cntlid={c['cntlid']} auth_required={c['auth_required']} "
          f"authenticated={c['authenticated']}")
def story(nqn):
    """Per controller, in order: its events (kind, required, authenticated).
    nvmet may give a later controller a freed cntlid: a connect starts one."""
    stories, open_ = [], {}
    for k, c in ctl:
        if c["nqn"] != nqn:
            continue
        if k == "ctrl-connect":
            open_[c["cntlid"]] = []
            stories.append(open_[c["cntlid"]])
        open_.setdefault(c["cntlid"], []).append((k, c["auth_required"], c["authenticated"]))
    return stories
h1, h2 = story(sys.argv[2]), story(sys.argv[3])
ok = len(h1) == 3 and len(h2) == 1
claims, host1 = h1[:2], h1[2] if len(h1) == 3 else []
ok = ok and all(c == [("ctrl-connect", True, False), ("ctrl-disconnect", True, False)] for c in claims)
ok = ok and host1 == [("ctrl-connect", True, False), ("ctrl-auth", True, True), ("ctrl-disconnect", True, True)]
ok = ok and h2[0] == [("ctrl-connect", False, False), ("ctrl-disconnect", False, False)]
sys.exit(0 if ok else 1)
PY

[ "$(dmesg | grep -cE "nvmet: ctrl [0-9]+ fatal error")" -eq "$fatal" ] ||
	fail "nvmet ended a controller with a fatal error after the refused claims"

nq_finish
