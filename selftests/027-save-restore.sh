#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# save and restore of the whole policy: save -> restore -> save gives the
# same bytes, on the live module and on a freshly loaded one; restore
# undoes changes made since; a file with an error names its line and
# field and changes nothing; a file the kernel refuses halfway (more
# classes than the module holds) is rolled back to the policy before.
# A device's stripe (a null_blk "striped" over two others, which the
# kernel takes as it would an md array's drives) is saved by its
# members' names and restored with them.
. "$(dirname "$0")/lib.sh"
nq_require nvme python3

W=$NQ_WORK

# expect_fail NAME PATTERN CMD...: CMD exits 1 and its stderr matches.
expect_fail() {
	local name=$1 pat=$2 rc
	shift 2
	"$@" > "$W/out" 2> "$W/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$name: exit $rc, want 1"
	grep -Eq -- "$pat" "$W/err" || fail "$name: stderr lacks /$pat/: $(cat "$W/err")"
}

# same_state NAME BEFORE: the policy is still BEFORE.
same_state() {
	[ "$(nq_policy_state)" = "$2" ] || fail "$1: the policy changed"
}

cleanup() {
	nq_cleanup
	for b in nqst nqm0 nqm1; do nq_nullb_remove "$b"; done
}
trap cleanup EXIT

nq_target_setup 0 64
for b in nqst nqm0 nqm1; do nq_nullb "$b" 0 16; done
nq_load_qos
# A host that only connected is no policy and is not saved.
nq_connect 5 >/dev/null || exit 1

nq_ctl class add training --share 30 --max 2G --burst 64Mi --min-iops 100 --max-iops 50K
nq_ctl class add inference --share 70 --latency --min 100M
nq_ctl class add spare
nq_ctl class set default --share 10
nq_ctl host assign "$(host_nqn 1)" training
nq_ctl host assign "$(host_nqn 2)" inference --weight 300
nq_ctl host assign "$(host_nqn 3)" default --weight 50
nq_ctl device set "$NQ_NULLB" --write-cost 300 --io-cost 8Ki --capacity 200M
nq_ctl device set nqst --stripe 64Ki:nqm0,nqm1

