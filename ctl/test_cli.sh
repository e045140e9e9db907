#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Command-line tests of nvmet-qos that need no kernel module: help, version,
# usage errors and the "family not found" path. Prints KTAP.
# Usage: test_cli.sh [path/to/nvmet-qos]

prog=${1:-./nvmet-qos}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0

# run NAME WANT_RC WANT_STREAM PATTERN ARGS...: exit code and a grep -E
# pattern that the named stream (out|err) must match; the other must be empty.
run() {
	name=$1 want=$2 stream=$3 pat=$4
	shift 4
	n=$((n + 1))
	"$prog" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	other=err
	[ "$stream" = err ] && other=out
	if [ "$rc" -eq "$want" ] && grep -Eq -- "$pat" "$tmp/$stream" &&
	   [ ! -s "$tmp/$other" ]; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		echo "# rc=$rc (want $want), stdout/stderr:"
		sed 's/^/#   /' "$tmp/out" "$tmp/err"
		fail=$((fail + 1))
	fi
}

long=$(printf '%0222d' 0)

cat > "$tmp/good.json" <<'EOF'
{
  "version": 1,
  "classes": [ { "name": "gold", "share": 30, "max_bps": "2G" } ],
  "hosts": [ { "nqn": "nqn.a", "class": "gold" } ],
  "devices": [ { "name": "8:0", "capacity": "20G" } ]
}
EOF

# Results go to a file until the count is known, so the plan comes first
# without being kept up to date by hand.
exec 3>&1 >"$tmp/ktap"
run top_help_long	0 out '^Usage: nvmet-qos'		--help
run top_help_short	0 out '^Usage: nvmet-qos'		-h
run host_help		0 out '^Usage: nvmet-qos host COMMAND'	host --help
run host_help_short	0 out '^Usage: nvmet-qos host COMMAND'	host -h
run list_help		0 out '^Usage: nvmet-qos host list'	host list --help
run list_help_short	0 out '^Usage: nvmet-qos host list'	host list -h
run show_help		0 out '^Usage: nvmet-qos host show'	host show --help
run show_help_no_nqn	0 out '^Usage: nvmet-qos host show'	host show -h
run version		0 out '^nvmet-qos [0-9]'		--version
run no_args		2 err '^nvmet-qos: missing OBJECT'
run unknown_top_option	2 err "^nvmet-qos: unknown option '--bogus'"	--bogus
run unknown_object	2 err "^nvmet-qos: unknown object 'bogus'"	bogus
run missing_verb	2 err "^nvmet-qos: missing command after 'host'"	host
run unknown_verb	2 err "^nvmet-qos: unknown command 'host bogus'"	host bogus
run unknown_long_option	2 err "^nvmet-qos: unknown option '--bogus'"	host list --bogus
run unknown_short_option 2 err "^nvmet-qos: unknown option '-x'"	host list -x
run option_with_value	2 err "^nvmet-qos: option '--json' takes no argument" host list --json=1
run list_extra_arg	2 err "^nvmet-qos: host list: unexpected argument 'x'"	host list x
run show_missing_nqn	2 err '^nvmet-qos: host show: missing HOSTNQN'	host show --json
run show_extra_arg	2 err "^nvmet-qos: host show: unexpected argument 'b'"	host show a b
run show_nqn_223	2 err '^nvmet-qos: host NQN is 223 bytes long'	host show "${long}1"
run show_nqn_ctrl	2 err '^nvmet-qos: host NQN has a non-printable byte 0x0a'	host show "nqn.a
b"
run show_nqn_empty	2 err '^nvmet-qos: host NQN is empty'	host show ""

