# SPDX-License-Identifier: GPL-2.0
#
# nvmet-qos: per-host QoS for the Linux NVMe-oF target.
#
#   make            build kmod/nvmet-qos.ko, ctl/nvmet-qos and qosd/nvmet-qosd
#   make deps       install the Debian packages the build, tests and demo need
#   make check      run every test: unit tests here, kernel tests in a VM,
#                   all of them on 6.1 but the instruction counts (041),
#                   the core ones on 6.12 (CHECK_KERNELS)
#   make check-all-kernels  every test on every kernel of CHECK_KERNELS,
#                   041's instruction-counting boot included
#   make check-debug  the VM tests on a debug kernel (KASAN, lockdep,
#                   kmemleak, ...) built once from Debian's linux-source
#   make check-mutants  the test of the tests: the module with one feature
#                   broken at a time (MUTANTS, default all, each on its
#                   kernel: selftests/mutants), each must
#                   fail a test that claims the feature
#   make demo       the AI pipeline on a target in a VM: 30/70, then live 50/50
#   make bench      stock nvmet against nvmet-qos in a VM, A/B in one boot,
#                   and instructions per read in a second boot (6.12);
#                   writes bench/results/<date>.{json,md,png} and README's table
#   make insn-prof  where a read's instructions go, function by function:
#                   stock nvmet against nvmet-qos in one boot (6.12, its
#                   nvme-loop), counted by a QEMU plugin (bench/insn-prof.c)
#   make install    the module (plus depmod), tool, man pages, bash completion
#                   and systemd unit; DESTDIR-aware. "make uninstall" undoes it
#   make dkms-install  let DKMS rebuild the module for every new kernel
#
# KDIR       kernel build directory (default: running kernel's, else the
#            newest installed Debian linux-headers-*-amd64)
# KVER       instead of KDIR, an installed kernel's release
#            (6.12.117+deb12-amd64) or series (6.12, 6.1: its newest)
# NVMET_SRC  kernel source tree to take nvmet's private header from
#            (default: extracted from Debian's linux-source-<ver> tarball)
# CHECK_KERNELS  the kernels the VM tests boot, as KVER series or
#            releases: every test on the first, selftests/core-tests on
#            the others (make check-all-kernels: every test on each)

ifneq ($(KVER),)
KDIR := $(shell scripts/find-kdir $(KVER))
endif
KDIR ?= $(shell scripts/find-kdir)
NVMET_SRC ?=
CHECK_KERNELS ?= 6.1 6.12
# The kernel whose instructions per read make bench counts (nvme-loop's),
# and in how many boots: the figure moves between boots, not within one.
BENCH_INSNS_KVER ?= 6.12
BENCH_INSNS_BOOTS ?= 3
# The release, also in dkms.conf and ctl/Makefile (scripts/test-dkms checks).
VERSION := 0.1.0
# Install locations, below DESTDIR; the module goes to the updates/ of the
# kernel it was built for.
PREFIX ?= /usr
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= /lib/systemd/system
BUILD := $(CURDIR)/build
KREL := $(shell scripts/kernel-release $(KDIR))
NVMET_DIR := $(BUILD)/nvmet-$(KREL)

# linux-headers-rt-amd64: only so that scripts/test-dkms sees the build
# refuse a PREEMPT_RT kernel.
DEBIAN_PKGS := build-essential bc bison flex kmod pkg-config cpio xz-utils \
	iproute2 util-linux procps python3 python3-yaml \
	linux-image-amd64 linux-headers-amd64 linux-source-6.1 \
	linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.12 \
	linux-headers-rt-amd64 \
	qemu-system-x86 busybox-static nvme-cli fio \
	libnl-3-dev libnl-genl-3-dev gnuplot-nox groff-base systemd dkms openssl \
	libelf-dev libssl-dev strace dmsetup mdadm patch \
	libcurl4-openssl-dev libjson-c-dev etcd-server etcd-client curl

.PHONY: all module ctl qosd deps check check-all-kernels check-debug check-mutants unit-check vm-check demo bench insn-prof install \
	uninstall dkms-install dkms-uninstall clean FORCE

all: module ctl qosd

# Extracted again when the extractor changed (it may take more files).
$(NVMET_DIR)/kernel.release: scripts/nvmet-src
	@test -n "$(KREL)" || { echo "no kernel build directory at KDIR=$(KDIR)" >&2; exit 1; }
	scripts/nvmet-src $(KDIR) $(NVMET_DIR) $(NVMET_SRC)

module: $(NVMET_DIR)/kernel.release
	$(MAKE) -C $(KDIR) M=$(CURDIR) NVMET_DIR=$(NVMET_DIR) modules

ctl:
	$(MAKE) -C ctl

qosd:
	$(MAKE) -C qosd

deps:
	@if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; fi; \
	$$SUDO apt-get update -q && \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $(DEBIAN_PKGS)

# The one command that runs every test; prints "N passed, N failed" last.
check: all
	KDIR=$(KDIR) scripts/check $(addprefix --kernel ,$(CHECK_KERNELS))

check-all-kernels: all
	KDIR=$(KDIR) scripts/check --full $(addprefix --kernel ,$(CHECK_KERNELS))

