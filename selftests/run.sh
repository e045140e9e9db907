#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [TEST...]: run the kernel selftests inside the test VM and print
# KTAP. Each test is a numbered script (NNN-name.sh) run in its own
# process; after each one the kernel log is scanned for warnings, BUGs,
# oopses, lockdep and KASAN reports, and a test that left one fails. The
# log of boot is scanned first, as a result of its own ("boot").
# On a kernel with kmemleak (make check-debug), a last test scans for
# leaks: every object the suite left unreferenced fails it.
# NQ_NAME_PREFIX goes before every result's name (scripts/check names
# each kernel's results after it). Exits non-zero if any test failed.

cd "$(dirname "$0")" || exit 1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

TEST_TIMEOUT=${NQ_TEST_TIMEOUT:-600}
SPLAT='WARNING:|BUG:|ODEBUG:|Oops|general protection fault|lockdep|KASAN|UBSAN|kernel BUG|possible circular locking|INFO: task .* blocked|hung_task|Call Trace:|RCU stall|refcount_t:'

# What a QoS bug looks like from a host, in the kernel log of the VM's
# hosts and target alike: a host's I/O timing out, a host recovering or
# resetting its controller, a keep-alive lost on either side. Each fails
# the test that caused it, unless the test cuts hosts off on purpose and
# says so with a "# Host recovery: REASON" line; then it is shown. A test
# whose own step makes one kind of line (047: nvmet ends a controller
# whose host failed to authenticate) names it in a "# Expected host
# fault: EREGEX" line: those are shown and counted, the others still fail
# it.
HOSTFAULT='nvme nvme[0-9]+: .*( timeout$|: timeout request)|nvme nvme[0-9]+: (starting error recovery|resetting controller|Reconnecting in|Failed reconnect|failed nvme_keep_alive|keep-alive failed)|nvmet: ctrl [0-9]+ (keep-alive timer .* expired|fatal error)'