# Help of the newer objects and commands.
run class_help		0 out '^Usage: nvmet-qos class COMMAND'	class --help
run device_help		0 out '^Usage: nvmet-qos device COMMAND'	device -h
run top_help_lists_class 0 out '^  class add NAME'			--help
run top_help_lists_device 0 out '^  device list'			--help
run host_assign_help	0 out '^Usage: nvmet-qos host assign HOSTNQN CLASS' host assign --help
run host_weight_help	0 out '^Usage: nvmet-qos host weight HOSTNQN N'	host weight -h
run host_unassign_help	0 out '^Usage: nvmet-qos host unassign'	host unassign --help
run class_add_help	0 out '^Usage: nvmet-qos class add NAME'	class add --help
run class_set_help	0 out '^Usage: nvmet-qos class set NAME'	class set --help
run class_del_help	0 out '^Usage: nvmet-qos class del NAME'	class del --help
run class_list_help	0 out '^Usage: nvmet-qos class list'	class list --help
run cluster_show_help	0 out '^Usage: nvmet-qos cluster show'	cluster show --help
run cluster_set_help	0 out '^Usage: nvmet-qos cluster set STATE'	cluster set --help
run cluster_set_no_state	2 err '^nvmet-qos: cluster set: missing STATE'	cluster set
run cluster_set_bad_state	2 err "^nvmet-qos: invalid STATE 'up': want none, member or fallback"	cluster set up
run cluster_set_long_note	2 err '^nvmet-qos: --note: 256 bytes, more than 255'	cluster set member --note "$(printf '%0256d' 0)"
run cluster_set_extra	2 err "^nvmet-qos: cluster set: unexpected argument 'x'"	cluster set member x
run cluster_show_extra	2 err "^nvmet-qos: cluster show: unexpected argument 'x'"	cluster show x
run class_show_help	0 out '^Usage: nvmet-qos class show NAME'	class show -h
run device_list_help	0 out '^Usage: nvmet-qos device list'	device list --help
for verb in add set; do
	run class_${verb}_help_si	0 out '^K, M, G and T are powers of 1000' class $verb --help
	run class_${verb}_help_iec	0 out '^Ki, Mi, Gi and Ti are powers of 1024' class $verb --help
	run class_${verb}_help_per_dev 0 out 'per second per backing device' class $verb --help
done
run class_set_help_no_latency 0 out '--no-latency'		class set --help
run class_set_help_no_auth 0 out '--no-auth'		class set --help
run help_before_bad_value 0 out '^Usage: nvmet-qos class add'	class add x --share 0 --help

