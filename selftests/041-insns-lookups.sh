#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot: icount
#
# What a read costs does not grow with the devices the module schedules
# or the requests it holds. In a boot whose clock counts instructions
# (scripts/vm --icount; a guest nanosecond is one instruction), host 1
# reads 4 KiB at queue depth 1 for two runs of 1 s, and the mean
# instructions per read are compared (runs of one boot repeat to 0.2%,
# against bars of 2%; this boot took 362 s of "make check" with two runs
# a figure, 492 s with three):
# - devices: host 1 reads namespace 1 (its device the first the module
#   saw) and namespace 2 (its device seen after 1,000 others, which a raw
#   host read a block of each, selftests/nvmetcp.py); the second must
#   cost within 2% of the first. The module used to find a request's
#   device by walking a list of every device it had seen: 5,016
#   instructions more a read on the last of 1,002 (8.3%).
# - held requests: while 8 hosts of a class capped at 1 MB/s keep 64
#   requests held, then over a thousand (depth 8, then 127), host 1's
#   reads of namespace 2 (in a class never at a limit) must cost within
#   2% of each other.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

DEVICES=${NQ_DEVICES:-1000} CAPPED=8 SECS=1 RUNS=2
MANY=nqn.2026-11.io.nvmet-qos:many
grep -qw nq.icount=1 /proc/cmdline ||
	die "a boot whose clock counts instructions is needed (scripts/vm --icount; scripts/check boots one for this test)"

pids=()
# many add|remove: export null_blk's nullb0 to nullb<DEVICES - 1> as
# namespaces 1 to DEVICES of subsystem MANY, or take them away; in one
# process, as a thousand runs of mkdir take minutes in this boot.
many() {
	python3 - "$1" "/sys/kernel/config/nvmet/subsystems/$MANY" "$DEVICES" <<'PY'
import os, sys
what, subsys, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(1, n + 1):
    ns = "%s/namespaces/%d" % (subsys, i)
    if what == "add":
        os.mkdir(ns)
        open(ns + "/device_path", "w").write("/dev/nullb%d" % (i - 1))
        open(ns + "/enable", "w").write("1")
    elif os.path.isdir(ns):
        open(ns + "/enable", "w").write("0")
        os.rmdir(ns)
PY
}

# The subsystem of many devices, namespace 2 and their null_blks go
# before the test subsystem (nq_cleanup), which namespace 2 would keep.
cleanup() {
	local s=/sys/kernel/config/nvmet/subsystems
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	nvme disconnect -n "$NQ_SUBNQN" > /dev/null 2>&1
	nq_port2_teardown
	many remove
	rmdir "$s/$MANY" 2>/dev/null
	if [ -d "$s/$NQ_SUBNQN/namespaces/2" ]; then
		echo 0 > "$s/$NQ_SUBNQN/namespaces/2/enable"
		rmdir "$s/$NQ_SUBNQN/namespaces/2"
	fi
	nq_nullb_remove nqtest1
	nq_cleanup
	# the DEVICES null_blks of the module's parameter go with it
	modprobe -r null_blk
}
trap cleanup EXIT

# namespace SUBSYS NSID DEV: export /dev/DEV as namespace NSID of SUBSYS
namespace() {
	local n=/sys/kernel/config/nvmet/subsystems/$1/namespaces/$2
	mkdir "$n" && echo -n "/dev/$3" > "$n/device_path" && echo 1 > "$n/enable" ||
		die "cannot export /dev/$3 as namespace $2 of $1"
}

# null_blk makes the many devices itself (1 GB, not backed by memory);
# the test's own come from configfs (nq_nullb), as in every test.
modprobe -r null_blk 2>/dev/null
modprobe null_blk nr_devices="$DEVICES" gb=1 || die "modprobe null_blk nr_devices=$DEVICES failed"
nq_target_setup 0 1024
nq_nullb nqtest1 0 1024
namespace "$NQ_SUBNQN" 2 nqtest1
d1=$(nq_connect 1) || exit 1
d2=${d1%n1}n2
for _ in $(seq 50); do [ -b "$d2" ] && break; sleep 0.1; done
[ -b "$d2" ] || die "host 1 has no namespace 2 ($d2)"
# Loaded once the host has read its partition tables: namespace 1's
# device is the first the module sees.
nq_load_qos
dd if="$d1" of=/dev/null bs=4k count=1 iflag=direct status=none || die "cannot read $d1"

