#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The storage head's boot path: "make install" into a scratch root, a
# policy saved to its /etc/nvmet-qos.json, then the start commands of the
# installed nvmet-qos.service, read from the unit, with their paths moved
# into that root (modprobe -d ROOT; the root's tool and /etc). The policy
# must be in force before the first host connects, and enforced: two
# hosts split a 50 MB/s device 30/70 within 3 points, as in 010. Last,
# the tool's first request autoloads the module through the genl family
# alias that depmod put in the root's modules.alias.
. "$(dirname "$0")/lib.sh"
nq_require nvme fio python3 make modprobe depmod

SECS=${NQ_SECS:-15}
root=$NQ_WORK/root
krel=$(uname -r)
saved_modprobe=$(cat /proc/sys/kernel/modprobe)
trap 'echo "$saved_modprobe" > /proc/sys/kernel/modprobe; rm -f "/proc/1/root${helper:-/none}"; nq_cleanup' EXIT

# A root being assembled holds the kernel's module lists, so install
# runs depmod on it.
mkdir -p "$root/lib/modules/$krel" "$root/etc"
cp "/lib/modules/$krel"/modules.{order,builtin,builtin.modinfo} "$root/lib/modules/$krel/"
make -s -C "$NQ_ROOT" install DESTDIR="$root" > "$NQ_WORK/install.log" 2>&1 ||
	die "make install failed: $(cat "$NQ_WORK/install.log")"
tool=$root/usr/sbin/nvmet-qos
unit=$root/lib/systemd/system/nvmet-qos.service
[ -x "$tool" ] && [ -f "$unit" ] || die "make install left no tool or no unit"

# The admin's policy, saved from a live module beforehand.
nq_load_qos
nq_classes "training --share 30" "prep --share 70"
"$tool" save "$root/etc/nvmet-qos.json" || die "save failed"
nq_unload_qos || die "rmmod failed"

# Boot: the unit's start commands, in order.
starts=$(sed -n 's/^ExecStartPre=//p; s/^ExecStart=//p' "$unit")
[ "$(echo "$starts" | wc -l)" -eq 2 ] || die "unexpected start commands: $starts"
while read -r cmd; do
	cmd=${cmd//\/sbin\/modprobe/modprobe -d $root}
	cmd=${cmd//\/usr\/sbin\/nvmet-qos/$tool}
	cmd=${cmd//\/etc\//$root\/etc\/}
	log "start: $cmd"
	eval "$cmd" | sed 's/^/# /'
	[ "${PIPESTATUS[0]}" -eq 0 ] || die "start command failed: $cmd"
done <<< "$starts"
nq_loaded nvmet_qos || die "the start commands did not load the module"

# In force before any host connected.
for n in 1 2; do
	class=$(nq_json_get "$("$tool" host show "$(host_nqn $n)" --json)" class)
	want=$([ $n -eq 1 ] && echo training || echo prep)
	[ "$class" = "$want" ] || fail "before connecting, host $n is in '$class', want '$want'"
done

nq_target_setup 50 512
d1=$(nq_connect 1) || exit 1
d2=$(nq_connect 2) || exit 1
nq_overlap_split boot "$SECS" "--rw=randread --bs=128k --iodepth=16" training prep "$d1" "$d2"
split=$NQ_SPLIT
b1=$(nq_fio_total boot 1); b2=$(nq_fio_total boot 2)
log "after boot: host 1 ${split}% while both ran, of $(((b1 + b2) / SECS / 1000)) kB/s (want 30 +- 3)"
nq_judge_split 30 131072

# Autoload: the kernel runs kernel.modprobe for the family's alias. It
# runs it in init's root, which in the test VM is the initramfs around
# our chroot, so the helper goes there (via /proc/1/root) and points the
# host's modprobe at the scratch root, as /sbin/modprobe would see /.
nvme disconnect -n "$NQ_SUBNQN" >/dev/null
nq_unload_qos || die "rmmod failed"
helper=/nq-modprobe-$$
printf '#!/bin/busybox sh\nexec /bin/busybox chroot /newroot /sbin/modprobe -d %s "$@"\n' \
	"$root" > "/proc/1/root$helper" || skip "cannot place a modprobe helper in init's root"
chmod +x "/proc/1/root$helper"
echo "$helper" > /proc/sys/kernel/modprobe
"$tool" class list > /dev/null || fail "the first request did not autoload the module"
nq_loaded nvmet_qos || fail "module not loaded after the tool's first request"

nq_finish
