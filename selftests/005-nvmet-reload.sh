#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# With nvmet-qos loaded, take the whole target down (hosts disconnected,
# nvmet-tcp and nvmet unloaded) and bring it back: nvmet-qos lets go of the
# old nvmet, attaches to the new one and keeps counting the same hosts.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3

read_mb() {
	local d=$1
	dd if="$d" of=/dev/null bs=1M count=8 iflag=direct status=none ||
		fail "read from $d failed"
}

nq_load_qos
nq_target_setup 100 256
d=$(nq_connect 1) || exit 1
read_mb "$d"
first=$(nq_json_get "$(nq_host_json "$(host_nqn 1)")" read_bytes)
[ "$first" -ge $((8 << 20)) ] || fail "first target: only $first bytes counted"

nq_target_teardown
modprobe -r nvme-tcp nvmet-tcp nvmet ||
	fail "nvmet did not unload with nvmet-qos loaded (held by: $(ls /sys/module/nvmet/holders 2>/dev/null))"
nq_loaded nvmet && fail "nvmet still loaded"
dmesg | grep -q "nvmet_qos: detached from nvmet" || fail "no detach logged"
nq_loaded nvmet_qos || die "nvmet-qos went away with nvmet"

nq_target_setup 100 256
d=$(nq_connect 1) || exit 1
read_mb "$d"
second=$(nq_json_get "$(nq_host_json "$(host_nqn 1)")" read_bytes)
log "host 1 read bytes: $first after the first target, $second after the second"
[ "$second" -ge $((first + (8 << 20))) ] ||
	fail "second target: counters did not grow by 8 MiB ($first -> $second)"

nq_finish
