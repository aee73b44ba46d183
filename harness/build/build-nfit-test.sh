#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-nfit-test.sh: build nfit_test and cxl_test, the test doubles ndctl's tests load.
#
#   build-nfit-test.sh BUILD_DIR      (check-ndctl.sh runs it)
#
# nfit_test (tools/testing/nvdimm) and cxl_test (tools/testing/cxl) are
# built against the kernel in BUILD_DIR (build-kernel.sh with the "nfit"
# variant, whose libnvdimm, nfit, nd_pmem, nd_btt, nd_e820, dax_pmem,
# device_dax and CXL drivers are modules), from the same kernel tree, and
# installed into BUILD_DIR/modroot/lib/modules/RELEASE/extra/.
#
# They are the libnvdimm and CXL maintainers' test doubles: nfit_test.ko
# makes the emulated nfit_test.0/1 buses and cxl_test.ko the emulated
# cxl_test topology (host bridges, switches, memdevs in a mocked CEDT); the
# other modules are the in-tree ones rebuilt with wrappers
# (--wrap=devm_memremap_pages, --wrap=acpi_table_parse_cedt and others) that
# serve those buses.  ndctl's test/core.c loads the nfit ones only from
# extra/ or updates/: initramfs.sh --depmod-conf with ndctl's
# contrib/nfit_test_depmod.conf, and the override lines this script writes
# for the CXL ones into BUILD_DIR/cxl_test/depmod.conf (ndctl has no such
# file), make depmod prefer them over the in-tree ones.
#
# Objects go to BUILD_DIR/nfit_test/ and BUILD_DIR/cxl_test/ (Kbuild's
# MO=), never into the kernel tree; each is rebuilt from scratch when the
# kernel's .config or build changed.  Log:
# $MZ_LOGS/build-nfit-test-<BUILD_DIR's name>.log.  Prints the directory
# the modules were installed into.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 1 1 'BUILD_DIR (a build-kernel.sh output of the nfit variant)' "$@"
build=$(cd "${MZ_OPERANDS[0]}" 2>/dev/null && pwd) ||
	die "${MZ_OPERANDS[0]} is not a directory (a build-kernel.sh output directory)"
relfile=$build/include/config/kernel.release
if [ ! -f "$relfile" ] || [ ! -f "$build/.mz-built" ]; then
	die "$build holds no finished kernel build (run harness/build/build-kernel.sh [--base] nfit)"
fi
src=$(readlink -f "$build/source" 2>/dev/null || true)
if [ -z "$src" ] || [ ! -d "$src/tools/testing/nvdimm" ]; then
	die "$build/source does not lead to a kernel tree with tools/testing/nvdimm"
fi
if [ ! -d "$src/tools/testing/cxl" ]; then
	die "$build/source does not lead to a kernel tree with tools/testing/cxl"
fi
# What tools/testing/nvdimm's and tools/testing/cxl's config_check.c demand.
for sym in LIBNVDIMM BLK_DEV_PMEM ND_BTT ND_PFN ACPI_NFIT DEV_DAX DEV_DAX_PMEM \
	CXL_BUS CXL_ACPI CXL_PMEM CXL_MEM CXL_PORT DEV_DAX_HMEM; do
	grep -qx "CONFIG_$sym=m" "$build/.config" ||
		die "$build/.config does not have CONFIG_$sym=m, which nfit_test and cxl_test need (build the 'nfit' variant: Kconfig.fragments/nfit.config)"
done
for sym in CXL_REGION CXL_REGION_INVALIDATION_TEST NVDIMM_SECURITY_TEST DEBUG_FS MEMORY_HOTPLUG; do
	grep -qx "CONFIG_$sym=y" "$build/.config" ||
		die "$build/.config does not have CONFIG_$sym=y, which cxl_test needs (build the 'nfit' variant: Kconfig.fragments/nfit.config)"
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
cc=$(mz_cc)
dest=$build/modroot/lib/modules/$krel/extra
# Kbuild does not see a configuration change of the kernel from an
# external module's objects (their .cmd files name include/config/ paths
# relative to the kernel's build directory): start over when the kernel's
# .config or its build changed since the last build.
stamp=$( (cat "$build/.config" "$build/.mz-built" "$relfile") | sha256sum | cut -d' ' -f1)
rm -rf "$dest"

# build_doubles NAME: build and install tools/testing/NAME's modules.
build_doubles() {
	local name=$1 obj=$build/${1/nvdimm/nfit}_test
	# The Kbuild files name their sources as ../../../drivers/...: an
	# output directory three levels down keeps those objects inside $obj.
	local mo=$obj/tools/testing/$name
	[ "$(cat "$obj/.mz-stamp" 2>/dev/null)" = "$stamp" ] || rm -rf "$obj"
	mkdir -p "$mo"
	info "building tools/testing/$name for $krel (log: $log)"
	mz_run "$log" make -C "$build" CC="$cc" HOSTCC="$cc" -j"$MZ_JOBS" \
		M="$src/tools/testing/$name" MO="$mo" modules ||
		die "building tools/testing/$name failed; see $log"
	mz_run "$log" make -C "$build" M="$src/tools/testing/$name" MO="$mo" \
		INSTALL_MOD_PATH="$build/modroot" INSTALL_MOD_DIR=extra INSTALL_MOD_STRIP=1 \
		DEPMOD=/sbin/depmod modules_install ||
		die "installing tools/testing/$name into $build/modroot failed; see $log"
	echo "$stamp" >"$obj/.mz-stamp"
}
build_doubles nvdimm
build_doubles cxl
for m in nfit_test nfit libnvdimm nd_pmem dax_pmem device_dax \
	cxl_test cxl_mock cxl_mock_mem cxl_core cxl_acpi cxl_pmem cxl_port cxl_mem dax_hmem; do
	[ -n "$(find "$dest" -name "$m.ko*" -print -quit)" ] ||
		die "$m.ko missing under $dest after the install; see $log"
done
# The CXL drivers cxl_test rebuilt, preferred over the in-tree ones as
# ndctl's file does for the nfit ones.
for m in $(find "$build/cxl_test/tools/testing/cxl" -maxdepth 1 -name '*.ko' -printf '%f\n' | sort); do
	echo "override ${m%.ko} * extra"
done >"$build/cxl_test/depmod.conf"
info "nfit_test and cxl_test built and installed into $dest in $(mz_since "$start") s"
echo "$dest"