# Usage errors of the newer commands: exit 2, one line, nothing sent.
c32=abcdefghijklmnopqrstuvwxyz012345
run add_missing_name	2 err '^nvmet-qos: class add: missing NAME'	class add
run add_name_slash	2 err "^nvmet-qos: class name has an invalid character '/' at offset 1" class add a/b
run add_name_space	2 err "^nvmet-qos: class name has an invalid character ' '" class add "a b"
run add_name_ctrl	2 err '^nvmet-qos: class name has an invalid byte 0x1b' class add "$(printf 'a\033')"
run add_name_empty	2 err '^nvmet-qos: class name is empty'	class add ""
run add_name_32		2 err '^nvmet-qos: class name is 32 characters long, the maximum is 31' class add "$c32"
run add_extra_arg	2 err "^nvmet-qos: class add: unexpected argument 'b'" class add a b
run add_share_zero	2 err "^nvmet-qos: invalid --share '0': want an integer from 1 to 1000" class add a --share 0
run add_share_1001	2 err "^nvmet-qos: invalid --share '1001'"	class add a --share 1001
run add_share_negative	2 err "^nvmet-qos: invalid --share '-1'"	class add a --share -1
run add_share_garbage	2 err "^nvmet-qos: invalid --share '10x'"	class add a --share 10x
run add_share_suffix	2 err "^nvmet-qos: invalid --share '1K'"	class add a --share 1K
run add_share_overflow	2 err "^nvmet-qos: invalid --share '18446744073709551616'" class add a --share 18446744073709551616
run add_share_missing	2 err "^nvmet-qos: option '--share' needs an argument" class add a --share
run add_min_bits	2 err "^nvmet-qos: invalid --min '1Mb': want bytes per second" class add a --min 1Mb
run add_max_negative	2 err "^nvmet-qos: invalid --max '-1'"	class add a --max -1
run add_max_overflow	2 err "^nvmet-qos: invalid --max '18446744073709551616': too large" class add a --max 18446744073709551616
run add_burst_fraction	2 err "^nvmet-qos: invalid --burst '1.5'"	class add a --burst 1.5
run add_iops_binary	2 err "^nvmet-qos: invalid --min-iops '4Ki': want I/Os per second" class add a --min-iops 4Ki
run add_iops_bytes	2 err "^nvmet-qos: invalid --max-iops '4KB'"	class add a --max-iops 4KB
run add_min_above_max	2 err '^nvmet-qos: --min 200000000 is above --max 100000000' class add a --min 200M --max 100M
run add_iops_min_above	2 err '^nvmet-qos: --min-iops 2000 is above --max-iops 1000' class add a --min-iops 2K --max-iops 1K
run add_no_latency	2 err "^nvmet-qos: unknown option '--no-latency'" class add a --no-latency
run add_latency_value	2 err "^nvmet-qos: option '--latency' takes no argument" class add a --latency=1
run add_unknown_option	2 err "^nvmet-qos: unknown option '--bogus'"	class add a --bogus
run set_nothing		2 err '^nvmet-qos: class set: nothing to change'	class set a
run set_missing_name	2 err '^nvmet-qos: class set: missing NAME'	class set --share 5
run set_latency_both	2 err '^nvmet-qos: --latency and --no-latency exclude each other' class set a --latency --no-latency
run add_no_auth		2 err "^nvmet-qos: unknown option '--no-auth'" class add a --no-auth
run set_auth_both	2 err '^nvmet-qos: --auth and --no-auth exclude each other' class set a --auth --no-auth
run set_share_zero	2 err "^nvmet-qos: invalid --share '0'"	class set a --share 0
run del_missing_name	2 err '^nvmet-qos: class del: missing NAME'	class del
run del_bad_name	2 err '^nvmet-qos: class name has an invalid' class del 'a*'
run del_extra_arg	2 err "^nvmet-qos: class del: unexpected argument 'b'" class del a b
run del_unknown_option	2 err "^nvmet-qos: unknown option '--force'"	class del a --force
run class_list_extra	2 err "^nvmet-qos: class list: unexpected argument 'x'" class list x
run class_show_missing	2 err '^nvmet-qos: class show: missing NAME'	class show --json
run class_show_bad_name	2 err '^nvmet-qos: class name is 32 characters' class show "$c32"
run assign_missing_nqn	2 err '^nvmet-qos: host assign: missing HOSTNQN' host assign
run assign_missing_class 2 err '^nvmet-qos: host assign: missing CLASS'	host assign nqn.a
run assign_bad_class	2 err '^nvmet-qos: class name has an invalid character' host assign nqn.a 'go ld'
run assign_bad_nqn	2 err '^nvmet-qos: host NQN is 223 bytes long'	host assign "${long}1" gold
run assign_weight_zero	2 err "^nvmet-qos: invalid --weight '0': want an integer from 1 to 1000" host assign nqn.a gold --weight 0
run assign_weight_big	2 err "^nvmet-qos: invalid --weight '1001'"	host assign nqn.a gold --weight 1001
run assign_extra_arg	2 err "^nvmet-qos: host assign: unexpected argument 'x'" host assign nqn.a gold x
run weight_missing	2 err '^nvmet-qos: host weight: missing weight'	host weight nqn.a
run weight_garbage	2 err "^nvmet-qos: invalid weight '5x'"		host weight nqn.a 5x
run weight_zero		2 err "^nvmet-qos: invalid weight '0'"		host weight nqn.a 0
run weight_negative	2 err "^nvmet-qos: unknown option '-5'"		host weight nqn.a -5
run weight_extra_arg	2 err "^nvmet-qos: host weight: unexpected argument '6'" host weight nqn.a 5 6
run unassign_missing	2 err '^nvmet-qos: host unassign: missing HOSTNQN' host unassign
run unassign_empty	2 err '^nvmet-qos: host NQN is empty'		host unassign ""
run device_missing_verb	2 err "^nvmet-qos: missing command after 'device'" device
run device_unknown_verb	2 err "^nvmet-qos: unknown command 'device show'" device show
run device_extra_arg	2 err "^nvmet-qos: device list: unexpected argument 'x'" device list x
run device_bad_option	2 err "^nvmet-qos: unknown option '--bogus'"	device list --bogus
run stats_help		0 out '^Usage: nvmet-qos stats \[OPTION'	stats --help
run top_help_lists_stats 0 out '^  stats \[OPTION'			--help
run stats_extra_arg	2 err "^nvmet-qos: stats: unexpected argument 'x'"	stats x
run stats_json_prom	2 err '^nvmet-qos: --json and --prometheus exclude each other' stats --json --prometheus
run stats_watch_prom	2 err '^nvmet-qos: --prometheus prints one scrape' stats --watch 1 --prometheus
run stats_watch_zero	2 err "^nvmet-qos: invalid --watch '0'"	stats --watch 0
run stats_count_alone	2 err '^nvmet-qos: --count needs --watch'	stats --count 2
run stats_bad_class	2 err '^nvmet-qos: '				stats --class 'a b'
run stats_bad_host	2 err '^nvmet-qos: host NQN has a non-printable' stats --host "$(printf 'nqn.a\001')"
run class_max_too_big	2 err "^nvmet-qos: invalid --max '1025Ti': above the largest, 1024Ti \(2\^50\)" class add x --max 1025Ti
run class_burst_too_big	2 err "^nvmet-qos: invalid --burst '2000T': above the largest" class set x --burst 2000T
run device_capacity_too_big 2 err "^nvmet-qos: invalid --capacity '2000T': above the largest" device set 8:0 --capacity 2000T
run monitor_help	0 out '^Usage: nvmet-qos monitor \[--json\] \[--count N\]' monitor --help
run top_help_lists_monitor 0 out '^  monitor \[--json\]'			--help
run monitor_extra_arg	2 err "^nvmet-qos: monitor: unexpected argument 'x'"	monitor x
run monitor_count_zero	2 err "^nvmet-qos: invalid --count '0': want a positive integer" monitor --count 0
run monitor_count_word	2 err "^nvmet-qos: invalid --count 'ten'"	monitor --count ten
run monitor_count_missing 2 err "^nvmet-qos: option '--count' needs an argument" monitor --count
run device_set_help	0 out '^Usage: nvmet-qos device set DEVICE'	device set --help
run device_set_no_dev	2 err '^nvmet-qos: device set: missing DEVICE'	device set --io-cost 0
run device_set_nothing	2 err '^nvmet-qos: device set: nothing to change'	device set 8:0
run device_set_wcost	2 err "^nvmet-qos: invalid --write-cost '9': want a percentage from 10 to 1000" device set 8:0 --write-cost 9
run device_set_iocost	2 err "^nvmet-qos: invalid --io-cost '2Mi': at most 1Mi" device set 8:0 --io-cost 2Mi
run device_set_cap_low	2 err "^nvmet-qos: invalid --capacity '999999': below the smallest hint" device set 8:0 --capacity 999999
run device_set_cap_bad	2 err "^nvmet-qos: invalid --capacity '1Gb'" device set 8:0 --capacity 1Gb
run device_set_no_such	2 err "^nvmet-qos: no block device named 'nosuchdisk0'" device set nosuchdisk0 --io-cost 0
run device_set_bad_num	2 err "^nvmet-qos: no block device named '8:x'" device set 8:x --io-cost 0
run device_set_bad_path	2 err "^nvmet-qos: cannot use '/nonexistent/x': No such file" device set /nonexistent/x --io-cost 0

