#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The events group. Two monitors, one of them an unprivileged user, see
# every change made over netlink in the order it was made, with the
# object as it is after the change (before it, for a deletion), and see a
# host's controller come and go exactly once each, with its class, when
# nvme-cli connects and disconnects it (discovery controllers included).
# A refused change sends nothing. A host is known from its connect on,
# before any I/O. SIGTERM stops a monitor cleanly.
. "$(dirname "$0")/lib.sh"
nq_require nvme python3 setpriv

nq_target_setup 100 128
nq_load_qos
nqn1=$(host_nqn 1)
nqn2=$(host_nqn 2)
nqn3=$(host_nqn 3)
EV=$NQ_WORK/events.json
TXT=$NQ_WORK/events.txt

"$NQ_CTL" monitor --json > "$EV" 2> "$NQ_WORK/events.err" &
mon=$!
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$NQ_CTL" monitor > "$TXT" 2> "$NQ_WORK/events-user.err" &
mon_user=$!
"$NQ_CTL" monitor --json --count 1 > "$NQ_WORK/one.json" &
mon_one=$!
trap 'kill $mon $mon_user $mon_one 2>/dev/null; nq_cleanup' EXIT

nq_await_monitors "$EV" "$TXT" "$NQ_WORK/one.json"
wait $mon_one || fail "monitor --count 1 exited with $?"
[ "$(wc -l < "$NQ_WORK/one.json")" -eq 1 ] || fail "monitor --count 1 printed $(wc -l < "$NQ_WORK/one.json") lines"
start=$(wc -l < "$EV")
start_txt=$(wc -l < "$TXT")

nq_ctl class add training --share 30 --max 10M
nq_ctl class set training --share 40
"$NQ_CTL" class set training --min 20M 2>/dev/null && fail "a floor above the ceiling was accepted"
"$NQ_CTL" class del nosuchclass 2>/dev/null && fail "deleting an unknown class succeeded"
nq_ctl host assign "$nqn1" training
d1=$(nq_connect 1) || exit 1
nq_connect 2 >/dev/null || exit 1
# A discovery controller moves no data: it makes events, not a host.
nvme discover -t tcp -a "$(host_addr 3)" -s "$NQ_PORT" --hostnqn="$nqn3" \
	>/dev/null || fail "nvme discover failed"
"$NQ_CTL" host show "$nqn3" --json > /dev/null 2>&1 && fail "a host that only discovered is listed"
nq_ctl device set "$NQ_NULLB" --write-cost 300
nq_ctl host unassign "$nqn1"
nq_ctl class del training
nvme disconnect -n "$NQ_SUBNQN" >/dev/null || fail "nvme disconnect failed"

for i in $(seq 100); do
	[ "$(grep -c '"ctrl-disconnect"' "$EV")" -ge 3 ] && break
	sleep 0.1
done
sleep 0.5
kill $mon $mon_user 2>/dev/null
# SIGTERM ends a monitor between two events, with status 0.
wait $mon || fail "the monitor exited with $? on SIGTERM"
wait $mon_user || fail "the unprivileged monitor exited with $? on SIGTERM"
log "$(tail -n +$((start + 1)) "$EV" | cut -c1-160)"
[ -s "$NQ_WORK/events.err" ] && fail "monitor complained: $(head -c 300 "$NQ_WORK/events.err")"

python3 - "$EV" "$start" "$nqn1" "$nqn2" "$nqn3" "$NQ_SUBNQN" "$NQ_NULLB" <<'PY' || fail "events are not what was done"
import json, sys
path, start, nqn1, nqn2, nqn3, sub, dev = sys.argv[1], int(sys.argv[2]), *sys.argv[3:]
ev = [json.loads(l) for l in open(path).read().splitlines()[start:]]
names = [e["event"] for e in ev]
print("# events:", " ".join(names))
def ctrl(kind, nqn):
    return [i for i, e in enumerate(ev) if e["event"] == kind and e["ctrl"]["nqn"] == nqn]
for nqn in (nqn1, nqn2, nqn3):
    for kind in ("ctrl-connect", "ctrl-disconnect"):
        got = ctrl(kind, nqn)
        assert len(got) == 1, f"{kind} of {nqn}: {len(got)} events"
# The changes, in the order they were made; controller events interleave.
changes = [e for e in ev if not e["event"].startswith("ctrl-")]
want = ["class-new", "class-change", "host-change", "dev-change",
        "host-change", "class-del"]
assert [e["event"] for e in changes] == want, [e["event"] for e in changes]
new, chg, asg, devc, unasg, dele = changes
assert new["class"]["name"] == "training" and new["class"]["share"] == 30, new
assert new["class"]["max_bps"] == 10000000, new
assert chg["class"]["share"] == 40 and chg["class"]["max_bps"] == 10000000, chg
assert asg["host"]["nqn"] == nqn1 and asg["host"]["class"] == "training", asg
assert devc["device"]["name"] == dev and devc["device"]["write_cost"] == 300, devc
assert unasg["host"]["nqn"] == nqn1 and unasg["host"]["class"] == "default", unasg
assert unasg["host"]["weight"] == 100, unasg
assert dele["class"]["name"] == "training" and dele["class"]["share"] == 40, dele
c1 = ev[ctrl("ctrl-connect", nqn1)[0]]["ctrl"]
assert c1["subsys_nqn"] == sub and c1["transport"] == "tcp" and c1["trtype"] == 3, c1
assert c1["class"] == "training", c1
# no key for it in nvmet (the subsystem allows any host): not authenticated
assert c1["auth_required"] is False and c1["authenticated"] is False, c1
assert c1["cntlid"] >= 1, c1
# Causality: connect after the assignment, disconnect after the deletion.
assert ctrl("ctrl-connect", nqn1)[0] > ev.index(asg)
assert ctrl("ctrl-disconnect", nqn1)[0] > ev.index(dele)
d1 = ev[ctrl("ctrl-disconnect", nqn1)[0]]["ctrl"]
assert d1["cntlid"] == c1["cntlid"] and d1["class"] == "default", d1
disc = ev[ctrl("ctrl-connect", nqn3)[0]]["ctrl"]
assert disc["subsys_nqn"] == "nqn.2014-08.org.nvmexpress.discovery", disc
assert all(e["time"].endswith("Z") for e in ev)
PY

# The unprivileged monitor saw the same events, one line each.
n_json=$(($(wc -l < "$EV") - start))
n_txt=$(($(wc -l < "$TXT") - start_txt))
[ "$n_txt" -eq "$n_json" ] || fail "unprivileged monitor saw $n_txt events, root $n_json"
grep -q " ctrl-connect  *nqn=$nqn1 subsys=$NQ_SUBNQN cntlid=[0-9]* transport=tcp class=training auth-required=no authenticated=no$" "$TXT" ||
	fail "text connect line: $(grep ctrl-connect "$TXT" | head -1)"
grep -q " class-del  *class=training share=40 " "$TXT" ||
	fail "text class-del line: $(grep class-del "$TXT" | head -1)"

nq_finish