# The bash completion names the live module's classes and hosts (the
# NQN's ':' is a word break, so only what follows the last ':' is offered).
complete_line() {
	local line=$1
	COMP_LINE=$line COMP_POINT=${#line}
	read -ra COMP_WORDS <<< "$line"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_WORDS[0]=$NQ_CTL
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	_nvmet_qos
	echo " ${COMPREPLY[*]} "
}
. "$NQ_ROOT/completion/nvmet-qos"
got=$(complete_line "nvmet-qos class set ")
[[ $got == *" training "* && $got == *" inference "* && $got == *" spare "* ]] ||
	fail "class names not completed:$got"
got=$(complete_line "nvmet-qos host show nqn.2026-11.io.nvmet-qos:host")
[[ $got == *" host1 "* && $got == *" host5 "* ]] || fail "host NQNs not completed:$got"

"$NQ_CTL" save "$W/a.json" || die "save failed"
[ "$(stat -c %a "$W/a.json")" = 644 ] || fail "saved file has mode $(stat -c %a "$W/a.json")"
python3 - "$W/a.json" "$(host_nqn 5)" "$NQ_NULLB" <<'EOF' || fail "the saved file is not the policy set"
import json, sys
p = json.load(open(sys.argv[1]))
classes = {c["name"]: c for c in p["classes"]}
assert [c["name"] for c in p["classes"]] == ["default", "inference", "spare", "training"], classes
t = classes["training"]
assert (t["share"], t["max_bps"], t["burst"], t["min_iops"], t["max_iops"]) == \
       (30, 2000000000, 64 << 20, 100, 50000), t
assert classes["inference"]["latency"] and classes["inference"]["min_bps"] == 100000000
assert classes["default"]["share"] == 10
hosts = {h["nqn"]: (h["class"], h["weight"]) for h in p["hosts"]}
assert sys.argv[2] not in hosts, "a host that only connected was saved"
assert sorted(hosts.values()) == [("default", 50), ("inference", 300), ("training", 100)], hosts
devs = {d["name"]: d for d in p["devices"]}
assert devs == {sys.argv[3]: {"name": sys.argv[3], "write_cost": 300, "io_cost": 8192,
                              "capacity": 200000000},
                "nqst": {"name": "nqst", "write_cost": 200, "io_cost": 4096,
                         "capacity": 0, "stripe_chunk": 65536,
                         "stripe_members": ["nqm0", "nqm1"]}}, p["devices"]
EOF
sed 's/^/#   /' "$W/a.json" | head -n 20

out=$("$NQ_CTL" restore "$W/a.json") || fail "restore of the live policy failed"
echo "$out" | grep -q '; 0 changes$' || fail "restore of the live policy changed something: $out"

# Changes of every kind, then back to the file.
nq_ctl class del spare
nq_ctl class add extra --share 5
nq_ctl class set training --share 31 --max 0 --burst 0
nq_ctl host unassign "$(host_nqn 1)"
nq_ctl host assign "$(host_nqn 4)" extra
nq_ctl device set "$NQ_NULLB" --write-cost 200 --io-cost 4096 --capacity 0
nq_ctl device set nqst --stripe 64Ki:nqm1,nqm0
"$NQ_CTL" restore --dry-run "$W/a.json" > "$W/dry" || fail "restore --dry-run failed"
log "dry run: $(paste -sd ';' "$W/dry")"
[ "$(wc -l < "$W/dry")" -ge 7 ] || fail "the dry run lists $(wc -l < "$W/dry") changes, want 7 or more"
"$NQ_CTL" save "$W/changed.json"
cmp -s "$W/a.json" "$W/changed.json" && fail "the policy did not change"
"$NQ_CTL" restore "$W/a.json" | sed 's/^/# /'
"$NQ_CTL" save "$W/b.json"
cmp "$W/a.json" "$W/b.json" >/dev/null || fail "save after restore differs: $(diff "$W/a.json" "$W/b.json" | head -n 10)"

# A freshly loaded module: the file is the whole policy.
nvme disconnect -n "$NQ_SUBNQN" >/dev/null
nq_unload_qos || die "rmmod failed"
nq_load_qos
"$NQ_CTL" restore - < "$W/a.json" | sed 's/^/# /'
"$NQ_CTL" save > "$W/c.json"
cmp "$W/a.json" "$W/c.json" >/dev/null || fail "save -> restore on a new module -> save differs: $(diff "$W/a.json" "$W/c.json" | head -n 10)"

# An error in the last entry: named by line and field, nothing changed.
before=$(nq_policy_state)
python3 - "$W/a.json" > "$W/bad.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
p["hosts"][-1]["class"] = "nosuch"
p["classes"].append({"name": "late", "share": 1})
print(json.dumps(p, indent=2))
EOF
line=$(grep -n '"nosuch"' "$W/bad.json" | cut -d: -f1)
expect_fail bad_file "bad.json:$line: hosts\[2\]\.class: no class \"nosuch\" in this file" \
	"$NQ_CTL" restore "$W/bad.json"
same_state bad_file "$before"

# The kernel refuses the 64th class; what was done is undone.
python3 - "$W/a.json" > "$W/many.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
p["classes"] += [{"name": "c%02d" % i, "share": i + 1} for i in range(64)]
p["hosts"][0]["class"] = "c63"
print(json.dumps(p, indent=2))
EOF
expect_fail too_many "too many classes" "$NQ_CTL" restore "$W/many.json"
grep -q "the policy was put back as it was; nothing changed" "$W/err" ||
	fail "too_many: no word of the roll back: $(cat "$W/err")"
same_state too_many "$before"
log "refused: $(head -n 1 "$W/err")"

# Without the module, a file can still be checked.
nq_unload_qos || die "rmmod failed"
"$NQ_CTL" restore --check "$W/a.json" | sed 's/^/# /'
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "restore --check needs the module"

nq_finish
