#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-ndctl.sh: download, verify and extract ndctl's release for patches/ndctl/, once.
#
#   fetch-ndctl.sh      (ndctl-tree.sh runs it)
#
# The source of ndctl $MZ_NDCTL_VERSION, the release the companion ndctl
# series (patches/ndctl/) applies to, checked and extracted once into the
# cache.  Prints the path of the extracted source tree on stdout.
#
# Debian's trixie serves it: apt, with a private sources list ("deb-src"
# on the host's own Debian mirror) and state directory, fetches only the
# upstream tarball (apt-get source --download-only --tar-only; apt checks
# it against the signed Sources index), and this script checks the sha256
# the project pins (MZ_NDCTL_SHA256).
#
# Environment: MZ_CACHE, MZ_APT_SOURCES (see lib.sh), MZ_NDCTL_TARBALL (use
# this ndctl_$MZ_NDCTL_VERSION.orig.tar.gz instead of downloading).
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 0 0 'no arguments' "$@"

src=$MZ_SRC/ndctl-$MZ_NDCTL_VERSION
if [ -f "$src/.mz-extracted" ]; then
	info "ndctl source already extracted: $src"
	echo "$src"
	exit 0
fi

need_tool sha256sum coreutils
need_tool tar tar

name=ndctl_$MZ_NDCTL_VERSION.orig.tar.gz
tarball=${MZ_NDCTL_TARBALL:-$MZ_DL/$name}
if [ ! -f "$tarball" ]; then
	apt_opts=()
	mz_private_apt apt_opts "$MZ_APT_SRC_STATE" deb-src "$MZ_NDCTL_SUITE"
	mkdir -p "$MZ_DL"
	info "downloading $name from $MZ_NDCTL_SUITE's sources"
	(cd "$MZ_DL" && apt-get "${apt_opts[@]}" -qq source --download-only --tar-only ndctl >&2) ||
		die "apt could not download ndctl's source from $MZ_NDCTL_SUITE; download $name by hand and set MZ_NDCTL_TARBALL=/path/to/it"
	[ -f "$tarball" ] ||
		die "$MZ_NDCTL_SUITE no longer serves $name (it moved to another release); download it by hand and set MZ_NDCTL_TARBALL=/path/to/it"
fi

info "verifying sha256 of ${tarball##*/}"
sum=$(sha256sum "$tarball" | cut -d' ' -f1)
[ "$sum" = "$MZ_NDCTL_SHA256" ] ||
	die "checksum mismatch for $tarball: got $sum, want $MZ_NDCTL_SHA256; delete the file and run again, or check your mirror"

tmp=$MZ_SRC/.extract-ndctl.$$
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xzf "$tarball"
top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
if [ -z "$top" ] || [ ! -f "$top/meson.build" ] ||
	! grep -q "^  version : '$MZ_NDCTL_VERSION'" "$top/meson.build"; then
	die "$tarball is not ndctl $MZ_NDCTL_VERSION's source (no meson.build with version '$MZ_NDCTL_VERSION')"
fi
rm -rf "$src"
mv "$top" "$src"
touch "$src/.mz-extracted"
info "ndctl source ready: $src"
echo "$src"
