#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hosts reassigned, shares changed and classes deleted every 10 ms for
# 60 s while three hosts run verified I/O with requests held back: fio sees
# no error, every request is accounted for, the kernel logs nothing. The
# changes go through one "nvmet-qos --batch", as a program started per
# change takes a quarter of a second under TCG.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

SECS=${NQ_CHURN_SECS:-60}

nq_target_setup 30 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1
d3=$(nq_connect 3) || exit 1

nq_load_qos
# Rounds of 3-4 changes, 10 ms apart, written to a pipe of one page so
# that the batch cannot fall more than about 100 changes behind: changes
# must happen during the I/O, not in a backlog after it. Many fail on
# purpose (adding a class that exists, changing one just deleted): the
# module must refuse those cleanly too.
churn() {
	python3 - "$NQ_WORK/churn" "$NQ_WORK/churn.lines" "$(host_nqn 1)" \
		"$(host_nqn 2)" "$(host_nqn 3)" <<'PY'
import fcntl, os, sys, time
flag, log, nqn = sys.argv[1], open(sys.argv[2], "w"), sys.argv[3:]
fcntl.fcntl(1, fcntl.F_SETPIPE_SZ, 4096)
i = 0
while os.path.exists(flag):
    i += 1
    cmds = ["class add c%d --share %d --max %d0M" % (i % 3, i % 9 + 1, i % 4 + 1),
            "host assign %s c%d" % (nqn[i % 3], i % 3),
            "class set c%d --share %d" % ((i + 1) % 3, i % 7 + 2)]
    if i % 5 == 0:
        cmds.append("class del c%d" % ((i + 2) % 3))
    text = "".join(c + "\n" for c in cmds)
    log.write(text)
    log.flush()
    os.write(1, text.encode())
    time.sleep(0.01)
PY
}
touch "$NQ_WORK/churn"
churn | "$NQ_CTL" --batch - --force > /dev/null 2> "$NQ_WORK/churn.err" &
cpid=$!
nq_fio_hosts churned "$SECS" "--rw=randrw --bs=64k --iodepth=16 --verify=crc32c \
	--verify_fatal=1 --verify_backlog=32" "$d1" "$d2" "$d3"
rm "$NQ_WORK/churn"
t0=$(date +%s%N)
wait $cpid
log "the batch ended $(nq_ms_since "$t0") ms after the I/O (its backlog)"
for h in 1 2 3; do
	[ "$(nq_fio_errors "$NQ_WORK/churned.$h.json")" -eq 0 ] || fail "fio of host $h saw errors"
done

# What the kernel took and refused, by kind of change: a churn that only
# ever failed would test nothing, and a refusal other than the two the
# churn provokes (the class exists, the class is gone) is a bug.
python3 - "$NQ_WORK/churn.lines" "$NQ_WORK/churn.err" "$SECS" <<'PY' || fail "the churn changed too little, or was refused for another reason"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
err = open(sys.argv[2]).read()
failed = {int(n) for n in re.findall(r"^nvmet-qos: <stdin>:(\d+): failed$", err, re.M)}
expected = ("nvmet-qos: a class with this name exists (File exists)",
            "nvmet-qos: no class with this name (No such file or directory)")
other = [l for l in err.splitlines()
         if l not in expected and not re.match(r"nvmet-qos: <stdin>:?", l)]
for l in sorted(set(other)):
    print("# unexpected: %s" % l)
kinds = {}
for n, line in enumerate(lines, 1):
    kind = " ".join(line.split()[:2])
    took, refused = kinds.get(kind, (0, 0))
    kinds[kind] = (took + (n not in failed), refused + (n in failed))
rounds = sum(1 for l in lines if l.startswith("class add"))
print("# %d rounds in %s s (one per %.1f ms), %d changes: %s" % (
    rounds, sys.argv[3], 1000.0 * int(sys.argv[3]) / max(rounds, 1), len(lines),
    ", ".join("%s %d taken, %d refused" % (k, t, r) for k, (t, r) in sorted(kinds.items()))))
sys.exit(0 if not other and len(kinds) == 4 and all(t > 0 for t, _ in kinds.values()) else 1)
PY
nq_check_balance

nq_finish
