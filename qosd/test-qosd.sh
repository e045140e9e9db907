#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nvmet-qosd against a real etcd cluster of three members on loopback
# (scripts/etcd-cluster): three heads follow one policy key; a change
# reaches every head within a second; a malformed policy is refused with
# the tool's reason and the last good one kept; one the kernel side does
# not take is retried until it is in; the status carries each class's
# rate from the tool's counters; a head rides out a dead member, a
# frozen one (SIGSTOP), a dead cluster and malformed replies; a stopped
# head's status goes with its lease, and it tells its module it follows
# the cluster and, once stopped, that it no longer does. Prints KTAP.
#
# The heads run the real nvmet-qos tool's policy checks ("restore
# --check"); what would reach the kernel is recorded instead of applied,
# since there is no module here. selftests/049-qosd-etcd.sh runs the
# daemon against the real module.
# Usage: test-qosd.sh [path/to/nvmet-qosd]
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
qosd=$(realpath "${1:-$here/nvmet-qosd}")
ctl=$here/../ctl/nvmet-qos
cluster=$here/../scripts/etcd-cluster
tmp=$(mktemp -d) || exit 1
port=${QOSD_TEST_PORT:-23790}
heads=(h1 h2 h3)
pids=()

# shellcheck source=test-lib.sh
. "$here/test-lib.sh"

need etcd etcdctl
[ -x "$ctl" ] || { echo "test-qosd: build ctl/ first" >&2; exit 1; }

# The stand-in for "nvmet-qos restore -": the real tool's checks, then a
# record of the policy instead of the kernel.
# "class list --json" gives counters that grow at 10 MB/s and 100 IOPS
# from the test's start, with 7 requests held, unless \$0.nofigs exists.
t_start=$(date +%s.%N)
cat > "$tmp/tool" <<EOF
#!/bin/bash
if [ "\$*" = "class list --json" ]; then
	[ -e "\$0.nofigs" ] && { echo "nvmet-qos: the module is not loaded" >&2; exit 1; }
	echo "\$(date +%s.%N) $t_start" | awk '{ d = \$1 - \$2; printf "{\\"classes\\": [{\\"name\\": \\"training\\", \\"read_bytes\\": %d, \\"write_bytes\\": %d, \\"ios\\": %d, \\"queued\\": 7}]}\\n", d * 6e6, d * 4e6, d * 100 }'
	exit 0