t0=$(date +%s)
mkdir "/sys/kernel/config/nvmet/subsystems/$MANY" || die "cannot create $MANY"
echo 1 > "/sys/kernel/config/nvmet/subsystems/$MANY/attr_allow_any_host"
many add || die "cannot export the $DEVICES devices"
log "$DEVICES devices exported in $(($(date +%s) - t0)) s"
nq_port2_setup
ln -s "/sys/kernel/config/nvmet/subsystems/$MANY" "$NQ_PORT2/subsystems/$MANY" ||
	die "cannot export $MANY"
python3 "$NQ_ROOT/selftests/nvmetcp.py" touch "$(host_addr 1)" 4421 "$MANY" \
	nqn.2026-11.io.nvmet-qos:raw 1 "$DEVICES" > "$NQ_WORK/touch" 2>&1 ||
	die "the raw host's reads failed: $(tail -c 300 "$NQ_WORK/touch")"
# namespace 2's device: the last
dd if="$d2" of=/dev/null bs=4k count=1 iflag=direct status=none || die "cannot read $d2"
log "$DEVICES more devices made and read in $(($(date +%s) - t0)) s: the module knows $("$NQ_CTL" device list | grep -c .) lines of devices"

# per_read NAME DEV: host 1's mean instructions per read of DEV over RUNS
# runs, the mean of their means (each logged)
per_read() {
	local r out sum=0
	for r in $(seq "$RUNS"); do
		out=$(python3 "$NQ_ROOT/bench/measure.py" insns "$SECS" "$2") ||
			{ fail "$1: the measurement failed"; echo 0; return; }
		log "$1, run $r, $(nq_held_total) held: $out" >&2
		[[ $out == *'"fio_errors": 0'* ]] || fail "$1: fio reported errors"
		sum=$((sum + $(sed -n 's/.*"mean": \([0-9]*\).*/\1/p' <<< "$out")))
	done
	echo $((sum / RUNS))
}

# judge WHAT A B: B instructions a read, under WHAT, within 2% of A
judge() {
	log "instructions per 4 KiB read of host 1: $2, and $3 $1 ($(pct $(($3 - $2)) "$2")% more)"
	if [ "$2" -le 0 ] || [ "$3" -le 0 ]; then
		fail "no figure measured"
	elif [ $(($3 * 100)) -gt $(($2 * 102)) ]; then
		fail "a read costs $(($3 - $2)) instructions more $1 (over 2%)"
	fi
}

first=$(per_read "namespace 1, the first device" "$d1")
last=$(per_read "namespace 2, the device after $DEVICES others" "$d2")
judge "on the device seen after $DEVICES others" "$first" "$last"

# await_held N: until at least N requests are held (60 s at most)
await_held() {
	local i
	for i in $(seq 300); do
		[ "$(nq_held_total)" -ge "$1" ] && return 0
		sleep 0.2
	done
	fail "fewer than $1 requests held after 60 s: $(nq_held_total)"
}

# capped QD: the capped hosts read 4 KiB at depth QD from now on, and
# hold about QD x CAPPED requests once they do
capped() {
	local h
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	pids=()
	for h in $(seq 2 $((CAPPED + 1))); do
		fio --name="capped$h" --filename="${devs[h - 2]}" --ioengine=libaio \
			--direct=1 --rw=randread --bs=4k --iodepth="$1" --size=128M \
			--time_based --runtime=3600 > /dev/null 2>&1 &
		pids+=($!)
	done
	await_held $(($1 * CAPPED * 9 / 10))
}

devs=()
for h in $(seq 2 $((CAPPED + 1))); do
	d=$(nq_connect "$h") || exit 1
	devs+=("${d%n1}n2")
done
nq_classes "prep --share 70" "capped --max 1M"
for h in $(seq 3 $((CAPPED + 1))); do nq_ctl host assign "$(host_nqn "$h")" capped; done
capped 8
few=$(per_read "64 held" "$d2")
capped 127
many=$(per_read "over 1000 held" "$d2")
judge "with over a thousand requests held than with 64" "$few" "$many"

kill "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null
pids=()
nq_check_balance
nq_finish
