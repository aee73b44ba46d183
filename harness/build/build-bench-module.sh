#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-bench-module.sh BUILD_DIR: build the memremap_bench kernel module
# (harness/bench/bench-module/, benchmark harness, not part of the series)
# against the configured and built kernel in BUILD_DIR (see
# build-kernel.sh), with W=1.
#
# The module directory is copied to $MZ_BENCH_MODULES/NAME (NAME is
# BUILD_DIR's last component, e.g. base-guest) and built there, so the
# repository stays clean and modules for different kernels do not mix.
# Any compiler or modpost warning fails the build.
#
# Prints the path of memremap_bench.ko on stdout.  Load it in the guest:
#   insmod memremap_bench.ko size_mb=1024 iterations=10 && rmmod memremap_bench
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

usage() {
	echo "usage: ${0##*/} BUILD_DIR" >&2
	exit 2
}
[ $# -eq 1 ] || usage
case "$1" in -*) usage ;; esac
[ -d "$1" ] || die "no such build directory: $1"
build=$(cd "$1" && pwd)

need_tool make make
need_tool gcc gcc
mz_module_build "$build"
grep -qx 'CONFIG_DEVICE_PRIVATE=y' "$build/.config" ||
	die "$build: kernel built without CONFIG_DEVICE_PRIVATE, memremap_bench cannot work there"

src=$MZ_ROOT/harness/bench/bench-module
out=$MZ_BENCH_MODULES/$(basename "$build")
mkdir -p "$out" "$MZ_LOGS"
# Refresh the sources; keep the objects so an unchanged module is not rebuilt.
cp -p "$src/memremap_bench.c" "$src/Makefile" "$out/"

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
