#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-base.sh: download Debian's linux-source-7.3 (7.3.4) binary package,
# verify its checksum and extract the kernel source once into the cache.
# Prints the path of the extracted source tree on stdout.
#
# The package lives in trixie-backports, which this host's apt sources may
# lack.  We reuse the Debian mirror the host already uses and point apt at a
# private sources list and state directory, so the host's apt setup is not
# touched.
#
# Environment: MZ_CACHE (cache root), MZ_APT_SOURCES (the host's deb822 or
# one-line sources to derive the mirror from, for tests), MZ_DEB_FILE (use
# this .deb instead of downloading), MZ_DEB_SHA256 (override, for tests).
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

usage() {
	echo "usage: ${0##*/} [--print-mirror]" >&2
	exit 2
}

case "${1:-}" in
"") ;;
--print-mirror) mz_host_mirror; exit 0 ;;
*) usage ;;
esac

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
info "extracting ${tarball##*/} (~35 s)"
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