# --stripe: refused before anything is sent. Devices of major 4000 are
# nowhere, so their numbers resolve to themselves and name no md array;
# md's sysfs itself is test_stripe's.
m17=$(seq -s, 1 17 | sed 's/\([0-9]*\)/4000:\1/g')
run device_set_help_stripe 0 out '--stripe STRIPE'		device set --help
run stripe_help_wins	0 out '^Usage: nvmet-qos device set'	device set 4000:9 --stripe bogus --help
run stripe_no_arg	2 err "^nvmet-qos: option '--stripe' needs an argument" device set 4000:9 --stripe
run stripe_bad_form	2 err "^nvmet-qos: invalid --stripe 'bogus': want auto, none or CHUNK:MEMBER,MEMBER,..." device set 4000:9 --stripe bogus
run stripe_chunk_garbage 2 err "^nvmet-qos: invalid --stripe '32x:4000:1,4000:2': chunk '32x' is not a size" device set 4000:9 --stripe 32x:4000:1,4000:2
run stripe_chunk_not_512 2 err "^nvmet-qos: invalid --stripe '32000:4000:1,4000:2': a chunk of 32000 bytes is not a multiple of 512$" device set 4000:9 --stripe 32000:4000:1,4000:2
run stripe_chunk_zero	2 err "^nvmet-qos: invalid --stripe '0:4000:1,4000:2': a chunk of 0 bytes \(--stripe none unstripes a device\)$" device set 4000:9 --stripe 0:4000:1,4000:2
run stripe_chunk_big	2 err "^nvmet-qos: invalid --stripe '2Gi:4000:1,4000:2': a chunk of 2147483648 bytes is above the largest, 1Gi$" device set 4000:9 --stripe 2Gi:4000:1,4000:2
run stripe_one_member	2 err "^nvmet-qos: invalid --stripe '64k:4000:1': 1 member: a stripe has 2 to 16$" device set 4000:9 --stripe 64k:4000:1
run stripe_twice	2 err "^nvmet-qos: invalid --stripe '64k:4000:1,4000:1': member 2 is the same disk as member 1 \(4000:1\)$" device set 4000:9 --stripe 64k:4000:1,4000:1
run stripe_empty_member	2 err "^nvmet-qos: invalid --stripe '64k:4000:1,,4000:2': member 2 is empty$" device set 4000:9 --stripe 64k:4000:1,,4000:2
run stripe_itself	2 err "^nvmet-qos: invalid --stripe '64k:4000:1,4000:9': member 2 is the striped device itself$" device set 4000:9 --stripe 64k:4000:1,4000:9
run stripe_no_such	2 err "^nvmet-qos: invalid --stripe '64k:4000:1,nosuchdisk0': no block device named 'nosuchdisk0'" device set 4000:9 --stripe 64k:4000:1,nosuchdisk0
run stripe_17_members	2 err "^nvmet-qos: invalid --stripe '64k:4000:1,.*,4000:17': more than 16 members$" device set 4000:99 --stripe "64k:$m17"
run stripe_auto_not_md	2 err "^nvmet-qos: --stripe auto: 4000:9 is not an md array; give the stripe of other devices as CHUNK:MEMBER,MEMBER,...$" device set 4000:9 --stripe auto
run stripe_bad_device	2 err "^nvmet-qos: no block device named 'nosuchdisk0'" device set nosuchdisk0 --stripe auto