unit-check: all
	KDIR=$(KDIR) scripts/check --unit-only

vm-check: all
	KDIR=$(KDIR) scripts/check --vm-only

# Builds its own kernel (cached in build/debug-kernel/) and its own copy
# of the module; too long for CI (see README).
check-debug:
	scripts/check-debug

# About 40 minutes on 2 cores for every mutant; not part of "make check".
check-mutants: all
ifeq ($(MUTANTS),)
	scripts/check-mutants && scripts/check-mutants --kernel 6.12
else
	scripts/check-mutants $(MUTANTS)
endif

# The main job where no storage head is at hand: a target in a VM.
demo: all
	KDIR=$(KDIR) scripts/vm --timeout 900 -- scripts/demo-vm

# About an hour on 2 cores under TCG; see bench/vm-bench for its knobs.
# The held path boots again with one vCPU; the pipeline on a striped set
# of emulated NVMe drives boots with them; the instruction counts boot
# apart (one CPU whose clock counts instructions), on 6.12, the kernel
# with nvme-loop, BENCH_INSNS_BOOTS times, and once more for where they
# go (make insn-prof). The scheduler core's own figures run here, not in
# a VM.
bench: all
	$(MAKE) -C kmod/test sched_bench
	kmod/test/sched_bench --json > $(BUILD)/core-bench.json
	KDIR=$(KDIR) scripts/vm --timeout 3600 -- bench/vm-bench
	cp $(BUILD)/vm/console.log $(BUILD)/vm/bench.log
	KDIR=$(KDIR) NQ_BENCH_ONLY=held scripts/vm --cpus 1 --timeout 1800 -- bench/vm-bench
	cp $(BUILD)/vm/console.log $(BUILD)/vm/bench-1cpu.log
	KDIR=$(KDIR) NQ_BENCH_ONLY=nvme scripts/vm --nvme 4 --timeout 1800 -- bench/vm-bench
	cp $(BUILD)/vm/console.log $(BUILD)/vm/bench-nvme.log
	kdir=$$(scripts/find-kdir $(BENCH_INSNS_KVER)) && ko=$$(scripts/kmod-for $$kdir) && \
	for i in $$(seq $(BENCH_INSNS_BOOTS)); do \
		KDIR=$$kdir NQ_KO=$$ko NQ_BENCH_ONLY=insns scripts/vm --icount --timeout 5400 -- bench/vm-bench && \
		cp $(BUILD)/vm/console.log $(BUILD)/vm/bench-insns-$$i.log || exit 1; \
	done
	$(MAKE) insn-prof
	cp $(BUILD)/vm/console.log $(BUILD)/vm/bench-prof.log
	bench/report --core $(BUILD)/core-bench.json --prof $(BUILD)/vm/bench-prof.log \
		$(BUILD)/vm/bench.log \
		$(BUILD)/vm/bench-1cpu.log $(BUILD)/vm/bench-nvme.log \
		$$(seq -f '$(BUILD)/vm/bench-insns-%g.log' $(BENCH_INSNS_BOOTS))

# The plugin is built against the QEMU Debian installs (7.2, plugin API
# version 1); its knobs are bench/vm-insn-prof's (NQ_PROF_*).
$(BUILD)/prof/insn-prof.so: bench/insn-prof.c
	mkdir -p $(@D)
	$(CC) -O2 -Wall -fPIC -shared -fvisibility=hidden -o $@ $<

insn-prof: all $(BUILD)/prof/insn-prof.so
	kdir=$$(scripts/find-kdir $(BENCH_INSNS_KVER)) && ko=$$(scripts/kmod-for $$kdir) && \
	KDIR=$$kdir NQ_KO=$$ko scripts/vm --insn-prof $(BUILD)/prof/dump --timeout 3600 -- \
		bench/vm-insn-prof

# Installs what "make" built; builds nothing, so it also works from a
# read-only tree.
install uninstall:
	DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" SBINDIR="$(SBINDIR)" \
	MANDIR="$(MANDIR)" COMPLETIONDIR="$(COMPLETIONDIR)" UNITDIR="$(UNITDIR)" \
	scripts/install $(if $(filter uninstall,$@),--uninstall)

# DKMS rebuilds the module on kernel updates. The sources go to
# $(DESTDIR)/usr/src/nvmet-qos-$(VERSION); without DESTDIR, DKMS then
# builds and installs it for the running kernel.
dkms-install:
	scripts/dkms-tree $(DESTDIR)/usr/src/nvmet-qos-$(VERSION)
	if [ -z "$(DESTDIR)" ]; then \
		dkms status -m nvmet-qos -v $(VERSION) | grep -q . || \
			dkms add -m nvmet-qos -v $(VERSION); \
		dkms install -m nvmet-qos -v $(VERSION); \
	fi

dkms-uninstall:
	-dkms remove -m nvmet-qos -v $(VERSION) --all
	rm -rf $(DESTDIR)/usr/src/nvmet-qos-$(VERSION)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) NVMET_DIR=$(NVMET_DIR) clean 2>/dev/null || true
	if [ -d ctl ]; then $(MAKE) -C ctl clean; fi
	$(MAKE) -C qosd clean
	rm -rf $(BUILD)
