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

echo "KTAP version 1"
echo "1..26"
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

[ $fail -eq 0 ]
