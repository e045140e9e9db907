#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Cluster ceilings on four simulated heads against a real etcd cluster of
# three members on loopback. Each head is the real daemon (nvmet-qosd-sim:
# qosd.c, ceiling.c and slice.c as nvmet-qosd has them) over the module's
# scheduler core on a simulated device (simhead.c), run in step with the
# clock; each records what it delivered, which is what is judged.
#
# Class "training" has a cluster ceiling of 1 GB/s; the heads renew their
# slices every 0.5 s. Its demand is 2 GB/s, 90% of it on head 1, the rest
# spread over the others:
# - the cluster runs within 5% of the ceiling, head 1 the most of it;
# - the heads' slices add up to the ceiling;
# - the demand then moves to head 3: the cluster is back within 5% of the
#   ceiling within 2 s, and stays there;
# - one etcd member killed: the cluster stays within 5%, no head falls
#   back;
# - all of etcd gone for 30 s: every head keeps its slice while its
#   lease lives (the others still count it), then falls back to the
#   ceiling over the 4 heads (250 MB/s), says so once (in its log and to
#   its module, which hears member, fallback, member), and keeps
#   delivering (no window of 0.5 s without I/O on a head with demand);
#   with etcd back, the slices
#   come from demand again, the cluster is back within 5% of the ceiling
#   within 3 s and never above it by more than 5% (no burst);
# - a malformed ceilings key is refused with its reason, the slices kept;
# - with the ceilings key deleted, the class's own ceiling (none, in the
#   policy) is back: head 3 runs past 1 GB/s.
# And a policy applied again keeps the slices in force (the restore puts
# the policy's own ceiling back for a moment).
# Prints KTAP. Usage: test-heads.sh [path/to/nvmet-qosd-sim]
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
sim=$(realpath "${1:-$here/nvmet-qosd-sim}")
cluster=$here/../scripts/etcd-cluster
# etcd's data in memory where there is /dev/shm: a write waits for its
# fsync, and the time to re-converge is judged.
tmp=$(mktemp -d -p /dev/shm 2> /dev/null || mktemp -d) || exit 1
port=${QOSD_HEADS_PORT:-23810}
heads=(h1 h2 h3 h4)
logs=("${heads[@]/#/$tmp/}")
logs=("${logs[@]/%/.log}")
pids=()
CEIL=1000000000 BUSY=1800000000 IDLE=67000000

# shellcheck source=test-lib.sh
. "$here/test-lib.sh"

need etcd etcdctl python3

etcd_up "$port"

# rates FROM TO: windows of 0.5 s, "START CLUSTER H1..H4 CEIL1..CEIL4".
rates() {
	python3 "$here/heads-rates.py" "$1" "$2" 0.5 "${logs[@]}"
}
# show FILE: the windows, in MB/s, as comments.
show() {
	awk '{ printf "#   %7.1f s  cluster %5.0f MB/s  heads %4.0f %4.0f %4.0f %4.0f  ceilings %4.0f %4.0f %4.0f %4.0f\n",
		$1 - t0, $2 / 1e6, $3 / 1e6, $4 / 1e6, $5 / 1e6, $6 / 1e6, $7 / 1e6, $8 / 1e6, $9 / 1e6, $10 / 1e6 }' \
		t0="${2:-0}" "$1"
}
# within FILE: every window's cluster rate within 5% of the ceiling.
within() { awk -v c=$CEIL '$2 < 0.95 * c || $2 > 1.05 * c { bad = 1 } END { exit bad || NR == 0 }' "$1"; }
# demand HEAD BPS AT: from CLOCK_MONOTONIC second AT, the head's class asks for BPS.
demand() { echo "training $2 $3" > "$tmp/$1.tmp" && mv "$tmp/$1.tmp" "$tmp/$1"; }

ec put /nvmet-qos/policy '{"version": 1, "classes": [{"name": "training", "share": 100}]}' > /dev/null
ec put /nvmet-qos/ceilings '{"training": "1G"}' > /dev/null
now=$(mono)
for h in "${heads[@]}"; do
	demand "$h" "$([ "$h" = h1 ] && echo $BUSY || echo $IDLE)" "$now"
	"$sim" --endpoints "$urls" --name "$h" --interval 0.5 --tool "$tmp/$h" 2> "$tmp/$h.err" &
	pids+=($!)
