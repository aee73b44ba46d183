#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-lab-modules.sh: build the lab's test modules for a built kernel and install them.
#
#   build-lab-modules.sh BUILD_DIR OUTDIR      (build-selftests.sh runs it)
#
# The lab's out-of-tree modules (guest/memmap_init/modules/, not part of
# any series: lab_memmap_hotplug for memmap_hotplug.sh) are built with
# W=1 against the configured and built kernel in BUILD_DIR (a
# build-kernel.sh output), in $MZ_LAB_MODULES/NAME (NAME: BUILD_DIR's last
# component; mz_ext_module in lib.sh), and each module the Makefile
# names (obj-m) is installed in OUTDIR, which build-selftests.sh makes
# memmap_init/lab_modules/ of the kselftest tree it installs.  Any
# compiler or modpost warning fails the build.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 2 2 'BUILD_DIR OUTDIR' "$@"
[ -d "${MZ_OPERANDS[0]}" ] || die "no such build directory: ${MZ_OPERANDS[0]}"
build=$(cd "${MZ_OPERANDS[0]}" && pwd)
dest=${MZ_OPERANDS[1]}

need_tool make make
need_tool gcc gcc
mz_module_build "$build"

src=$MZ_ROOT/guest/memmap_init/modules
mods=()
read -ra mods < <(sed -n 's/^obj-m *:= *//p' "$src/Makefile")
[ ${#mods[@]} -gt 0 ] || die "$src/Makefile names no module (obj-m := NAME.o ...)"
out=$MZ_LAB_MODULES/$(basename "$build")
log=$MZ_LOGS/lab-modules-$(basename "$build").log
info "building the lab's modules (${mods[*]}) in $out against $build (log: $log)"
mz_ext_module "$src" "$out" "$build" "$log"
for m in "${mods[@]}"; do
	[ -f "$out/${m%.o}.ko" ] || die "build finished but $out/${m%.o}.ko is missing; see $log"
done
mkdir -p "$dest"
for m in "${mods[@]}"; do
	install -m 644 "$out/${m%.o}.ko" "$dest/"
done
info "installed ${#mods[@]} lab modules in $dest"
