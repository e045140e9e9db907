#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile input. At least 100,000 generated requests (25,000 on the
# kernels after the first in "make check", NQ_FUZZ_COUNT; nlfuzz.py: every
# command, do and dump, with missing, duplicated, oversized, wrongly sized,
# out-of-range, unknown and nested-garbage attributes, and random bytes)
# are each answered with an error or an ack; afterwards the kernel's
# classes, hosts, devices and cluster state are exactly what the accepted
# requests made them, and a monitor saw one event per accepted change. run.sh fails the
# test on any kernel splat; the module is unloaded at the end.
. "$(dirname "$0")/lib.sh"
nq_require python3

COUNT=${NQ_FUZZ_COUNT:-100000}
SEED=${NQ_FUZZ_SEED:-$(date +%s)}

nq_load_qos
"$NQ_CTL" monitor --json > "$NQ_WORK/events.json" 2> "$NQ_WORK/events.err" &
mon=$!
trap 'kill $mon 2>/dev/null; nq_cleanup' EXIT
nq_await_monitors "$NQ_WORK/events.json"
skip_lines=$(wc -l < "$NQ_WORK/events.json")

log "seed $SEED, $COUNT requests (NQ_FUZZ_SEED=$SEED reproduces them)"
start=$(date +%s)
out=$(cd "$(dirname "$0")" && python3 nlfuzz.py "$COUNT" "$SEED")
rc=$?
echo "$out" | grep '^#'
summary=$(echo "$out" | sed -n 's/^fuzz: //p')
log "$summary ($(($(date +%s) - start)) s)"
[ "$rc" -eq 0 ] || fail "the kernel's policy is not what the accepted requests made it"
[ -n "$summary" ] || die "the fuzzer did not finish"

# Under TCG the monitor prints thousands of events behind the fuzzer: let
# it catch up (or report a loss) before stopping it, then give an extra
# event a second to show.
want=$(python3 -c 'import json, sys; print(sum(json.loads(sys.argv[1])["changes"].values()))' "$summary")
for _ in $(seq 1200); do
	[ $(($(wc -l < "$NQ_WORK/events.json") - skip_lines)) -ge "$want" ] && break
	grep -q '"event":"lost"' "$NQ_WORK/events.json" && break
	sleep 0.1
done
sleep 1
kill $mon 2>/dev/null
wait $mon || fail "the monitor exited with $? when stopped"
python3 - "$summary" "$NQ_WORK/events.json" "$skip_lines" "$COUNT" <<'PY' || fail "events do not match the accepted changes"
import json, sys
s = json.loads(sys.argv[1])
assert s["sent"] >= int(sys.argv[4]), s
assert s["accepted"] + s["refused"] == s["sent"], s
# One event a line, ended by "\n": split there alone, as a log shipper
# does, not by str.splitlines(), whose line ends (U+0085, U+2028) only
# the tool's escaping keeps out of a name.
lines = open(sys.argv[2], "rb").read().split(b"\n")
assert lines[-1] == b"", "the monitor's last line is cut: %r" % lines[-1]
ev = []
for n, l in enumerate(lines[int(sys.argv[3]):-1], int(sys.argv[3]) + 1):
    try:
        ev.append(json.loads(l)["event"])
    except ValueError as e:
        print("# event line %d: %s: %r" % (n, e, l))
        raise
got = {k: ev.count(k) for k in set(ev)}
c = s["changes"]
want = {"host-change": c.get("HOST_SET", 0) + c.get("HOST_DEL", 0),
        "class-new": c.get("CLASS_NEW", 0), "class-change": c.get("CLASS_SET", 0),
        "class-del": c.get("CLASS_DEL", 0), "dev-change": c.get("DEV_SET", 0),
        "cluster-change": c.get("CLUSTER_SET", 0)}
want = {k: v for k, v in want.items() if v}
print("# events seen:", got)
if "lost" in got:
    print("# the monitor lost events (ENOBUFS); counts not compared")
else:
    assert got == want, (got, want)
PY

nq_finish
