#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nvmet-qos refuses at run time an nvmet whose nvmet_req_init CRC is not
# the one its build proved (a rebuilt or foreign nvmet, whose requests it
# could misread). The kernel's own nvmet stands for the foreign one, and
# a copy of the module built to expect another CRC (scripts/kmod-for
# --wrong-crc, which scripts/check runs) for the mismatch. Whichever
# loads first, that copy must say why it does not attach, leave nvmet's
# commands alone (a host connects and moves data, and nvmet-qos never
# learns of it) and unload cleanly; the module of the same sources then
# attaches and does learn of the host.
. "$(dirname "$0")/lib.sh"

wrong_ko=$NQ_ROOT/build/kmod-$(uname -r)-wrong-crc/kmod/nvmet-qos.ko
refusal="nvmet_qos: nvmet's nvmet_req_init has CRC 0x[0-9a-f]{8}, this module was built for 0x[0-9a-f]{8}: .*not attaching"

[ -f "$wrong_ko" ] || die "$wrong_ko missing: scripts/check builds it (scripts/kmod-for --wrong-crc)"
nq_loaded nvmet_qos && die "nvmet_qos already loaded"

# expect REGEX N: the kernel log shows REGEX N times.
expect() {
	local got
	got=$(dmesg | grep -cE "$1")
	[ "$got" -eq "$2" ] || fail "expected '$1' $2 time(s) in the kernel log, saw $got"
}

# host_io: host 1 connects, writes and reads back 4 MiB, disconnects.
host_io() {
	local dev
	dev=$(nq_connect 1)
	dd if=/dev/urandom of="$NQ_WORK/data" bs=64k count=64 status=none
	dd if="$NQ_WORK/data" of="$dev" bs=64k oflag=direct status=none ||
		fail "a write through nvmet failed"
	cmp -s -n 4194304 "$NQ_WORK/data" "$dev" || fail "host 1 read back other data"
	nvme disconnect -n "$NQ_SUBNQN" > /dev/null
}

# known: whether nvmet-qos learnt of host 1 (it lists a host from its
# controller's connect on).
known() { "$NQ_CTL" host show "$(host_nqn 1)" > /dev/null 2>&1; }

nq_require dd cmp
nq_loaded nvmet && modprobe -r nvmet-tcp nvmet

log "nvmet first, then the module that expects another CRC"
nq_target_setup 0 64
insmod "$wrong_ko" || die "insmod $wrong_ko failed"
dmesg | grep -E "$refusal" | sed 's/^/# /'
expect "$refusal" 1
expect "nvmet_qos: attached to nvmet" 0
host_io
known && fail "nvmet-qos learnt of a host through an nvmet it refused"
rmmod nvmet_qos || fail "rmmod of the refusing module failed"
expect "nvmet_qos: detached from nvmet" 0
nq_target_teardown
modprobe -r nvmet-tcp nvmet || fail "nvmet did not unload"

log "the module that expects another CRC first, then nvmet"
insmod "$wrong_ko" || die "insmod $wrong_ko failed"
modprobe nvmet || die "modprobe nvmet failed"
expect "$refusal" 2
expect "nvmet_qos: attached to nvmet" 0
rmmod nvmet_qos || fail "rmmod of the refusing module failed"

log "the module of the same sources, built for this nvmet, attaches"
nq_load_qos
expect "nvmet_qos: attached to nvmet" 1
nq_target_setup 0 64
host_io
known || fail "nvmet-qos attached but did not learn of host 1"

nq_finish
