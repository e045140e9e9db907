#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nvmet-qos attaches to nvmet whether nvmet is loaded before or after it,
# lets go when nvmet unloads first, and attaches again when nvmet returns.
. "$(dirname "$0")/lib.sh"

cleanup() {
	nq_unload_qos
	modprobe -r nvmet 2>/dev/null
}
trap cleanup EXIT

# count MESSAGE: how often the module logged MESSAGE so far.
count() { dmesg | grep -c "nvmet_qos: $1"; }

expect() {
	local what=$1 want=$2 got
	got=$(count "$what")
	[ "$got" -eq "$want" ] || fail "expected '$what' $want time(s), saw $got"
}

nq_loaded nvmet && modprobe -r nvmet-tcp nvmet
nq_loaded nvmet_qos && die "nvmet_qos already loaded"

log "nvmet first, then nvmet-qos"
modprobe nvmet || die "modprobe nvmet failed"
nq_load_qos
expect "attached to nvmet" 1
nq_unload_qos || fail "rmmod nvmet_qos failed"
expect "detached from nvmet" 1
modprobe -r nvmet || fail "nvmet did not unload after nvmet-qos"

log "nvmet-qos first, then nvmet"
nq_load_qos
expect "attached to nvmet" 1
modprobe nvmet || die "modprobe nvmet failed"
expect "attached to nvmet" 2

log "nvmet unloads while nvmet-qos stays"
modprobe -r nvmet || fail "nvmet refused to unload while nvmet-qos was loaded"
expect "detached from nvmet" 2
nq_loaded nvmet_qos || fail "nvmet-qos went away with nvmet"

log "nvmet comes back"
modprobe nvmet || die "modprobe nvmet failed"
expect "attached to nvmet" 3
modprobe -r nvmet || fail "second unload of nvmet failed"
expect "detached from nvmet" 3
nq_unload_qos || fail "rmmod nvmet_qos failed"
expect "detached from nvmet" 3

nq_finish
