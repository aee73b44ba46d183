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
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: ${0##*/} [--print-mirror]" >&2
	exit 2
}

# The first Debian mirror URI configured on this host (deb822 or one-line).
host_mirror() {
	local f uri=
	# shellcheck disable=SC2086 # a list of files and globs (lib.sh)
	for f in $MZ_APT_SOURCES; do
		[ -r "$f" ] || continue
		uri=$(awk '
			/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }
			/^deb[ \t]/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z+]+:\/\/.*\/debian\/?$/) { print $i; exit } }
		' "$f")
		[ -n "$uri" ] && break
	done
	[ -n "$uri" ] || die "no Debian mirror found in the host's apt sources; set MZ_APT_SOURCES to a sources file naming one, or fetch the .deb yourself and set MZ_DEB_FILE"
	echo "${uri%/}"
}

case "${1:-}" in
"") ;;
--print-mirror) host_mirror; exit 0 ;;
*) usage ;;
esac

src=$MZ_CACHE/src/linux-source-$MZ_BASE_VERSION
if [ -f "$src/.mz-extracted" ]; then
	info "base source already extracted: $src"
	echo "$src"
	exit 0
fi

need_tool sha256sum coreutils
need_tool tar tar
need_tool dpkg-deb dpkg
need_tool xz xz-utils

mkdir -p "$MZ_CACHE/dl"
deb=${MZ_DEB_FILE:-$MZ_CACHE/dl/${MZ_DEB_PACKAGE}_${MZ_DEB_VERSION/\~/%7e}_all.deb}

if [ ! -f "$deb" ]; then
	need_tool apt-get apt
	mirror=$(host_mirror)
	apt_dir=$MZ_CACHE/apt
	mkdir -p "$apt_dir/lists/partial"
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -r "$keyring" ] || die "$keyring missing; install Debian package debian-archive-keyring"
	printf 'deb [signed-by=%s] %s %s main\n' "$keyring" "$mirror" "$MZ_DEB_SUITE" >"$apt_dir/sources.list"
	opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list"
	      -o "Dir::Etc::SourceParts=/nonexistent"
	      -o "Dir::State::Lists=$apt_dir/lists"
	      -o "Dir::Cache=$apt_dir/cache"
	      -o "APT::Sandbox::User=root")
	mkdir -p "$apt_dir/cache/archives/partial"
	info "updating a private package list for $MZ_DEB_SUITE from the host's mirror"
	: >"$apt_dir/update.log"
	mz_run "$apt_dir/update.log" apt-get "${opts[@]}" -q update ||
		die "apt-get update for $MZ_DEB_SUITE failed (see $apt_dir/update.log); check network access to the host's Debian mirror"
	info "downloading $MZ_DEB_PACKAGE=$MZ_DEB_VERSION (~190 MB)"
	(cd "$MZ_CACHE/dl" && apt-get "${opts[@]}" download "$MZ_DEB_PACKAGE=$MZ_DEB_VERSION" >&2) ||
		die "$MZ_DEB_PACKAGE $MZ_DEB_VERSION is not served by $MZ_DEB_SUITE any more; download it by hand and set MZ_DEB_FILE=/path/to.deb, or use your own 7.3.y tree with LINUX_SRC=/path"
	deb=$(find "$MZ_CACHE/dl" -maxdepth 1 -name "${MZ_DEB_PACKAGE}_*.deb" | head -n 1)
fi

[ -f "$deb" ] || die "$deb does not exist"
info "verifying sha256 of ${deb##*/}"
sum=$(sha256sum "$deb" | cut -d' ' -f1)
if [ "$sum" != "$MZ_DEB_SHA256" ]; then
	die "checksum mismatch for $deb: got $sum, want $MZ_DEB_SHA256; delete the file and run again, or check your mirror"
fi

tmp=$MZ_CACHE/src/.extract.$$
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
ver=$(make -s -C "$top" kernelversion 2>/dev/null)
[ "$ver" = "$MZ_BASE_VERSION" ] || die "$tarball holds Linux $ver, expected $MZ_BASE_VERSION"
rm -rf "$src"
mv "$top" "$src"
touch "$src/.mz-extracted"
info "base source ready: $src"
echo "$src"
