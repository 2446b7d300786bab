# llpoll: low latency Ethernet device polling for Debian 12's 6.1 kernel.
#   make check    everything from packages to the test kernel and guest
#                 image, then all tests (README)
#   make bench    the latency matrix on the bench kernel (README)
#   make soak     the reliability suite, long (SECS=600 CYCLES=100)
#   make modules  the forked drivers against KDIR (the running kernel's)
#   make host-kernel  Debian's 6.1 with the core hook for this machine
# Caches live outside the clone: $(LLPOLL_CACHE).

# The cache's layout has its home in vm/lib.sh; make asks vm/paths. The
# DKMS package's copy of this Makefile has no vm/ and needs none of it.
paths = $(shell [ ! -x $(CURDIR)/vm/paths ] || $(CURDIR)/vm/paths $(1))
ifeq ($(origin LLPOLL_CACHE),undefined)
LLPOLL_CACHE := $(call paths,cache)
endif
export LLPOLL_CACHE
VARIANT ?= test
empty :=
space := $(empty) $(empty)
# the kernel the forks are built for: the running one unless KVER or KDIR
# names another (the test kernel's tree: KDIR=$$(vm/paths kernel test)/obj)
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
# prepare-src takes the drivers from our unpacked tree when there is one
ifeq ($(origin LLPOLL_KSRC),undefined)
LLPOLL_KSRC := $(wildcard $(call paths,tree))
endif
export LLPOLL_KSRC
# dkms.conf is the home of the package's version and its list of forks
conf = $(shell sed -n 's/^$(1)="\(.*\)"/\1/p' $(CURDIR)/dkms.conf)
VERSION := $(call conf,PACKAGE_VERSION)
DRIVERS := $(call conf,LLPOLL_DRIVERS)
DKMS_SRC := /usr/src/llpoll-$(VERSION)
# the DKMS package's files; vm/image keys the bench image on them
DKMS_FILES := dkms.conf Kbuild Makefile module/llpoll_qv_lock.h module/linux-source.sh module/prepare-src \
	$(foreach d,$(DRIVERS),$(sort $(wildcard module/$(d)/*.patch)))

.PHONY: help all deps kernel image modules clean dkms-install dkms-uninstall distclean check check-noll bench soak \
	version drivers dkms-files host-kernel

# plain `make` explains instead of building against a kernel tree that a
# fresh clone does not have yet
.DEFAULT_GOAL := help

help:
	@echo 'llpoll: low latency Ethernet device polling for Debian 12 (6.1)'
	@echo
	@echo 'Targets (times: 2 cores, QEMU under TCG; fresh / cached):'
	@echo '  check         all tests: packages, test kernel, guest image, host and'
	@echo '                guest tests (~40 min / ~21 min)'
	@echo '  bench         the latency matrix on the bench kernel; QUICK=1 for the'
	@echo '                short one, BENCH_ARGS="--modes ..." for some modes'
	@echo '                (+13 min for its kernel / ~50 min, QUICK=1 ~5 min)'
	@echo '  soak          the reliability suite, SECS=600 CYCLES=100 (over 5 h here)'
	@echo '  check-noll    the feature-off kernel boots and carries traffic (~11 min)'
	@echo '  deps          install the host packages with apt-get (~1 min / < 1 s)'
	@echo '  kernel        one kernel variant, VARIANT=$(subst $(space),|,$(call paths,variants))'
	@echo '  image         its guest image, VARIANT=...'
	@echo '  host-kernel   Debian'"'"'s 6.1 with the core hook for this machine,'
	@echo '                from its /boot/config-$$(uname -r) (CONFIG=...): debs'
	@echo '  modules       the forked drivers against KDIR (default: the running'
	@echo '                kernel'"'"'s, /lib/modules/$$(uname -r)/build; KVER=...)'
	@echo '  dkms-install  install the DKMS package for the running kernel (KVER=...)'
	@echo '  dkms-uninstall  remove it for every kernel: the in-tree drivers'
	@echo '                are used again'
	@echo '  clean         remove the host build of the forks'
	@echo '  distclean     remove the cache, $(LLPOLL_CACHE)'
	@echo '                (prints its size first; ~5 GB here)'
	@echo
	@echo 'Output: caches, kernels, images and test logs in $(LLPOLL_CACHE);'
	@echo 'bench results in bench/results/DATE. Docs: README.md, docs/.'

all: modules

deps:
	vm/deps

kernel: deps
	vm/kernel $(VARIANT)

image: kernel
	vm/image $(VARIANT)

# need_hook DIR WHAT: the forks build only for a kernel carrying
# the core hook, core-hook/ (CONFIG_INET_LL_RX_POLL): say so, and how to get one,
# before the compiler or DKMS fails on it
define need_hook
	@if [ ! -f $(1)/.config ]; then \
		echo "llpoll: $(2): no kernel build tree at $(1): install that kernel's headers (its linux-headers deb), or give KDIR= or KVER=" >&2; \
		exit 1; \
	fi
	@if ! grep -q '^CONFIG_INET_LL_RX_POLL=y' $(1)/.config; then \
		echo "llpoll: $(2) lacks the core hook (core-hook/: no CONFIG_INET_LL_RX_POLL in $(1)/.config), so DKMS refuses it (BUILD_EXCLUSIVE_CONFIG)." >&2; \
		echo "llpoll: build the patched kernel (make host-kernel), install its debs and boot it first (docs/usage.md), or give KDIR= or KVER=." >&2; \
		exit 1; \
	fi
endef

# Debian's 6.1 with the core hook, configured as this machine's kernel
host-kernel:
	vm/kernel host $(if $(CONFIG),--config $(CONFIG))

# Kbuild holds the obj-m lines; this only stages sources and calls kbuild
modules:
	$(call need_hook,$(KDIR),$(if $(filter command line,$(origin KDIR)),KDIR=$(KDIR),kernel $(KVER)))
	module/prepare-src $(DRIVERS)
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	@if [ -f $(KDIR)/Makefile ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	for d in $(DRIVERS); do find module/$$d -mindepth 1 ! -name '*.patch' -delete; done

# dkms without this make's flags: its own make would inherit them, and
# `make -s` would leave its build log (make.log) without the compile lines
DKMS := env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL dkms

# install the DKMS package on this machine (a real-hardware host or a
# guest); KVER= builds for that kernel instead of the running one
dkms-install:
	$(call need_hook,/lib/modules/$(KVER)/build,kernel $(KVER))
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp --parents $(DKMS_FILES) $(DKMS_SRC)/
	if dkms status llpoll/$(VERSION) | grep -q .; then $(DKMS) remove llpoll/$(VERSION) --all; fi
	$(DKMS) add llpoll/$(VERSION)
	$(DKMS) install llpoll/$(VERSION) -k $(KVER)

# the package version and forks (dkms.conf) and file list, for scripts
version:
	@echo $(VERSION)

drivers:
	@echo $(DRIVERS)

dkms-files:
	@echo $(DKMS_FILES)

# remove the DKMS package for every kernel and its source copy; dkms runs
# depmod, so modprobe finds the in-tree drivers again
dkms-uninstall:
	if dkms status llpoll/$(VERSION) | grep -q .; then dkms remove llpoll/$(VERSION) --all; fi
	rm -rf $(DKMS_SRC)

# the whole cache: the next check or bench rebuilds everything
distclean: clean
	vm/distclean

# every step of check and bench is timed; the run ends with the table of
# its stages (vm/stages), kept in its results or logs directory
STAGED = export LLPOLL_STAGES=$${LLPOLL_STAGES:-$$(vm/stages new)} &&

check:
	$(STAGED) vm/deps && vm/kernel test && vm/image test && tests/run

# the feature-off kernel boots and carries traffic (slow: its own kernel)
check-noll: deps
	vm/kernel noll
	vm/image noll
	tests/noll

BENCH_ARGS += $(if $(QUICK),--quick)

bench:
	$(STAGED) vm/deps && vm/kernel bench && bench/run $(BENCH_ARGS)

SOAK_ARGS = $(if $(SECS),--secs $(SECS)) $(if $(CYCLES),--cycles $(CYCLES))

# load, faults, concurrency on the test kernel; make check runs it short.
# Bad SECS/CYCLES are refused before anything is built.
soak:
	tests/soak --dry-run $(SOAK_ARGS)
	$(MAKE) deps
	vm/kernel test
	vm/image test
	tests/soak $(SOAK_ARGS)
