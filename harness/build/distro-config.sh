#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# distro-config.sh: what a distribution kernel that never heard of the series gets from it.
#
#   distro-config.sh      (check.sh's distro-config step)
#
# Takes Debian's own configuration of this base (package linux-config-7.3,
# the same version and suite as the source, config.amd64_none_amd64), runs
# 'make olddefconfig' with it on the series' tree in
# $MZ_BUILD/distro-config, and prints every option the series adds or that
# decides what it does, as olddefconfig left it.
#
# Fails unless CONFIG_MEMMAP_STREAMING=y (the series' default: stream the
# memmaps in a vmem_altmap, nothing else) and CONFIG_ZONE_DEVICE=y.  Only
# configures: no build.  The package comes through the private package
# list that fetch-base.sh uses, from the host's own mirror.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 0 0 'no arguments' "$@"
need_tool dpkg-deb dpkg
need_tool xz xz-utils

pkg=linux-config-${MZ_BASE_VERSION%.*}
out=$MZ_BUILD/distro-config
mkdir -p "$out"
deb=$(mz_deb_download "$pkg" "$MZ_DEB_VERSION" "Debian's kernel configurations" \
	"run the check with a newer base")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp"
cfg=$(find "$tmp" -name 'config.amd64_none_amd64.xz' | head -n 1)
[ -n "$cfg" ] || die "$deb has no config.amd64_none_amd64.xz"
xz -dc "$cfg" >"$out/.config"

src=$("$MZ_ROOT/harness/series/tree.sh" apply)
mz_lock tree_lock "$MZ_TREE.lock" "tree.sh to finish rewriting $MZ_TREE" -s
info "make olddefconfig with Debian's amd64 configuration on $src"
mz_run "$MZ_LOGS/distro-config.log" make -C "$src" O="$out" olddefconfig ||
	die "make olddefconfig failed; see $MZ_LOGS/distro-config.log"

# The series' own symbols (as config-diff.sh finds them) and the ones
# that decide whether they apply.
mapfile -t own < <(mz_own_configs "$MZ_PATCHES")
for s in CONFIG_ZONE_DEVICE CONFIG_DEVICE_PRIVATE CONFIG_KASAN CONFIG_KMSAN "${own[@]}"; do
	v=$(sed -n "s/^$s=//p" "$out/.config")
	printf '%-40s %s\n' "$s" "${v:-not set}"
done
grep -qx 'CONFIG_ZONE_DEVICE=y' "$out/.config" || die "Debian's configuration has no CONFIG_ZONE_DEVICE: nothing to check"
grep -qx 'CONFIG_MEMMAP_STREAMING=y' "$out/.config" ||
	die "Debian's configuration after olddefconfig does not have CONFIG_MEMMAP_STREAMING=y: a distribution kernel would lose streaming on map=dev namespaces"
info "Debian's configuration gets CONFIG_MEMMAP_STREAMING=y: policy altmap"
