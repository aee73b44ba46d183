# SPDX-License-Identifier: GPL-2.0
#
# The two commands a newcomer needs:
#   make bench   build base and the two series' kernels, boot them, measure memmap init
#   make check   the tests: lint, mirror check, builds, harness tests, VM tests
# The rest are the steps they are made of; see README.md.  'make help'
# prints the targets and variables from the "#:" comment right above each
# target and the "#=" lines at the end: give every new target one.

SHELL := /bin/bash
H := harness
# The cache's folders, as the scripts see them (harness/lib.sh's layout).
LAYOUT := $(shell bash -c '. $(H)/lib.sh && echo "$$MZ_RESULTS $$MZ_LOGS $$MZ_SEND_OUT $$MZ_STREAM_VARIANT"')
RESULTS := $(word 1,$(LAYOUT))
LOGS := $(word 2,$(LAYOUT))
SEND_OUT := $(word 3,$(LAYOUT))
VARIANT ?= $(word 4,$(LAYOUT))

.PHONY: bench check check-quick check-debug kunit check-series matrix deps fetch tree export check-mirror kernel \
	base-kernel smoke shell probe help send-prep send-prep-threads send-prep-hotplug send-prep-fixes send-prep-v11-fixes send-prep-mm-unstable send-prep-ndctl ndctl ndctl-tree ndctl-export check-ndctl-base check-ndctl check-hmm-base check-peers peer-summary \
	upstream-export check-upstream qemu

#@ usage: make [TARGET] [VAR=value]...
#@
#@ Targets:
#: list the targets and variables (the default)
help:
	@awk '/^#@/ { sub(/^#@ ?/, ""); print; next } \
	     /^#= / { n = $$2; sub(/^#= [^ ]+ */, ""); printf "  %-14s %s\n", n, $$0; next } \
	     /^#: / { d = substr($$0, 4); next } \
	     d != "" && /^[a-z][a-z0-9-]*:/ { sub(/:.*/, ""); printf "  %-14s %s\n", $$0, d } \
	     { d = "" }' $(firstword $(MAKEFILE_LIST)) $(H)/lib.sh

# The CXL run of make bench: its own, small size (CXL memory is MMIO to a
# TCG guest), make qemu's QEMU for every boot.  BENCH_CXL_ARGS= skips it.
BENCH_CXL_ARGS ?= --devices cxl-fsdax-dev,cxl-devdax --size 1G --no-probe
BENCH_CXL := $(H)/bench/bench.sh --results $(RESULTS)/bench-cxl.json $(BENCH_CXL_ARGS)

# The hotplug run of make bench: memory onlined as system RAM
# (daxctl reconfigure-device --mode=system-ram, patches/hotplug/), at the
# sizes administrators hot-add.  BENCH_HOTPLUG_ARGS= skips it.
BENCH_HOTPLUG_ARGS ?= --devices devdax-ram --sizes 1G,8G --no-probe
BENCH_HOTPLUG := $(H)/bench/bench.sh --results $(RESULTS)/bench-hotplug.json $(BENCH_HOTPLUG_ARGS)

#: the main job: base vs each series (template, streaming; threads) in a VM (BENCH_ARGS), then memory onlined as system RAM (BENCH_HOTPLUG_ARGS), then on CXL memory (BENCH_CXL_ARGS)
bench:
	@$(H)/bench/bench.sh --check-args $(BENCH_ARGS) >/dev/null
	@$(if $(strip $(BENCH_HOTPLUG_ARGS)),$(BENCH_HOTPLUG) --check-args >/dev/null,:)
	@$(if $(strip $(BENCH_CXL_ARGS)),$(BENCH_CXL) --check-args >/dev/null,:)
	@$(MAKE) --no-print-directory deps
	$(H)/bench/bench.sh $(BENCH_ARGS)
	$(if $(strip $(BENCH_HOTPLUG_ARGS)),$(BENCH_HOTPLUG))
	$(if $(strip $(BENCH_CXL_ARGS)),@$(MAKE) --no-print-directory qemu)
	$(if $(strip $(BENCH_CXL_ARGS)),$(BENCH_CXL))

#: the tests: lint, mirror, checkpatch, build, bats, smoke, matrix
check:
	$(H)/check/check.sh

#: Part 2 rebased onto MZ_UPSTREAM_SRC (v11 queued) into patches/v11-fixes/ and patches/mm-unstable/
upstream-export: deps
	$(H)/series/upstream.sh export

#: patches/v11-fixes/ and patches/mm-unstable/ on MZ_UPSTREAM_SRC: build, then the matrix's no-parameter cells (MATRIX_ARGS)
check-upstream: deps
	$(H)/check/check-upstream.sh $(MATRIX_ARGS)

