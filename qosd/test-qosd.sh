#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nvmet-qosd against a real etcd cluster of three members on loopback
# (scripts/etcd-cluster): three heads follow one policy key; a change
# reaches every head within a second; a malformed policy is refused with
# the tool's reason and the last good one kept; a head rides out a dead
# member and a dead cluster; a stopped head's status goes with its
# lease. Prints KTAP.
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
n=0 failed=0

cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
	wait 2> /dev/null
	"$cluster" stop "$tmp/etcd" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

for t in etcd etcdctl; do
	command -v $t > /dev/null || { echo "1..0 # SKIP no $t (Debian's etcd-server, etcd-client)"; exit 4; }
done
[ -x "$ctl" ] || { echo "test-qosd: build ctl/ first" >&2; exit 1; }

exec 3>&1 > "$tmp/ktap"

ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n - $1"
	shift
	[ $# -gt 0 ] && printf '# %s\n' "$@"
}
check() { local name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }

# The stand-in for "nvmet-qos restore -": the real tool's checks, then a
# record of the policy instead of the kernel.
cat > "$tmp/tool" <<EOF
#!/bin/bash
[ "\$1 \$2" = "restore -" ] || exit 2
cat > "\$0.\$\$.in"
"$ctl" restore --check - < "\$0.\$\$.in" || { rm -f "\$0.\$\$.in"; exit 1; }
mv "\$0.\$\$.in" "\$0.applied"
date +%s.%N > "\$0.when"
echo "restored <stdin>: recorded"
EOF

urls=$("$cluster" start "$tmp/etcd" 3 "$port") || { echo "1..0 # SKIP etcd would not start" >&3; exit 4; }
ec() { etcdctl --endpoints "$urls" "$@"; }

start_head() {
	local h=$1
	mkdir -p "$tmp/$h"
	cp "$tmp/tool" "$tmp/$h/tool"
	chmod +x "$tmp/$h/tool"
	"$qosd" --endpoints "$urls" --name "$h" --interval 0.5 --tool "$tmp/$h/tool" \
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

put_policy() { local t; t=$(date +%s.%N); ec put /nvmet-qos/policy "$1" > /dev/null; echo "$t"; }

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
rev=$(ec get /nvmet-qos/policy -w json | python3 -c 'import json,sys; print(json.load(sys.stdin)["kvs"][0]["mod_revision"])')
sleep 0.6
st=$(ec get --prefix /nvmet-qos/heads/ --print-value-only)
[ "$(grep -c "\"applied_revision\":$rev," <<< "$st")" -eq 3 ] &&
	ok "each head publishes the revision it applied ($rev)" ||
	nok "each head publishes the revision it applied ($rev)" "$st"

# 3. A malformed policy: refused with the tool's reason, the last kept.
ec put /nvmet-qos/policy '{"version": 1, "classes": [{"name": "training", "share": "lots"}]}' > /dev/null
bad=$(ec get /nvmet-qos/policy -w json | python3 -c 'import json,sys; print(json.load(sys.stdin)["kvs"][0]["mod_revision"])')
sleep 1
for h in "${heads[@]}"; do
	grep -q "refused the policy of revision $bad, keeping revision $rev: .*share" "$tmp/$h/log" || break
done
check "a malformed policy is refused with a log line naming its revision and fault" \
	grep -q "refused the policy of revision $bad, keeping revision $rev: .*share" "$tmp/h3/log"
grep -m1 "refused" "$tmp/h1/log" | sed 's/^/# /'
check "after a refusal every head keeps the last good policy" \
	grep -q '"share": 35,' "$tmp/h1/tool.applied" "$tmp/h2/tool.applied" "$tmp/h3/tool.applied"
st=$(ec get /nvmet-qos/heads/h2 --print-value-only)
check "the status says what was refused and why" \
	grep -q "\"applied_revision\":$rev,\"refused_revision\":$bad,\"refused_why\":\".*share" <<< "$st"
ec put /nvmet-qos/policy 'not json at all' > /dev/null
sleep 0.6
check "text that is not JSON is refused too" grep -q "refused .*: .*<stdin>" "$tmp/h1/log"
t=$(wait_applied 40 "$(put_policy "$(policy 40)")")
check "a good policy after bad ones is applied (${t} s)" awk -v w="$t" 'BEGIN { exit !(w < 1) }'

# 4. The member a head talks to first dies: changes still arrive.
"$cluster" stop "$tmp/etcd" 0
t=$(wait_applied 41 "$(put_policy "$(policy 41)")")
echo "# member 0 stopped: a change reached every head in ${t} s"
check "with one member of three dead, a change is applied within 2 s (${t} s)" \
	awk -v w="$t" 'BEGIN { exit !(w < 2) }'
"$cluster" restart "$tmp/etcd" 0

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
check "a stopped head's status is removed" \
	[ -z "$(ec get /nvmet-qos/heads/h1 --keys-only)" ]

# 7. Bad options: a clear error, nothing started.
for args in "--interval 0" "--interval x" "--endpoints ftp://x" "--name a/b" \
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

exec 1>&3
echo "TAP version 13"
echo "1..$n"
cat "$tmp/ktap"
[ "$failed" -eq 0 ]