fi
# "cluster set STATE --note TEXT": recorded as STATE|TEXT in \$0.states.
if [ "\$1 \$2 \$4" = "cluster set --note" ] && [ \$# = 5 ]; then
	echo "\$3|\$5" >> "\$0.states"
	exit 0
fi
[ "\$*" = "restore --check -" ] && exec "$ctl" restore --check -
[ "\$*" = "restore -" ] || exit 2
# With \$0.fail, the kernel side is away (as with the module unloaded).
[ -e "\$0.fail" ] && { echo "nvmet-qos: the nvmet_qos module is not loaded" >&2; exit 1; }
cat > "\$0.\$\$.in"
"$ctl" restore --check - < "\$0.\$\$.in" > /dev/null || { rm -f "\$0.\$\$.in"; exit 1; }
date +%s.%N > "\$0.when"
mv "\$0.\$\$.in" "\$0.applied"
echo "restored <stdin>: recorded"
EOF

etcd_up "$port"

start_head() {
	local h=$1
	mkdir -p "$tmp/$h"
	cp "$tmp/tool" "$tmp/$h/tool"
	chmod +x "$tmp/$h/tool"
	"$qosd" --endpoints "$urls" --name "$h" --interval 0.5 --recheck 2 --tool "$tmp/$h/tool" \
		2> "$tmp/$h/log" &
	pids+=($!)
}

policy() { # SHARE: a valid policy whose training class has that share
	printf '{"version": 1, "classes": [{"name": "training", "share": %s, "max_bps": "2G"}], "hosts": [{"nqn": "nqn.2026-11.io.example:gpu1", "class": "training"}]}\n' "$1"
}

# wait_applied SHARE: seconds until every head applied it (99 if not in 5 s).
wait_applied() {
	local want=$1 since=$2 h t worst=0
	for h in "${heads[@]}"; do
		for ((i = 0; i < 100; i++)); do
			grep -q "\"share\": $want," "$tmp/$h/tool.applied" 2> /dev/null && break
			sleep 0.05
		done
		[ "$i" -lt 100 ] || { echo 99; return; }
		t=$(cat "$tmp/$h/tool.when")
		worst=$(echo "$t - $since" | bc -l | awk -v w="$worst" '{ print ($1 > w ? $1 : w) }')
	done
	echo "$worst"
}

# put_policy TEXT: write it through member put_at with curl through etcd's gateway (etcdctl's
# start would count in the time to apply); prints when the write began.
put_policy() {
	local t
	t=$(date +%s.%N)
	printf '{"key": "%s", "value": "%s"}' "$(printf /nvmet-qos/policy | base64 -w0)" \
		"$(printf %s "$1" | base64 -w0)" |
		curl -sf -m 5 -X POST -d @- "http://127.0.0.1:$((port + 2 * put_at))/v3/kv/put" > /dev/null ||
		ec put /nvmet-qos/policy "$1" > /dev/null
	echo "$t"
}
put_at=2
revision() { ec get /nvmet-qos/policy -w json | python3 -c 'import json,sys; print(json.load(sys.stdin)["kvs"][0]["mod_revision"])'; }
# each_head NAME CMD...: CMD (with @H@ for the head's name) holds for
# every head; NAME fails naming the heads for which it does not.
each_head() {
	local name=$1 h missing=()
	shift
	for h in "${heads[@]}"; do
		"${@//@H@/$h}" || missing+=("$h")
	done
	if [ ${#missing[@]} -eq 0 ]; then ok "$name"; else nok "$name" "not on ${missing[*]}"; fi
}
status_has() { # HEAD PATTERN
	ec get "/nvmet-qos/heads/$1" --print-value-only | grep -q -- "$2"
}

# 1. A policy there before the heads start is applied by each.
ec put /nvmet-qos/policy "$(policy 30)" > /dev/null
for h in "${heads[@]}"; do start_head "$h"; done
t=$(wait_applied 30 0)
check "each head applies the policy it finds at start" [ "$t" != 99 ]

# 2. A change reaches every head within a second.
worst=0
for share in 31 32 33 34 35; do
	t=$(wait_applied "$share" "$(put_policy "$(policy "$share")")")
	worst=$(awk -v a="$worst" -v b="$t" 'BEGIN { print (b > a ? b : a) }')
done
echo "# slowest of 5 changes to reach all 3 heads: ${worst} s"
check "a change is applied on every head within 1 s (slowest ${worst} s)" \
	awk -v w="$worst" 'BEGIN { exit !(w < 1) }'

# The heads publish the revision they applied, under their lease.
rev=$(revision)
sleep 0.6
each_head "each head publishes the revision it applied ($rev)" \
	status_has @H@ "\"applied_revision\":$rev,"

# The status carries each class's rate over the last interval.
python3 - "$(ec get /nvmet-qos/heads/h1 --print-value-only)" > "$tmp/figs" 2>&1 <<'PY'
import json, sys
c = json.loads(sys.argv[1])["classes"]["training"]
print(c["rate_bps"], c["iops"], c["held"])
# The stand-in reads its clock after starting (a shell and awk), the
# head its own around the run: 15% of a 0.5 s interval is 75 ms.
assert abs(c["rate_bps"] - 10e6) < 1.5e6 and abs(c["iops"] - 100) < 15 and c["held"] == 7, c
PY
rc=$?
check "the status has each class's delivered rate, IOPS and held requests ($(tail -n 1 "$tmp/figs"))" \
	[ "$rc" = 0 ]
touch "$tmp/h2/tool.nofigs"
sleep 1.2
st=$(ec get /nvmet-qos/heads/h2 --print-value-only)
said=$(grep -c "cannot read the classes' counters: nvmet-qos: the module is not loaded" "$tmp/h2/log")
if [ "$said" = 1 ] && [ -n "$st" ] && [[ $st != *classes* ]]; then
	ok "without counters a head logs why once and publishes its status without rates"
else
	nok "without counters a head logs why once and publishes its status without rates" \
		"said $said times; status: $st"
fi
rm "$tmp/h2/tool.nofigs"
sleep 1.2
st=$(ec get /nvmet-qos/heads/h2 --print-value-only)
if grep -q "counters can be read again" "$tmp/h2/log" && [[ $st == *'"rate_bps"'* ]]; then
	ok "the counters read again are said so, and rates come back"
else
	nok "the counters read again are said so, and rates come back" "status: $st"
fi

# 3. A malformed policy: refused with the tool's reason, the last kept.
ec put /nvmet-qos/policy '{"version": 1, "classes": [{"name": "training", "share": "lots"}]}' > /dev/null
bad=$(revision)
sleep 1
each_head "a malformed policy is refused with a log line naming its revision and fault" \
	grep -q "refused the policy of revision $bad, keeping revision $rev: .*share" "$tmp/@H@/log"
grep -m1 "refused" "$tmp/h1/log" | sed 's/^/# /'
each_head "after a refusal every head still has the last good policy" \
	grep -q '"share": 35,' "$tmp/@H@/tool.applied"
each_head "each head's status says what was refused and why, and what it applied" \
	status_has @H@ "\"applied_revision\":$rev,\"refused_revision\":$bad,\"refused_why\":\".*share"
ec put /nvmet-qos/policy 'not json at all' > /dev/null
nojson=$(revision)
sleep 0.6
each_head "text that is not JSON is refused too" \
	grep -q "refused the policy of revision $nojson, keeping revision $rev: .*<stdin>" "$tmp/@H@/log"
t=$(wait_applied 40 "$(put_policy "$(policy 40)")")
check "a good policy after bad ones is applied (${t} s)" awk -v w="$t" 'BEGIN { exit !(w < 1) }'

# A policy the checks pass but the kernel side does not take (the module
# unloaded on h3): said once, tried again until it is in.
touch "$tmp/h3/tool.fail"
put_policy "$(policy 43)" > /dev/null
failing=$(revision)
sleep 1
check "a policy not applied is logged once with its reason" \
	[ "$(grep -c "could not apply the policy of revision $failing, keeping revision [0-9]* (trying again in 2 s, then less often): .*not loaded" "$tmp/h3/log")" = 1 ]
check "and the head's status says so" status_has h3 "\"refused_revision\":$failing,\"refused_why\":\".*not loaded"
rm "$tmp/h3/tool.fail"
# The retry is due 2 s after the failure, and the rechecks that find it
# due come every 2 s: at most 4 s after the failure, 10 s allowed for a
# loaded machine (the unit tests run beside it).
for ((i = 0; i < 100; i++)); do
	grep -q "applied the policy of revision $failing " "$tmp/h3/log" && break
	sleep 0.1
done
check "it is applied once the kernel side is back, at a recheck (every 2 s; after ${i}00 ms)" \
	grep -q "applied the policy of revision $failing " "$tmp/h3/log"

# 4. The member a head talks to first dies: changes still arrive.
"$cluster" stop "$tmp/etcd" 0
t=$(wait_applied 41 "$(put_policy "$(policy 41)")")
echo "# member 0 stopped: a change reached every head in ${t} s"
check "with one member of three dead, a change is applied within 2 s (${t} s)" \
	awk -v w="$t" 'BEGIN { exit !(w < 2) }'
"$cluster" restart "$tmp/etcd" 0
sleep 1

# A member that stops answering without closing its connections (a
# machine gone, a partition; here SIGSTOP): the watches on it bring
# nothing, and each head moves away from it.
# The member h1 follows from. When it is the leader too, the write
# waits for the others to elect another (etcd's own affair), so the
# time is counted from when the write is done.
m=$(grep -o 'following /nvmet-qos/policy from http://127.0.0.1:[0-9]*' "$tmp/h1/log" |
	tail -n 1 | awk -F: -v p="$port" '{ print ($NF - p) / 2 }')
kill -STOP "$(cat "$tmp/etcd/m$m/pid")"
for ((i = 0; i < 10; i++)); do
	ec put /nvmet-qos/policy "$(policy 44)" > /dev/null 2>&1 && break
done
t=$(wait_applied 44 "$(date +%s.%N)")
kill -CONT "$(cat "$tmp/etcd/m$m/pid")"
echo "# member $m, which h1 followed, frozen: a change reached every head in ${t} s"
check "with the watches' member frozen, a change is applied within 3 s of its write (${t} s)" \
	awk -v w="$t" 'BEGIN { exit !(w < 3) }'

check "no head took the cluster for gone while it was up" \
	bash -c "! grep -l 'unreachable' $tmp/h*/log"

# 5. The whole cluster is gone for 3 s: the heads keep their policy and
# say so, then come back and follow again.
"$cluster" stop "$tmp/etcd"
sleep 3
alive=0
for p in "${pids[@]}"; do kill -0 "$p" 2> /dev/null && alive=$((alive + 1)); done
check "the heads keep running without etcd" [ "$alive" -eq 3 ]
check "a head without etcd says so and keeps its policy" \
	grep -q "etcd unreachable .*; keeping the policy of revision" "$tmp/h2/log"
rpids=()
for i in 0 1 2; do "$cluster" restart "$tmp/etcd" "$i" & rpids+=($!); done
wait "${rpids[@]}"
for ((i = 0; i < 50; i++)); do ec endpoint health > /dev/null 2>&1 && break; sleep 0.1; done
t=$(wait_applied 42 "$(put_policy "$(policy 42)")")
echo "# cluster back: a change reached every head in ${t} s"
check "after the cluster returns, a change is applied within 2 s (${t} s)" \
	awk -v w="$t" 'BEGIN { exit !(w < 2) }'
check "a head says when etcd is back" grep -q "etcd reachable again" "$tmp/h2/log"
sleep 1.5
check "the heads' status is published again" \
	[ "$(ec get --prefix /nvmet-qos/heads/ --keys-only | grep -c .)" -eq 3 ]

# 6. A head stopped: its status goes with its lease at once.
kill "${pids[0]}"
wait "${pids[0]}"
rc=$?
check "a head stops on SIGTERM with status 0 ($rc)" [ "$rc" -eq 0 ]
told() {
	[ "$(head -n 1 "$tmp/h1/tool.states")" = "member|nvmet-qosd h1: following /nvmet-qos" ] &&
		[ "$(tail -n 1 "$tmp/h1/tool.states")" = "none|nvmet-qosd stopped" ]
}
check "a head told its module it follows the cluster, and that it stopped" told
check "a stopped head's status is removed" \
	[ -z "$(ec get /nvmet-qos/heads/h1 --keys-only)" ]

# 7. Replies that are not etcd's (a proxy's, a wrong port's): the head
# says so and keeps running. A stand-in answers each call with one of
# a list of malformed replies in turn.
cat > "$tmp/garbage.py" <<'PY'
import http.server, itertools, sys
bad = itertools.cycle([
    b'{"header": {"revision": "9"}, "kvs": null}',
    b'{"header": {"revision": "9"}, "kvs": [{"key": null, "value": 5}]}',
    b'{"header": {"revision": "9"}, "kvs": [null, 7]}',
    b'{"header": "x", "kvs": {}}',
    b'{"result": {"events": {"type": null}}}',
    b'{"result": {"events": [{"type": null, "kv": {"key": 3}}]}}',
    b'{"result": {"events": [null]}}\n{"result": 5}\n',
    b'{"error": null}', b'{"ID": null, "TTL": []}', b'[]', b'null',
    b'{"result": {"canceled": "yes"}}', b'not json', b''])
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = next(bad)
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
gport=$((port + 8))
python3 "$tmp/garbage.py" "$gport" &
gpid=$!
for ((i = 0; i < 50; i++)); do
	ss -Htln "sport = :$gport" | grep -q . && break
	sleep 0.1
done
"$qosd" --endpoints "http://127.0.0.1:$gport" --name g --interval 0.1 --tool "$tmp/h2/tool" \
	2> "$tmp/g.log" &
qpid=$!
sleep 2
kill -0 "$qpid" 2> /dev/null
alive=$?
kill "$qpid" 2> /dev/null
wait "$qpid"
rc=$?
kill "$gpid"
wait "$gpid" 2> /dev/null
calls=$(grep -c . "$tmp/g.log")
if [ "$alive" = 0 ] && [ "$rc" = 0 ] && grep -q "no ID in the reply\|without a revision\|not JSON" "$tmp/g.log"; then
	ok "malformed replies do not bring a head down, and it says what it got"
else
	nok "malformed replies do not bring a head down, and it says what it got" \
		"alive after 2 s: $alive, status $rc, $calls lines logged"
	sed 's/^/#   /' "$tmp/g.log"
fi

# 8. Bad options: a clear error, nothing started.
for args in "--interval 0" "--interval x" "--recheck 0" "--endpoints ftp://x" "--name a/b" \
	    "--prefix nokey" "--frobnicate" "extra"; do
	# shellcheck disable=SC2086
	timeout 5 "$qosd" $args > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ "$rc" -eq 2 ] && grep -q "^nvmet-qosd: ." "$tmp/err"; then
		ok "bad usage \"$args\" exits 2 with a reason"
	else
		nok "bad usage \"$args\" exits 2 with a reason" "status $rc: $(cat "$tmp/err")"
	fi
done
"$qosd" --help > "$tmp/out"
check "--help prints the usage" grep -q "^Usage: nvmet-qosd" "$tmp/out"

ktap_end