#: make check without the selftest matrix
check-quick:
	MZ_CHECK_QUICK=1 $(H)/check/check.sh

#: the KUnit test of the template copy: x86_64, arm64, x86_64 with KASAN (KUNIT_ARGS)
kunit: deps
	$(H)/build/kunit.sh $(KUNIT_ARGS)

#: the selftest matrix alone, part of make check (MATRIX_ARGS)
matrix: deps
	$(H)/matrix/matrix.sh $(MATRIX_ARGS)

#: KUnit under KASAN, the matrix on the debug kernels: debug-vm (poisoned memmap) and debug (KASAN)
check-debug: deps
	$(H)/build/kunit.sh x86_64-kasan
	$(H)/matrix/matrix.sh --set debug --full --timeout 2400 \
		--summary $(RESULTS)/check-debug-summary.json \
		--logs $(LOGS)/matrix-debug $(MATRIX_ARGS)

#: maintainer checks: checkpatch, per-patch builds, sparse, arm64 (objects, KUnit) (SERIES_CHECK)
check-series: deps
	$(H)/check/check-series.sh $(SERIES_CHECK)

OUT ?= $(SEND_OUT)
#: the series with your git identity and Cc: lines, for git send-email (OUT)
send-prep: deps
	$(H)/series/send-prep.sh "$(OUT)"

THREADS_OUT ?= $(SEND_OUT)-threads
#: the same for the follow-up series of patches/threads/, on top of patches/ (THREADS_OUT)
send-prep-threads: deps
	$(H)/series/send-prep.sh --threads "$(THREADS_OUT)"

HOTPLUG_OUT ?= $(SEND_OUT)-hotplug
#: the same for the follow-up series of patches/hotplug/, on top of patches/ and threads/ (HOTPLUG_OUT)
send-prep-hotplug: deps
	$(H)/series/send-prep.sh --hotplug "$(HOTPLUG_OUT)"

FIXES_OUT ?= $(SEND_OUT)-fixes
#: the same for the test_hmm fixes of patches/fixes/, on the release (FIXES_OUT)
send-prep-fixes: deps
	$(H)/series/send-prep.sh --fixes "$(FIXES_OUT)"

V11_FIXES_OUT ?= $(SEND_OUT)-v11-fixes
#: the same for the fixes of v11's code, patches/v11-fixes/, on MZ_UPSTREAM_SRC (V11_FIXES_OUT)
send-prep-v11-fixes: deps
	$(H)/series/send-prep.sh --v11-fixes "$(V11_FIXES_OUT)"

MM_UNSTABLE_OUT ?= $(SEND_OUT)-mm-unstable
#: the same for the delta on v11, patches/mm-unstable/, on MZ_UPSTREAM_SRC (MM_UNSTABLE_OUT)
send-prep-mm-unstable: deps
	$(H)/series/send-prep.sh --mm-unstable "$(MM_UNSTABLE_OUT)"

NDCTL_OUT ?= $(SEND_OUT)-ndctl
#: the same for the companion ndctl series of patches/ndctl/ (NDCTL_OUT)
send-prep-ndctl: deps
	$(H)/series/send-prep.sh --ndctl "$(NDCTL_OUT)"

#: the ndctl selftest group on the base, 7.3.4 with patches/fixes/ (a kernel without the attribute)
check-ndctl-base: deps
	$(H)/peers/check-ndctl-base.sh

#: hmm-tests with device-coherent memory on base (7.3.4 + patches/fixes/) and on the series
check-hmm-base: deps
	$(H)/peers/hmm-compare.sh --summary $(RESULTS)/hmm-compare.json

#: ndctl's own test suite on base (7.3.4 + patches/fixes/) and the series, off and on (NDCTL_ARGS)
check-ndctl: deps
	$(H)/peers/check-ndctl.sh --summary $(RESULTS)/ndctl-suite.json $(NDCTL_ARGS)

#: every peer suite in one table (ndctl, dax, cxl, hmm-tests) from the last check-ndctl and check-hmm-base
peer-summary:
	$(H)/peers/peer-summary.py $(RESULTS)/ndctl-suite.json $(RESULTS)/hmm-compare.json --json $(RESULTS)/peer-summary.json

#: check-ndctl, then check-hmm-base, then peer-summary
check-peers: check-ndctl check-hmm-base
	$(MAKE) --no-print-directory peer-summary

#: build ndctl 81 with patches/ndctl/ (install root: MZ_CACHE/build/ndctl-root)
ndctl: deps
	$(H)/build/build-ndctl.sh

#: the git ndctl tree: ndctl 81 + one commit per patch of patches/ndctl/
ndctl-tree: deps
	$(H)/series/ndctl-tree.sh apply

#: regenerate patches/ndctl/ from the ndctl tree's commits
ndctl-export:
	$(H)/series/ndctl-tree.sh export

