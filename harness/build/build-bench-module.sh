#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-bench-module.sh: build the bench's memremap_bench kernel module for a built kernel.
#
#   build-bench-module.sh BUILD_DIR      (bench.sh runs it)
#
# The module (harness/bench/bench-module/, the bench's, not part of the
# series) is built with W=1 against the configured and built kernel in
# BUILD_DIR (a build-kernel.sh output).
#
# The module directory is copied to $MZ_BENCH_MODULES/NAME (NAME is
# BUILD_DIR's last component, e.g. base-guest) and built there
# (mz_ext_module in lib.sh); any compiler or modpost warning fails the
# build.
#
# Prints the path of memremap_bench.ko on stdout.  Load it in the guest:
#   insmod memremap_bench.ko size=1073741824 iterations=10 && rmmod memremap_bench
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 1 1 BUILD_DIR "$@"
[ -d "${MZ_OPERANDS[0]}" ] || die "no such build directory: ${MZ_OPERANDS[0]}"
build=$(cd "${MZ_OPERANDS[0]}" && pwd)

need_tool make make
need_tool gcc gcc
mz_module_build "$build"
grep -qx 'CONFIG_DEVICE_PRIVATE=y' "$build/.config" ||
	die "$build: kernel built without CONFIG_DEVICE_PRIVATE, memremap_bench cannot work there"

out=$MZ_BENCH_MODULES/$(basename "$build")
log=$MZ_LOGS/bench-module-$(basename "$build").log
info "building memremap_bench in $out against $build (log: $log)"
mz_ext_module "$MZ_ROOT/harness/bench/bench-module" "$out" "$build" "$log"

ko=$out/memremap_bench.ko
[ -f "$ko" ] || die "build finished but $ko is missing; see $log"
echo "$ko"
