#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-nfit-test.sh BUILD_DIR: build the nfit_test modules of
# tools/testing/nvdimm against the kernel built in BUILD_DIR (build-kernel.sh
# with the "nfit" variant, whose libnvdimm, nfit, nd_pmem, nd_btt, nd_e820,
# dax_pmem and device_dax are modules), from the same kernel tree, and
# install them into BUILD_DIR/modroot/lib/modules/RELEASE/extra/.
#
# They are the libnvdimm maintainers' test doubles: nfit_test.ko makes the
# emulated nfit_test.0/1 buses, and the other modules are the in-tree ones
# rebuilt with wrappers (--wrap=devm_memremap_pages and others) that serve
# those buses.  ndctl's test/core.c loads them only from extra/ or updates/:
# initramfs.sh --depmod-conf with ndctl's contrib/nfit_test_depmod.conf
# makes depmod prefer them over the in-tree ones.
#
# Objects go to BUILD_DIR/nfit_test/ (Kbuild's MO=), never into the kernel
# tree; they are rebuilt from scratch (~30 s) when the kernel's .config or
# build changed.  Log: $MZ_LOGS/build-nfit-test-<BUILD_DIR's name>.log.  Prints the
# directory the modules were installed into.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

[ $# -eq 1 ] || { echo "usage: ${0##*/} BUILD_DIR   (a build-kernel.sh output of the nfit variant)" >&2; exit 2; }
build=$(cd "$1" 2>/dev/null && pwd) || die "$1 is not a directory (a build-kernel.sh output directory)"
relfile=$build/include/config/kernel.release
if [ ! -f "$relfile" ] || [ ! -f "$build/.mz-built" ]; then
	die "$build holds no finished kernel build (run harness/build/build-kernel.sh [--base] nfit)"
fi
src=$(readlink -f "$build/source" 2>/dev/null || true)
if [ -z "$src" ] || [ ! -d "$src/tools/testing/nvdimm" ]; then
	die "$build/source does not lead to a kernel tree with tools/testing/nvdimm"
fi
for sym in LIBNVDIMM BLK_DEV_PMEM ND_BTT ND_PFN ACPI_NFIT DEV_DAX DEV_DAX_PMEM; do
	grep -qx "CONFIG_$sym=m" "$build/.config" ||
		die "$build/.config does not have CONFIG_$sym=m, which nfit_test needs (build the 'nfit' variant: Kconfig.fragments/nfit.config)"
done
krel=$(cat "$relfile")
# The same build lock as build-kernel.sh: not while the kernel is rebuilt.
# shellcheck disable=SC2034 # held until the script exits
out_lock=
mz_lock out_lock "$build.lock" "the build of ${build##*/}"

log=$MZ_LOGS/build-nfit-test-${build##*/}.log
mkdir -p "$MZ_LOGS"
: >"$log"
start=$(date +%s)
# The Kbuild file names its sources as ../../../drivers/...: an output
# directory three levels down keeps those objects inside BUILD_DIR/nfit_test.
mo=$build/nfit_test/tools/testing/nvdimm
# Kbuild does not see a configuration change of the kernel from an
# external module's objects (their .cmd files name include/config/ paths
# relative to the kernel's build directory): start over when the kernel's
# .config or its build changed since the last nfit_test build.
stamp=$( (cat "$build/.config" "$build/.mz-built" "$relfile") | sha256sum | cut -d' ' -f1)
if [ "$(cat "$build/nfit_test/.mz-stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$build/nfit_test"
fi
mkdir -p "$mo"
cc=$(mz_cc)
info "building nfit_test (tools/testing/nvdimm) for $krel (log: $log)"
mz_run "$log" make -C "$build" CC="$cc" HOSTCC="$cc" -j"$MZ_JOBS" \
	M="$src/tools/testing/nvdimm" MO="$mo" modules ||
	die "building nfit_test failed; see $log"
dest=$build/modroot/lib/modules/$krel/extra
rm -rf "$dest"
mz_run "$log" make -C "$build" M="$src/tools/testing/nvdimm" MO="$mo" \
	INSTALL_MOD_PATH="$build/modroot" INSTALL_MOD_DIR=extra INSTALL_MOD_STRIP=1 \
	DEPMOD=/sbin/depmod modules_install ||
	die "installing nfit_test into $build/modroot failed; see $log"
for m in nfit_test nfit libnvdimm nd_pmem dax_pmem device_dax; do
	[ -n "$(find "$dest" -name "$m.ko*" -print -quit)" ] ||
		die "$m.ko missing under $dest after the install; see $log"
done
echo "$stamp" >"$build/nfit_test/.mz-stamp"
info "nfit_test built and installed into $dest in $(mz_since "$start") s"
echo "$dest"