done

# 1. The 90/10 skew, settled.
sleep 4
t=$(mono)
sleep 3
rates "$t" "$(mono)" > "$tmp/skew"
echo "# 90/10 skew of 2 GB/s against a 1 GB/s ceiling, 0.5 s windows:"
show "$tmp/skew" "$t"
check "90/10 skew: the cluster within 5% of the ceiling in every window" within "$tmp/skew"
check "90/10 skew: head 1 gets the rest after the others' demand (at least 70%)" \
	awk -v c=$CEIL '$3 < 0.7 * c { bad = 1 } END { exit bad || NR == 0 }' "$tmp/skew"
slices=0
for h in "${heads[@]}"; do
	s=$(ec get "/nvmet-qos/heads/$h" --print-value-only |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["classes"]["training"]["slice_bps"])' 2> /dev/null)
	slices=$((slices + ${s:-0}))
done
echo "# the heads' published slices add up to $slices bytes/s"
check "the slices add up to the ceiling (within 1%)" \
	awk -v s=$slices -v c=$CEIL 'BEGIN { exit !(s >= 0.99 * c && s <= 1.01 * c) }'

# 2. The demand moves from head 1 to head 3, at a moment unrelated to the
# heads' intervals.
shift_at=$(python3 -c "print('%.3f' % ($(mono) + 1.77))")
demand h1 $IDLE "$shift_at"
demand h3 $BUSY "$shift_at"
sleep 7
rates "$shift_at" "$(mono)" > "$tmp/shift"
echo "# the demand moved to head 3 at 0 s:"
show "$tmp/shift" "$shift_at"
# Re-converged: the end of the last window outside 5%.
back=$(awk -v c=$CEIL -v t0="$shift_at" '$2 < 0.95 * c || $2 > 1.05 * c { last = $1 + 0.5 - t0 } END { printf "%.1f", last }' "$tmp/shift")
echo "# back within 5% of the ceiling, for good, ${back} s after the shift"
check "after the shift the cluster is back within 5% of the ceiling within 2 s (${back} s)" \
	awk -v b="$back" 'BEGIN { exit !(b <= 2) }'
check "after the shift head 3 gets at least 70% of the ceiling" \
	awk -v c=$CEIL 'END { exit !($5 >= 0.7 * c) }' "$tmp/shift"

# A policy applied again (a new revision) puts the class's own ceiling,
# none, back in the module for a moment: the heads set their slices again
# at once, not at their next interval.
t=$(mono)
ec put /nvmet-qos/policy '{"version": 1, "classes": [{"name": "training", "share": 90}]}' > /dev/null
sleep 2
rates "$t" "$(mono)" > "$tmp/again"
echo "# the policy applied again at 0 s:"
show "$tmp/again" "$t"
check "a policy applied again leaves the slices in force (within 5% of the ceiling)" within "$tmp/again"

# 3. One member of three killed.
"$cluster" stop "$tmp/etcd" 0
sleep 1
t=$(mono)
sleep 3
rates "$t" "$(mono)" > "$tmp/member"
echo "# one etcd member of three killed:"
show "$tmp/member" "$t"
check "one member killed: the cluster stays within 5% of the ceiling" within "$tmp/member"
check "one member killed: no head falls back" \
	bash -c "! grep -q 'falls back' $tmp/h?.err"

# 4. All of etcd gone for 30 s.
gone=$(mono)
"$cluster" stop "$tmp/etcd"
sleep 30
restart_at=$(mono)
"$cluster" restart "$tmp/etcd" 0 1 2 || nok "etcd came back"
back_at=$(mono)
sleep 5
rates "$gone" "$restart_at" > "$tmp/gone"
rates "$restart_at" "$(mono)" > "$tmp/rejoin"
echo "# all of etcd gone from 0 s to $(awk -v a="$gone" -v b="$restart_at" 'BEGIN { printf "%.1f", b - a }') s:"
show "$tmp/gone" "$gone" | awk 'NR <= 6 || NR % 10 == 0'
falls=0
for h in "${heads[@]}"; do
	grep -q "etcd unreachable: class training falls back to 250000000 bytes/s, its cluster ceiling over the 4 head(s) last seen" \
		"$tmp/$h.err" && [ "$(grep -c 'falls back' "$tmp/$h.err")" = 1 ] && falls=$((falls + 1))
