#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # mz_opt and mz_flag set the options' variables
# fetch-base.sh: download, verify and extract the base release's kernel source, once.
#
#   fetch-base.sh [--print-mirror]      (make fetch)
#
# Debian's binary package MZ_DEB_PACKAGE=MZ_DEB_VERSION (lib.sh), from
# MZ_DEB_SUITE on the host's own Debian mirror through a private apt
# state (the host's apt setup is not touched), or MZ_DEB_FILE; checked
# against MZ_DEB_SHA256, extracted into the cache.  Prints the source
# tree's path.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_flag --print-mirror print_mirror "print the Debian mirror of the host's apt sources (MZ_APT_SOURCES) and exit"
mz_parse "$@"
[ ${#MZ_OPERANDS[@]} -eq 0 ] || mz_arg_error "unexpected argument '${MZ_OPERANDS[0]}'"
if [ "$print_mirror" = 1 ]; then
	mz_host_mirror
	exit 0
fi

src=$MZ_SRC/linux-source-$MZ_BASE_VERSION
if [ -f "$src/.mz-extracted" ]; then
	info "base source already extracted: $src"
	echo "$src"
	exit 0
fi

need_tool sha256sum coreutils
need_tool tar tar
need_tool dpkg-deb dpkg
need_tool xz xz-utils

deb=${MZ_DEB_FILE:-$(mz_deb_download "$MZ_DEB_PACKAGE" "$MZ_DEB_VERSION" "~190 MB" \
	"download it by hand and set MZ_DEB_FILE=/path/to.deb, or use your own 7.3.y tree with LINUX_SRC=/path")}

[ -f "$deb" ] || die "$deb does not exist"
info "verifying sha256 of ${deb##*/}"
sum=$(sha256sum "$deb" | cut -d' ' -f1)
if [ "$sum" != "$MZ_DEB_SHA256" ]; then
	die "checksum mismatch for $deb: got $sum, want $MZ_DEB_SHA256; delete the file and run again, or check your mirror"
fi

tmp=$MZ_SRC/.extract.$$
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
info "extracting the package"
dpkg-deb -x "$deb" "$tmp/deb"
tarball=$(find "$tmp/deb/usr/src" -maxdepth 1 -name 'linux-source-*.tar.*' 2>/dev/null | head -n 1)
[ -n "$tarball" ] || die "no source tarball in $deb"
info "extracting ${tarball##*/}"
tar -C "$tmp" -xf "$tarball"
top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d -name 'linux-source-*' | head -n 1)
if [ -z "$top" ] || [ ! -f "$top/Makefile" ]; then die "unexpected layout in $tarball"; fi
ver=$(mz_kernelversion "$top" 2>/dev/null)
[ "$ver" = "$MZ_BASE_VERSION" ] || die "$tarball holds Linux $ver, expected $MZ_BASE_VERSION"
rm -rf "$src"
mv "$top" "$src"
touch "$src/.mz-extracted"
info "base source ready: $src"
echo "$src"