# Two reports come from Debian 6.1 itself, with or without nvmet-qos,
# and are shown but do not fail a test; every other splat does.
# - null_blk (the test device) races its own bandwidth timer: a submission
#   re-arms bw_timer while nullb_bwtimer_fn runs on another CPU, and
#   hrtimer_forward() warns (the timer interrupt's first frame is
#   nullb_bwtimer_fn).
# - On a lockdep kernel (make check-debug) over rdma, nvmet-rdma runs a
#   command that came before its queue's ESTABLISHED event from the CM
#   handler, under rdma_cm's handler_mutex: an I/O queue's connect takes
#   nvmet_config_sem (nvmet_find_get_subsys). Removing the port takes the
#   two the other way round (nvmet_port_subsys_drop_link, then
#   rdma_destroy_id), so lockdep reports the pair when the port goes:
#   nvmet_rdma_cm_handler on one side, nvmet_rdma_disable_port on the
#   other, and no frame of ours. It needs hosts reconnecting to a starved
#   target (keep-alives expiring over soft-RoCE on the debug kernel), and
#   shows there with nvmet-qos never loaded.
# known_splats: the kernel log on stdin less those reports.
known_splats() {
	awk '
	function done_blk() {
		printf "%s", known ? "" : blk
		inblk = 0
	}
	/WARNING: .*hrtimer_forward/ { blk = $0 "\n"; inblk = 1; irq = 0; known = 0; next }
	/WARNING: possible circular locking dependency detected/ {
		blk = $0 "\n"; inblk = 2; known = 0; ours = 0
		cfg = 0; cm = 0; port = 0; next
	}
	inblk == 1 {
		blk = blk $0 "\n"
		if (irq == 1) { known = ($0 ~ /nullb_bwtimer_fn\+/); irq = 2 }
		if ($0 ~ /<IRQ>/ && !irq) irq = 1
		if ($0 ~ /---\[ end trace/) done_blk()
		next
	}
	inblk == 2 {
		blk = blk $0 "\n"
		if ($0 ~ /\(nvmet_config_sem\)/) cfg = 1
		if ($0 ~ /nvmet_rdma_cm_handler\+/) cm = 1
		if ($0 ~ /nvmet_rdma_disable_port\+/) port = 1
		if ($0 ~ /nvmet_qos/) ours = 1
		if ($0 ~ /<\/TASK>/) {
			known = cfg && cm && port && !ours
			done_blk()
		}
		next
	}
	{ print }
	END { if (inblk && !known) printf "%s", blk }'
}

# One leak comes from Debian 6.1's nvmet too: a command for a disabled
# namespace takes a reference on its configfs item that nvmet never
# drops (nvmet_subsys_nsid_exists()), so removing that namespace leaks
# its struct nvmet_ns and device_path. 031-nvmet-ns-leak shows it with
# nvmet-qos not loaded. 025 disables a namespace under I/O and meets it.
# unknown_leaks: kmemleak's report on stdin less those two objects.
unknown_leaks() {
	awk '
	function done_obj() {
		if (obj != "" && !(obj ~ /nvmet_ns_alloc\+/ && obj ~ /nvmet_ns_make\+/) &&
		    obj !~ /nvmet_ns_device_path_store\+/)
			printf "%s", obj
		obj = ""
	}
	/^unreferenced object/ { done_obj() }
	{ obj = obj $0 "\n" }
	END { done_obj() }'
}

# klog_check NAME [BANNER [RECOVERY [EXPECTED]]]: read and clear the
# kernel log, which NAME left, less lines matching the extended regex
# BANNER. Known reports are named; any other is shown and fails NAME
# (returns 1), and so does a host fault (HOSTFAULT) unless RECOVERY says
# why NAME causes them, or it matches the extended regex EXPECTED.
klog_check() {
	local klog unknown faults expected=""
	klog=$(dmesg -c)
	[ -n "${2:-}" ] && klog=$(grep -Ev "$2" <<<"$klog")
	KLOG=$klog
	unknown=$(known_splats <<<"$klog")
	if grep -Eq "$SPLAT" <<<"$unknown"; then
		echo "# kernel log of $1:"
		grep -E -A 40 "$SPLAT" <<<"$klog" | head -n 80 | sed 's/^/#   /'
		return 1
	fi
	faults=$(grep -E "$HOSTFAULT" <<<"$klog")
	if [ -n "${4:-}" ] && [ -n "$faults" ]; then
		expected=$(grep -E "$4" <<<"$faults")
		faults=$(grep -Ev "$4" <<<"$faults")
	fi
	[ -z "$expected" ] ||
		echo "# kernel log of $1: $(wc -l <<<"$expected") host fault line(s) the test expects: $(head -n 1 <<<"$expected")"
	if [ -n "$faults" ] && [ -z "${3:-}" ]; then
		echo "# kernel log of $1: a host timed out, recovered or lost its keep-alive:"
		head -n 20 <<<"$faults" | sed 's/^/#   /'
		return 1
	fi
	[ -n "$faults" ] &&
		echo "# kernel log of $1: $(wc -l <<<"$faults") lines of host recovery, which the test causes ($3)"
	grep -q "nullb_bwtimer_fn" <<<"$klog" &&
		echo "# kernel log of $1: null_blk's bandwidth-timer race (a Debian 6.1 null_blk bug, not nvmet-qos); not counted"
	grep -q "nvmet_rdma_disable_port+" <<<"$klog" &&
		echo "# kernel log of $1: lockdep's report on nvmet_config_sem and rdma_cm's handler_mutex (Debian 6.1 nvmet-rdma, not nvmet-qos); not counted"
	return 0
}

# klog_transport NAME: after a failed test, the last lines the transports,
# the hosts and the device left in its kernel log (KLOG, from klog_check).
# They are no report, but they tell a stall from a failure: an I/O
# timeout, a controller reset, a reconnect.
klog_transport() {
	local lines
	lines=$(grep -Ei 'nvme|rdma|rxe|null_?b|blk_update_request|I/O error' <<<"$KLOG" | tail -n 40)
	[ -n "$lines" ] || return 0
	echo "# kernel log of $1, its transport and device lines:"
	sed 's/^/#   /' <<<"$lines"
}

# lockdep_on: lockdep still checks; it turns itself off after its first
# report, known or not.
lockdep_on() {
	grep -Eq 'debug_locks: +1' /proc/lockdep_stats 2>/dev/null
}

# Tests with a "# Boot: icount" line read what work costs off a clock
# that counts instructions (scripts/vm --icount, which puts nq.icount=1
# on the command line); tests with a "# Boot: nvme N" line export
# emulated NVMe drives (scripts/vm --nvme N: nq.nvme=N). Each runs only
# in a boot of its kind, the others only in a plain one (scripts/check
# boots each kind for its tests).
if [ $# -gt 0 ]; then
	tests=("$@")
else
	tests=()
	kind=
	grep -qw nq.icount=1 /proc/cmdline && kind=icount
	grep -qw 'nq.nvme=[0-9]*' /proc/cmdline && kind=nvme
	for t in [0-9][0-9][0-9]-*.sh; do
		[ "$(sed -n 's/^# Boot: \([a-z]*\).*/\1/p' "$t")" = "$kind" ] && tests+=("$t")
	done
fi

# The transport matrix (./transports): a test runs once for each
# transport it supports and NQ_TRTYPES asks for, with NQ_TRTYPE set; runs
# other than tcp are named "NNN-name (rdma)". NQ_TRTYPES=tcp leaves the
# rdma runs out.
runs=()
while read -r t tr; do
	runs+=("$t:$tr")
done < <(./transports "${tests[@]}")

plan=$((${#runs[@]} + 1))
KMEMLEAK=/sys/kernel/debug/kmemleak
[ -w "$KMEMLEAK" ] && plan=$((plan + 1))

# kmemleak_scan: scan twice, as an object whose last reference was in a
# register or moving between lists can look lost once; print what stays.
kmemleak_scan() {
	echo scan > "$KMEMLEAK"
	sleep 5
	echo scan > "$KMEMLEAK"
	cat "$KMEMLEAK"
}

ip link set lo up
# What boot left unreferenced is not the suite's: report it, then clear.
# kmemleak's own thread, which scans a minute after boot and then every
# ten, is stopped: the suite scans when it checks. On the debug kernel
# under TCG a scan runs for a minute or more, yielding only through
# cond_resched(), which is no quiescent state for Tasks RCU: a grace
# period waits for the whole scan. Unloading nvmet-qos waits for a
# Tasks RCU grace period: delete_module took 95.6 s while that thread
# scanned, 1.8 s the next time with the thread asleep.
if [ -w "$KMEMLEAK" ]; then
	echo scan=off > "$KMEMLEAK"
	boot_leaks=$(kmemleak_scan | grep -c '^unreferenced object')
	echo clear > "$KMEMLEAK"
fi
lockdep=none
lockdep_on && lockdep=on
echo "KTAP version 1"
echo "1..$plan"

# A report while the kernel boots (in the kernel itself, or from how the
# VM runs it) is no test's, but would otherwise go unseen. A lockdep
# kernel's RCU banner says "lockdep" without reporting anything.
n=1 failed=0 pfx=${NQ_NAME_PREFIX:-}
echo "# --- ${pfx}boot"
if klog_check boot '^\[ *[0-9.]+\] rcu:[[:space:]]+RCU lockdep checking is enabled\.$'; then
	echo "ok $n ${pfx}boot # kernel log clean"
else
	echo "not ok $n ${pfx}boot # a report in the kernel log"
	failed=1
fi
for run in "${runs[@]}"; do
	t=${run%:*} tr=${run##*:}
	n=$((n + 1))
	name=$pfx${t%.sh}
	[ "$tr" = tcp ] || name="$name ($tr)"
	echo "# --- $name"
	start=$(date +%s)
	out=$(NQ_TRTYPE=$tr timeout -k 10 "$TEST_TIMEOUT" bash "./$t" 2>&1)
	rc=$?
	secs=$(($(date +%s) - start))
	echo "$out" | sed 's/^\([^#]\)/# \1/'
	klog_check "$name" "" "$(sed -n 's/^# Host recovery: //p' "$t" | head -n 1)" \
		"$(sed -n 's/^# Expected host fault: //p' "$t" | head -n 1)" || rc=1
	if [ "$lockdep" = on ] && ! lockdep_on; then
		lockdep=off
		echo "# lockdep turned itself off during $name: the rest of this boot runs without lock checking"
	fi
	case $rc in
	0) echo "ok $n $name # time=${secs}s" ;;
	4) reason=$(echo "$out" | sed -n 's/^# SKIP: //p' | tail -n 1)
	   echo "ok $n $name # SKIP ${reason:-no reason given}" ;;
	124) echo "not ok $n $name # TIMEOUT after ${TEST_TIMEOUT}s"; failed=$((failed + 1))
	     klog_transport "$name" ;;
	*) echo "not ok $n $name # exit=$rc time=${secs}s"; failed=$((failed + 1))
	   klog_transport "$name" ;;
	esac
done

# Said at the end, so that a run shows its tests' teardowns were checked.
[ "$lockdep" = on ] && echo "# lockdep still on at the end of this boot: every test above ran with lock checking"

if [ -w "$KMEMLEAK" ]; then
	n=$((n + 1))
	echo "# --- kmemleak (boot left $boot_leaks suspects, cleared)"
	leaks=$(kmemleak_scan)
	unknown=$(unknown_leaks <<< "$leaks")
	all=$(grep -c '^unreferenced object' <<< "$leaks")
	count=$(grep -c '^unreferenced object' <<< "$unknown")
	[ "$all" -gt "$count" ] &&
		echo "# kmemleak: $((all - count)) objects of namespaces Debian 6.1's nvmet leaks (see 031-nvmet-ns-leak); not counted"
	if [ "$count" -eq 0 ]; then
		echo "ok $n ${pfx}kmemleak # no leak after the suite"
	else
		echo "$unknown" | head -n 200 | sed 's/^/#   /'
		echo "not ok $n ${pfx}kmemleak # $count unreferenced objects after the suite"
		failed=$((failed + 1))
	fi
fi
exit $((failed > 0))