# Output errors must not pass for success.
n=$((n + 1))
if [ ! -w /dev/full ]; then
	echo "ok $n - help_to_full # SKIP no /dev/full"
elif "$prog" --help >/dev/full 2>"$tmp/err"; then
	echo "not ok $n - help_to_full"
	fail=$((fail + 1))
elif grep -q '^nvmet-qos: cannot write output' "$tmp/err"; then
	echo "ok $n - help_to_full"
else
	echo "not ok $n - help_to_full"
	fail=$((fail + 1))
fi

# Past validation these need the module; skip them where it is loaded.
n=$((n + 1))
"$prog" host list >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ]; then
	echo "ok $n - list_without_module # SKIP nvmet_qos family present"
elif [ $rc -eq 1 ] && grep -qx 'nvmet-qos: generic netlink family "nvmet_qos" not found (is the nvmet-qos module loaded?)' "$tmp/err"; then
	echo "ok $n - list_without_module"
else
	echo "not ok $n - list_without_module"
	sed 's/^/#   /' "$tmp/err"
	fail=$((fail + 1))
fi

# A 222-byte NQN passes validation: anything but a usage error is fine.
n=$((n + 1))
"$prog" host show "$long" >/dev/null 2>&1
if [ $? -ne 2 ]; then
	echo "ok $n - show_nqn_222_accepted"
else
	echo "not ok $n - show_nqn_222_accepted"
	fail=$((fail + 1))
fi

