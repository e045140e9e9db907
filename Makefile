# SPDX-License-Identifier: GPL-2.0
#
# nvmet-qos: per-host QoS for the Linux NVMe-oF target.
#
#   make            build kmod/nvmet-qos.ko and ctl/nvmet-qos
#   make deps       install the Debian packages the build, tests and demo need
#   make check      run every test: unit tests here, kernel tests in a VM
#   make demo       the AI pipeline on a target in a VM: 30/70, then live 50/50
#   make bench      stock nvmet against nvmet-qos in a VM, A/B in one boot;
#                   writes bench/results/<date>.{json,md,png} and README's table
#
# KDIR       kernel build directory (default: running kernel's, else the
#            newest installed Debian linux-headers-*-amd64)
# NVMET_SRC  kernel source tree to take nvmet's private header from
#            (default: extracted from Debian's linux-source-<ver> tarball)

KDIR ?= $(shell scripts/find-kdir)
NVMET_SRC ?=
BUILD := $(CURDIR)/build
KREL := $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
NVMET_DIR := $(BUILD)/nvmet-$(KREL)

DEBIAN_PKGS := build-essential bc bison flex kmod pkg-config cpio xz-utils \
	iproute2 util-linux procps python3 python3-yaml \
	linux-image-amd64 linux-headers-amd64 linux-source-6.1 \
	qemu-system-x86 busybox-static nvme-cli fio \
	libnl-3-dev libnl-genl-3-dev gnuplot-nox groff-base

.PHONY: all module ctl deps check unit-check vm-check demo bench clean FORCE

all: module ctl

$(NVMET_DIR)/kernel.release:
	@test -n "$(KREL)" || { echo "no kernel build directory at KDIR=$(KDIR)" >&2; exit 1; }
	scripts/nvmet-src $(KDIR) $(NVMET_DIR) $(NVMET_SRC)

module: $(NVMET_DIR)/kernel.release
	$(MAKE) -C $(KDIR) M=$(CURDIR) NVMET_DIR=$(NVMET_DIR) modules

ctl:
	$(MAKE) -C ctl

deps:
	@if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; fi; \
	$$SUDO apt-get update -q && \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $(DEBIAN_PKGS)

# The one command that runs every test; prints "N passed, N failed" last.
check: all
	KDIR=$(KDIR) scripts/check

unit-check: all
	KDIR=$(KDIR) scripts/check --unit-only

vm-check: all
	KDIR=$(KDIR) scripts/check --vm-only

# The main job where no storage head is at hand: a target in a VM.
demo: all
	KDIR=$(KDIR) scripts/vm --timeout 900 -- scripts/demo-vm

# About 15 minutes on 2 cores under TCG; see bench/vm-bench for its knobs.
bench: all
	KDIR=$(KDIR) scripts/vm --timeout 3600 -- bench/vm-bench
	bench/report $(BUILD)/vm/console.log

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) NVMET_DIR=$(NVMET_DIR) clean 2>/dev/null || true
	$(MAKE) -C ctl clean
	rm -rf $(BUILD)