#: install the Debian packages the project needs (harness/deps.sh)
deps:
	$(H)/deps.sh

#: the QEMU of the CXL guests (Debian bookworm-backports, full CXL type-3) beside the host's; prints the path to give as MZ_QEMU
qemu: deps
	@$(H)/vm/fetch-qemu.sh

#: download, verify and extract Linux 7.3.4 (~190 MB, once)
fetch: deps
	$(H)/series/fetch-base.sh

#: the git kernel tree: base commit + one commit per patch (in MZ_TREE)
tree: deps
	$(H)/series/tree.sh apply

#: regenerate patches/ and the mirror from the kernel tree's commits
export:
	$(H)/series/export.sh

#: check that patches/ and the mirror agree
check-mirror:
	$(H)/series/check-mirror.sh

#: build the patched guest kernel VARIANT
kernel: deps
	$(H)/build/build-kernel.sh $(VARIANT)

#: build the base guest kernel, 7.3.4 with patches/fixes/ (the benchmark's base)
base-kernel: deps
	$(H)/build/build-kernel.sh --base guest

#: boot kernel VARIANT and run the guest smoke test
smoke: deps
	b=$$($(H)/build/build-kernel.sh $(VARIANT)) && \
	i=$$(mktemp --tmpdir mz-smoke-$(VARIANT).XXXXXX.cpio.gz) && trap 'rm -f "$$i"' EXIT && \
	$(H)/vm/initramfs.sh "$$b" "$$i" >/dev/null && \
	$(H)/vm/vm.sh "$$b" "$$i" -- smoke

#: boot kernel VARIANT with a shell on this terminal (Ctrl-A X quits)
shell: deps
	b=$$($(H)/build/build-kernel.sh $(VARIANT)) && \
	i=$$(mktemp --tmpdir mz-shell-$(VARIANT).XXXXXX.cpio.gz) && trap 'rm -f "$$i"' EXIT && \
	$(H)/vm/initramfs.sh "$$b" "$$i" >/dev/null && \
	$(H)/vm/vm.sh --console --shell "$$b" "$$i"

#: user-space probe of the template-copy store pattern on this CPU (PROBE_ARGS)
probe:
	$(H)/bench/store-probe.sh $(PROBE_ARGS)

#@
#@ Variables (make TARGET VAR=value):
#= VARIANT        kernel, smoke, shell: Kconfig.fragments/NAME.config or guest (default: lib.sh's MZ_STREAM_VARIANT)
#= BENCH_ARGS     bench: harness/bench/bench.sh options, e.g. '--rebinds 30' (see its --help)
#= BENCH_CXL_ARGS bench: the CXL run's bench.sh options (default: both CXL devices at 1G, no probe; empty skips the run)
#= BENCH_HOTPLUG_ARGS bench: the hotplug run's bench.sh options (default: devdax-ram at 1G and 8G, no probe; empty skips the run)
#= MATRIX_ARGS    matrix, check-debug: harness/matrix/matrix.sh options, e.g. '--params none,on'
#= KUNIT_ARGS     kunit: the runs, e.g. 'arm64' (default: x86_64 arm64 x86_64-kasan)
#= SERIES_CHECK   check-series: checkpatch, bisect, sparse, arm64, kunit-arm64, nozd, codegen or all (default)
#= MZ_BISECT_FROM check-series bisect: start from this revision of the tree (e.g. opt-in)
#= MZ_BISECT_TO   check-series bisect: stop after this revision of the tree (e.g. fixes)
#= OUT            send-prep: where the prepared series goes (default $MZ_CACHE/send)
#= THREADS_OUT    send-prep-threads: where the prepared threads series goes (default $MZ_CACHE/send-threads)
#= HOTPLUG_OUT    send-prep-hotplug: where the prepared hotplug series goes (default $MZ_CACHE/send-hotplug)
#= FIXES_OUT      send-prep-fixes: where the prepared fixes go (default $MZ_CACHE/send-fixes)
#= V11_FIXES_OUT  send-prep-v11-fixes: where the prepared v11 fixes go (default $MZ_CACHE/send-v11-fixes)
#= MM_UNSTABLE_OUT send-prep-mm-unstable: where the prepared delta on v11 goes (default $MZ_CACHE/send-mm-unstable)
#= NDCTL_OUT      send-prep-ndctl: where the prepared ndctl series goes (default $MZ_CACHE/send-ndctl)
#= PROBE_ARGS     probe: harness/bench/store-probe.sh options
#= NDCTL_ARGS     check-ndctl: harness/peers/check-ndctl.sh options, e.g. '--runs base,on --only libndctl'
#@
#@ Environment (harness/lib.sh's configuration, whose "#=" lines follow):
