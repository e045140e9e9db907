#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad input to the tool, against the live module: malformed rates and
# sizes, unknown classes and devices, over-long, empty or non-printable
# NQNs and names, zero and overflowing values. Each gets one line on
# stderr starting "nvmet-qos: ", nothing on stdout, exit 2 when the tool's
# own checks stop it (nothing sent) or 1 when the kernel refuses it, and
# the policy is unchanged afterwards.
. "$(dirname "$0")/lib.sh"
nq_require python3

NQN=nqn.2026-11.io.nvmet-qos:input
LONG=nqn.$(printf 'x%.0s' $(seq 219))

nq_load_qos
nq_ctl class add gold --share 300 --max 10M
nq_ctl host assign "$NQN" gold
nq_ctl device set 8:0 --capacity 2G
before=$(nq_policy_state)
n=0

# bad WANT_RC ARGS...: the command fails as described above.
bad() {
	local want=$1 rc lines
	shift
	n=$((n + 1))
	"$NQ_CTL" "$@" > "$NQ_WORK/out" 2> "$NQ_WORK/err"
	rc=$?
	lines=$(wc -l < "$NQ_WORK/err")
	if [ "$rc" -ne "$want" ] || [ "$lines" -ne 1 ] || [ -s "$NQ_WORK/out" ] ||
	   ! grep -q '^nvmet-qos: ' "$NQ_WORK/err"; then
		fail "nvmet-qos $(printf '%q ' "$@"): exit $rc (want $want), $lines stderr lines: $(head -c 300 "$NQ_WORK/err")"
	fi
}

bad 2 class add 'bad name!'
bad 2 class add "$(printf 'c%.0s' $(seq 32))"
bad 2 class add ''
bad 2 class add x --share 0
bad 2 class add x --share 1001
bad 2 class add x --share 4294967297
bad 2 class add x --share ten
bad 2 class add x --max 10Q
bad 2 class add x --max -5M
bad 2 class add x --max 1.5
bad 2 class add x --max 99999999999999999999
bad 2 class add x --max 1025Ti
bad 2 class add x --min-iops 4KiB
bad 2 class add x --min 20M --max 10M
bad 2 class set gold
bad 1 class add gold
bad 1 class set nosuch --share 5
bad 1 class del nosuch
bad 1 class del default
bad 1 class show nosuch
bad 2 host assign "$LONG" gold
bad 2 host assign "$(printf 'nqn.a\001b')" gold
bad 2 host assign '' gold
bad 1 host assign "$NQN" nosuch
bad 2 host assign "$NQN" gold --weight 0
bad 2 host weight "$NQN" 1001
bad 2 host weight "$NQN" -1
bad 1 host unassign nqn.2026-11.io.nvmet-qos:never-seen
bad 2 device set 8:0
bad 2 device set 8:0 --write-cost 5
bad 2 device set 8:0 --write-cost 1001
bad 2 device set 8:0 --io-cost 2Mi
bad 2 device set 8:0 --capacity 500K
bad 2 device set 8:0 --capacity 2000T
bad 2 device set 4096:0 --capacity 1G
bad 2 device set /no/such/path --capacity 1G
bad 2 stats --watch 0
bad 2 stats --host "$LONG"
bad 2 monitor --count 0
log "$n bad inputs"

after=$(nq_policy_state)
[ "$after" = "$before" ] || fail "bad input changed the policy"

nq_finish