# Valid command lines pass validation and reach the family; as they would
# change a loaded module's state, they only run where it is absent.
"$prog" host list >/dev/null 2>&1
present=$?
c31=abcdefghijklmnopqrstuvwxyz01234
reaches() {
	name=$1
	shift
	n=$((n + 1))
	if [ $present -eq 0 ]; then
		echo "ok $n - $name # SKIP nvmet_qos family present"
		return
	fi
	"$prog" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q 'family "nvmet_qos" not found' "$tmp/err"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		echo "# rc=$rc (want 1, family not found)"
		sed 's/^/#   /' "$tmp/err"
		fail=$((fail + 1))
	fi
}
reaches class_add_all_options	class add "$c31" --share 1000 --min 1.5G \
	--max 2GiB --min-iops 5K --max-iops 20000 --burst 4Mi --latency
reaches class_add_plain		class add gold
reaches class_set_zeroes	class set gold --min 0 --max 0 --burst 0 --no-latency
reaches class_set_share		class set gold --share=1
reaches class_del		class del gold
reaches class_list		class list --json
reaches class_show		class show default
reaches stats_plain		stats
reaches stats_filters		stats --json --class default --host nqn.2014-08.org.nvmexpress:x
reaches monitor_json		monitor --json --count 3
reaches device_set_all		device set 8:0 --capacity 20G --write-cost 300 --io-cost 8Ki
reaches device_set_by_path	device set / --capacity 0
reaches stripe_by_hand		device set 4000:9 --stripe 64k:4000:1,4000:2 --io-cost 0
reaches stripe_16_members	device set 4000:99 --stripe "4Ki:${m17%,4000:17}"
reaches stripe_none		device set 4000:9 --stripe none
reaches host_assign		host assign nqn.a gold --weight 1000
reaches host_weight		host weight nqn.a 1
reaches cluster_show		cluster show --json
reaches cluster_set_note	cluster set fallback --note "$(printf '%0255d' 0)"
reaches cluster_set_plain	cluster set none
reaches host_unassign		host unassign nqn.a
reaches device_list		device list
reaches save_stdout		save
reaches restore_valid		restore "$tmp/good.json"
reaches restore_dry_run		restore --dry-run "$tmp/good.json"
echo 'host list' > "$tmp/list.batch"
reaches batch_command		--batch "$tmp/list.batch"

# save and restore: a file is checked before the kernel is asked.
sed 's/"share": 30/"share": 1001/' "$tmp/good.json" > "$tmp/bad.json"
run save_help		0 out '^Usage: nvmet-qos save \[FILE\]'	save --help
run save_extra_arg	2 err "^nvmet-qos: save: unexpected argument 'b'"	save a b
run restore_help	0 out '^Usage: nvmet-qos restore'	restore --help
run restore_no_file	2 err '^nvmet-qos: restore: missing FILE'	restore
run restore_check_and_dry 2 err '^nvmet-qos: --check and --dry-run exclude each other' \
	restore --check --dry-run "$tmp/good.json"
run restore_check_good	0 out '^valid .*good.json: 2 classes, 1 host, 1 device$' \
	restore --check "$tmp/good.json"
run restore_check_bad	1 err '^nvmet-qos: .*bad.json:3: classes\[0\]\.share: 1001 is out of range: want 1 to 1000$' \
	restore --check "$tmp/bad.json"
run restore_bad_before_kernel 1 err 'bad.json:3: classes\[0\]\.share' \
	restore "$tmp/bad.json"
run restore_missing_file 1 err '^nvmet-qos: cannot open .*/none.json: No such file' \
	restore --check "$tmp/none.json"
echo '{"version": 1}' > "$tmp/empty.json"
run restore_check_stdin	0 out '^valid <stdin>: 1 class, 0 hosts, 0 devices$' \
	restore --check - < "$tmp/empty.json"
printf '{"version": 1}\0' > "$tmp/nul.json"
run restore_nul_byte	1 err 'nul.json: a NUL byte at offset 14, not a policy file' \
	restore --check "$tmp/nul.json"
echo '{"version": 1, "devices": [{"name": "nosuchdisk0"}]}' > "$tmp/nodev.json"
run restore_unknown_device 1 err "nodev.json:1: devices\\[0\\]\\.name: no block device named 'nosuchdisk0'" \
	restore --check "$tmp/nodev.json"
