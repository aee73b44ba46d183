# SPDX-License-Identifier: GPL-2.0
#
# The two commands a newcomer needs:
#   make bench   build base and patched kernels, boot them, measure memmap init
#   make check   the tests: lint, mirror check, builds, harness tests, VM tests
# The rest are the steps they are made of; see README.md.

SHELL := /bin/bash
H := harness
VARIANT ?= stream-off

.PHONY: bench check check-quick check-debug check-series matrix deps fetch tree export check-mirror kernel \
	base-kernel smoke shell probe help

help:
	@sed -n 's/^#   //p' Makefile

bench: deps
	$(H)/bench.sh $(BENCH_ARGS)

check:
	$(H)/check.sh

check-quick:
	MZ_CHECK_QUICK=1 $(H)/check.sh

# The selftest matrix alone (part of make check).
matrix: deps
	$(H)/matrix.sh $(MATRIX_ARGS)

# The debug kernel (KASAN, DEBUG_VM, lockdep): slow under TCG, so not in CI.
check-debug: deps
	$(H)/matrix.sh --variants debug --params none,on --timeout 2400 \
		--summary $${MZ_CACHE:-$$HOME/.cache/memmap-zone-device}/results/check-debug-summary.json \
		--logs $${MZ_CACHE:-$$HOME/.cache/memmap-zone-device}/logs/matrix-debug $(MATRIX_ARGS)

# Maintainer checks on the series: checkpatch, per-patch builds, sparse, arm64.
check-series: deps
	$(H)/check-series.sh $(SERIES_CHECK)

deps:
	$(H)/deps.sh

fetch: deps
	$(H)/fetch-base.sh

tree: deps
	$(H)/tree.sh apply

export:
	$(H)/export.sh

check-mirror:
	$(H)/check-mirror.sh

kernel: deps
	$(H)/build-kernel.sh $(VARIANT)

base-kernel: deps
	$(H)/build-kernel.sh --base guest

smoke: deps
	b=$$($(H)/build-kernel.sh $(VARIANT)) && \
	$(H)/initramfs.sh "$$b" /tmp/mz-smoke.cpio.gz >/dev/null && \
	$(H)/vm.sh "$$b" /tmp/mz-smoke.cpio.gz -- smoke

shell: deps
	b=$$($(H)/build-kernel.sh $(VARIANT)) && \
	$(H)/initramfs.sh "$$b" /tmp/mz-shell.cpio.gz >/dev/null && \
	$(H)/vm.sh --console --shell "$$b" /tmp/mz-shell.cpio.gz

probe:
	$(H)/store-probe.sh $(PROBE_ARGS)
