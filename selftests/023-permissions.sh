#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Who may do what. An unprivileged user (setpriv --reuid=65534
# --clear-groups) is refused every change with EPERM and a clear message,
# through the tool and raw, and nothing changes; reads and the monitor
# work for them. From a network namespace other than the initial one the
# family does not exist at all, for reading or changing.
. "$(dirname "$0")/lib.sh"
nq_require python3 setpriv ip

NLRAW="python3 $(cd "$(dirname "$0")" && pwd)/nlraw.py"
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
NQN=nqn.2026-11.io.nvmet-qos:perm
NS=nq-perm-$$

nq_load_qos
nq_ctl class add gold --share 300 --max 10M
nq_ctl host assign "$NQN" gold --weight 7
nq_ctl device set 8:0 --capacity 2G
trap 'ip netns del $NS 2>/dev/null; nq_cleanup' EXIT

before=$(nq_policy_state)
cluster_before=$("$NQ_CTL" cluster show --json)

# Through the tool: exit 1, the reason on one line.
for cmd in "class add silver" "class set gold --share 1" "class del gold" \
	   "host assign $NQN default" "host weight $NQN 1" "host unassign $NQN" \
	   "device set 8:0 --capacity 0" "cluster set fallback --note x"; do
	# shellcheck disable=SC2086
	err=$($NOBODY "$NQ_CTL" $cmd 2>&1)
	rc=$?
	[ "$rc" -eq 1 ] || fail "unprivileged '$cmd': exit $rc, want 1"
	[[ $err == "nvmet-qos: Operation not permitted (changes need CAP_NET_ADMIN)" ]] ||
		fail "unprivileged '$cmd': message: $err"
done

# Raw, every change command, with valid attributes.
for req in "CLASS_NEW CLASS_NAME=str:silver" \
	   "CLASS_SET CLASS_NAME=str:gold CLASS_SHARE=u32:1" \
	   "CLASS_DEL CLASS_NAME=str:gold" \
	   "HOST_SET HOST_NQN=str:$NQN HOST_WEIGHT=u32:1" \
	   "HOST_DEL HOST_NQN=str:$NQN" \
	   "DEV_SET DEV_ID=u32:$((8 << 20)) DEV_IO_COST=u32:1" \
	   "CLUSTER_SET CLUSTER_STATE=u32:2"; do
	# shellcheck disable=SC2086
	out=$($NOBODY $NLRAW $req)
	[[ $out == "error EPERM"* ]] || fail "unprivileged raw $req: $out"
done

[ "$(nq_policy_state)" = "$before" ] || fail "a refused change changed the policy"
[ "$("$NQ_CTL" cluster show --json)" = "$cluster_before" ] ||
	fail "a refused change changed the cluster state: $("$NQ_CTL" cluster show --json)"

# Reads work unprivileged.
for cmd in "class list" "class show gold" "host list" "host show $NQN" \
	   "device list" "stats" "stats --json" "stats --prometheus" \
	   "cluster show" "cluster show --json"; do
	# shellcheck disable=SC2086
	$NOBODY "$NQ_CTL" $cmd > /dev/null 2> "$NQ_WORK/err" ||
		fail "unprivileged '$cmd' failed: $(cat "$NQ_WORK/err")"
done
$NOBODY "$NQ_CTL" host show "$NQN" --json | grep -q '"class":"gold","weight":7' ||
	fail "unprivileged read does not show the host"

# Another network namespace: the family is not there, even for root.
ip netns add "$NS" || die "cannot create a network namespace"
err=$(ip netns exec "$NS" "$NQ_CTL" class list 2>&1)
rc=$?
log "from $NS: exit $rc: $err"
[ "$rc" -eq 1 ] || fail "class list from another netns: exit $rc, want 1"
[[ $err == *'family "nvmet_qos" not found'* ]] || fail "class list from another netns: $err"
err=$(ip netns exec "$NS" "$NQ_CTL" class add silver 2>&1)
[[ $err == *'family "nvmet_qos" not found'* ]] || fail "class add from another netns: $err"
err=$(ip netns exec "$NS" $NLRAW CLASS_NEW CLASS_NAME=str:silver 2>&1)
[[ $err == *"family nvmet_qos not found"* ]] || fail "raw request from another netns: $err"
[ "$(nq_policy_state)" = "$before" ] || fail "the policy changed"

nq_finish