done
check "etcd gone: each head falls back to the ceiling over the 4 heads, and says so once ($falls of 4)" [ "$falls" = 4 ]
# A head keeps its slice while its lease lives (5 s: the other heads
# still count it), then falls back. From 7 s on every head runs under
# 250 MB/s and each head with demand delivers in every window: head 3
# its fallback slice, the others their 67 MB/s.
check "etcd gone: each head keeps its slice while its lease lives (4 s)" \
	awk -v t0="$gone" '$1 - t0 < 4 && $9 < 700e6 { bad = 1 } $1 - t0 < 4 { n++ } END { exit bad || n < 6 }' "$tmp/gone"
check "etcd gone: then every head under its fallback slice of 250 MB/s, none stalled" \
	awk -v t0="$gone" '$1 - t0 >= 7 {
		if ($7 != 250000000 || $8 != 250000000 || $9 != 250000000 || $10 != 250000000) bad = 1
		if ($5 < 0.9 * 250e6 || $5 > 1.05 * 250e6) bad = 1
		if ($3 < 0.9 * 67e6 || $4 < 0.9 * 67e6 || $6 < 0.9 * 67e6) bad = 1
		n++ } END { exit bad || n < 40 }' "$tmp/gone"
echo "# etcd started again at 0 s, answering at $(awk -v a="$restart_at" -v b="$back_at" 'BEGIN { printf "%.1f", b - a }') s:"
show "$tmp/rejoin" "$restart_at"
check "etcd back: every head says its slices come from demand again" \
	bash -c "[ \$(grep -l 'slices from the heads. demand' $tmp/h?.err | wc -l) = 4 ]"
told=0
for h in "${heads[@]}"; do
	# Said again at each recheck: the changes are what counts.
	[ "$(sed -n 's/^simulated module: cluster state \([a-z]*\): .*/\1/p' "$tmp/$h.err" | uniq | paste -sd ' ')" = "member fallback member" ] &&
		told=$((told + 1))
done
grep -m1 'cluster state fallback' "$tmp/h1.err" | sed 's/^/# /'
check "every head told its module member, fallback once etcd was gone, member again ($told of 4)" [ "$told" = 4 ]
check "etcd back: the cluster within 5% of the ceiling from 3 s on" \
	awk -v c=$CEIL -v t0="$back_at" '$1 - t0 >= 3 && ($2 < 0.95 * c || $2 > 1.05 * c) { bad = 1 } $1 - t0 >= 3 { n++ } END { exit bad || !n }' "$tmp/rejoin"
check "etcd back: no burst (no window above the ceiling by more than 5%)" \
	awk -v c=$CEIL '$2 > 1.05 * c { bad = 1 } END { exit bad || NR == 0 }' "$tmp/rejoin"

# 5. Malformed ceilings: refused, the slices kept.
ec put /nvmet-qos/ceilings '{"training": "fast"}' > /dev/null
sleep 1.5
t=$(mono)
sleep 1.5
rates "$t" "$(mono)" > "$tmp/bad"
refused=$(grep -l 'refused the cluster ceilings of revision [0-9]*, keeping the last ones: training: want a whole number' "$tmp"/h?.err | wc -l)
grep -m1 'refused the cluster ceilings' "$tmp/h1.err" | sed 's/^/# /'
check "a malformed ceilings key is refused by every head, naming the class ($refused of 4)" [ "$refused" = 4 ]
check "after the refusal the cluster is still within 5% of the ceiling" within "$tmp/bad"

# 6. The ceiling removed: the policy's own (none) is back.
ec del /nvmet-qos/ceilings > /dev/null
sleep 2
t=$(mono)
sleep 1.5
rates "$t" "$(mono)" > "$tmp/none"
show "$tmp/none" "$t"
check "with the ceilings deleted the class's own ceiling (none) is back: head 3 runs past 1 GB/s" \
	awk -v c=$CEIL '$5 < 1.1 * c || $9 != 0 { bad = 1 } END { exit bad || NR == 0 }' "$tmp/none"

alive=0
for i in "${!heads[@]}"; do
	kill -0 "${pids[$i]}" 2> /dev/null && alive=$((alive + 1))
done
check "every head ran to the end ($alive of 4)" [ "$alive" = 4 ]

ktap_end
