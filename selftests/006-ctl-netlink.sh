#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The nvmet-qos tool against the real family: list and show agree with
# each other in table and JSON form, a rejection carries the kernel's
# extack message to the user, and bad input never reaches the kernel.
. "$(dirname "$0")/lib.sh"
nq_require nvme python3

nq_load_qos
nq_target_setup 100 128
d=$(nq_connect 1) || exit 1
dd if="$d" of=/dev/null bs=64k count=16 iflag=direct status=none || fail "read failed"
nqn=$(host_nqn 1)

list=$("$NQ_CTL" host list --json) || fail "host list --json failed"
show=$("$NQ_CTL" host show "$nqn" --json) || fail "host show --json failed"
python3 - "$list" "$show" "$nqn" <<'PY' || fail "list and show disagree"
import json, sys
hosts = json.loads(sys.argv[1])["hosts"]
one = json.loads(sys.argv[2])
mine = [h for h in hosts if h["nqn"] == sys.argv[3]]
assert len(mine) == 1, mine
assert mine[0]["read_bytes"] == one["read_bytes"] >= 16 * 65536, (mine, one)
assert set(one) >= {"nqn", "read_ios", "write_ios", "read_bytes", "write_bytes", "errors"}
PY
"$NQ_CTL" host list | grep -q "^$nqn " || fail "table does not list $nqn"

err=$("$NQ_CTL" host show nqn.2026-11.io.nvmet-qos:nobody 2>&1)
rc=$?
log "unknown host: exit $rc: $err"
[ "$rc" -eq 1 ] || fail "unknown host: exit $rc, want 1"
grep -q "no host with this NQN has connected or been assigned" <<<"$err" ||
	fail "the kernel's extack message did not reach the user"

long=nqn.$(printf 'x%.0s' $(seq 250))
err=$("$NQ_CTL" host show "$long" 2>&1)
rc=$?
log "over-long NQN: exit $rc: $err"
[ "$rc" -eq 2 ] || fail "over-long NQN: exit $rc, want 2"

err=$("$NQ_CTL" host frobnicate 2>&1)
[ $? -eq 2 ] || fail "unknown subcommand not a usage error: $err"

nq_finish
