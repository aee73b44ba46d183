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
# BUILD_DIR's last component, e.g. base-guest) and built there, so the
# repository stays clean and modules for different kernels do not mix.
# Any compiler or modpost warning fails the build.
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

src=$MZ_ROOT/harness/bench/bench-module
out=$MZ_BENCH_MODULES/$(basename "$build")
mkdir -p "$out" "$MZ_LOGS"
# Refresh the sources; keep the objects so an unchanged module is not
# rebuilt.  A source whose contents changed is copied with a new time, so
# that make rebuilds the module even when the checkout's file is older
# than the module built from another checkout's.
for f in memremap_bench.c Makefile; do
	cmp -s "$src/$f" "$out/$f" || cp "$src/$f" "$out/$f"
done

log=$MZ_LOGS/bench-module-$(basename "$build").log
info "building memremap_bench in $out against $build (log: $log)"
export ARCH=x86_64
cc=$(mz_cc)
: >"$log"
if ! mz_run "$log" make -C "$build" M="$out" W=1 CC="$cc" HOSTCC="$cc" modules; then
	tail -n 30 "$log" >&2
	die "module build failed; full log: $log"
fi
if grep -q 'warning:' "$log"; then
	grep 'warning:' "$log" >&2
	die "module build has warnings (W=1); full log: $log"
fi

ko=$out/memremap_bench.ko
[ -f "$ko" ] || die "build finished but $ko is missing; see $log"
echo "$ko"