stripe_file() { # FILE MEMBER...: device 4000:9 striped over MEMBERs
	f=$1
	shift
	printf '{"version": 1, "devices": [{"name": "4000:9", "stripe_chunk": "64k",\n "stripe_members": [' > "$f"
	printf '"%s",' "$@" | sed 's/,$//' >> "$f"
	printf ']}]}\n' >> "$f"
}
stripe_file "$tmp/stripe.json" 4000:1 4000:2
run restore_check_stripe 0 out '^valid .*stripe.json: 1 class, 0 hosts, 1 device$' \
	restore --check "$tmp/stripe.json"
stripe_file "$tmp/stripe2.json" 4000:1 4000:1
run restore_stripe_twice 1 err 'stripe2.json:1: devices\[0\]\.stripe_members\[1\]: member 2 is the same disk as member 1 \(4000:1\)$' \
	restore --check "$tmp/stripe2.json"
stripe_file "$tmp/stripe3.json" 4000:1 nosuchdisk0
run restore_stripe_no_such 1 err "stripe3.json:1: devices\\[0\\]\\.stripe_members\\[1\\]: no block device named 'nosuchdisk0'" \
	restore --check "$tmp/stripe3.json"

# --batch: each line as on the command line; the first failure stops it.
printf '# help\n\n  host   --help  # trailing\n' > "$tmp/help.batch"
run batch_runs_lines	0 out '^Usage: nvmet-qos host COMMAND'	--batch "$tmp/help.batch"
run batch_stdin		0 out '^Usage: nvmet-qos host COMMAND'	-b - < "$tmp/help.batch"
run batch_equals	0 out '^Usage: nvmet-qos host COMMAND'	--batch="$tmp/help.batch"
printf 'bogus\nhost --help\n' > "$tmp/stop.batch"
run batch_stops		2 err "^nvmet-qos: .*stop.batch:1: failed; stopped there" \
	--batch "$tmp/stop.batch"
printf 'host show "nqn.a\n' > "$tmp/quote.batch"
run batch_unended_quote	2 err 'quote.batch:1: unended quote'	-b "$tmp/quote.batch"
printf 'host show nqn.a\0\n' > "$tmp/nul.batch"
run batch_nul_byte	2 err 'nul.batch:1: NUL byte in the line'	-b "$tmp/nul.batch"
run batch_no_file	2 err '^nvmet-qos: --batch: missing FILE'	--batch
run batch_extra_arg	2 err "^nvmet-qos: --batch: unexpected argument 'x'" -b - x
run batch_missing_file	1 err '^nvmet-qos: cannot open .*/none.batch: No such file' \
	-b "$tmp/none.batch"

# Every line once: a child's exit must not move the batch file's offset
# back under the parent (it shares the open file).
n=$((n + 1))
printf 'host --help\nclass --help\ndevice --help\n' > "$tmp/three.batch"
got=$("$prog" --batch "$tmp/three.batch" 2>&1 | grep -c '^Usage: ')
if [ "$got" = 3 ]; then
	echo "ok $n - batch_each_line_once"
else
	echo "not ok $n - batch_each_line_once"
	echo "# $got commands ran for 3 lines"
	fail=$((fail + 1))
fi

# --force runs every line, and exits with the first failure's status.
n=$((n + 1))
printf 'bogus\nhost --help\nclass add\n' | "$prog" -b - --force >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -q '^Usage: nvmet-qos host COMMAND' "$tmp/out" &&
   grep -qx 'nvmet-qos: <stdin>:1: failed' "$tmp/err" &&
   grep -qx 'nvmet-qos: <stdin>:3: failed' "$tmp/err" &&
   grep -qx 'nvmet-qos: <stdin>: 2 of 3 lines failed' "$tmp/err"; then
	echo "ok $n - batch_force"
else
	echo "not ok $n - batch_force"
	echo "# rc=$rc (want 2), stdout/stderr:"
	sed 's/^/#   /' "$tmp/out" "$tmp/err"
	fail=$((fail + 1))
fi

exec >&3 3>&-
echo "KTAP version 1"
echo "1..$n"
cat "$tmp/ktap"
[ $fail -eq 0 ]
