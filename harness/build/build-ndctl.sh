#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-ndctl.sh [--tests]: build the ndctl tree (ndctl-tree.sh: ndctl
# $MZ_NDCTL_VERSION with patches/ndctl/ applied, and whatever is edited in
# its work tree) with meson and ninja, and install it into a staging root
# that initramfs.sh --ndctl puts into the guests.  Prints that root:
#
#   ROOT/usr/bin/{ndctl,daxctl,cxl}, ROOT/usr/lib/<multiarch>/lib*.so*
#
# (Debian's paths: in a guest these replace Debian's ndctl and libndctl.)
#
# The build directory ($MZ_BUILD/ndctl) is configured once and
# rebuilt incrementally (seconds); the root is installed anew each time.
# Documentation, systemd units and the ndctl test suite are not built.
#
# --tests builds ndctl's own test suite instead, in its own build directory
# ($MZ_BUILD/ndctl-tests, configured -Dtest=enabled
# -Ddestructive=enabled -Dkeyutils=enabled, as the maintainers run it), and
# prints that directory: the tests run from it (check-ndctl.sh puts it into
# the guest at the same path), with the ndctl, daxctl and cxl built there.
# Logs: $MZ_LOGS/build-ndctl.log (--tests: build-ndctl-tests.log).
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

tests=0
if [ "${1:-}" = --tests ]; then tests=1; shift; fi
[ $# -eq 0 ] || { echo "usage: ${0##*/} [--tests]   (builds $MZ_NDCTL_TREE; prints the install root, or with --tests the test build directory)" >&2; exit 2; }
need_tool meson meson
need_tool ninja ninja-build
need_tool pkg-config pkg-config

tree=$("$MZ_ROOT/harness/series/ndctl-tree.sh" apply)
bdir=$MZ_BUILD/ndctl
root=$MZ_BUILD/ndctl-root
log=$MZ_LOGS/build-ndctl.log
opts=(-Dtest=disabled)
if [ "$tests" = 1 ]; then
	bdir=$MZ_BUILD/ndctl-tests
	log=$MZ_LOGS/build-ndctl-tests.log
	opts=(-Dtest=enabled -Ddestructive=enabled -Dkeyutils=enabled)
fi
# shellcheck disable=SC2034 # held until the script exits
ndctl_lock=
mz_lock ndctl_lock "$MZ_NDCTL_TREE.lock" "another script using $MZ_NDCTL_TREE"
mkdir -p "$(dirname "$log")"
: >"$log"
start=$(date +%s)
if [ ! -f "$bdir/build.ninja" ]; then
	info "configuring ndctl $MZ_NDCTL_VERSION in $bdir (meson)"
	rm -rf "$bdir"
	multiarch=$(gcc -print-multiarch)
	mz_run "$log" meson setup "$bdir" "$tree" --prefix=/usr --sysconfdir=/etc \
		--libdir="lib/$multiarch" -Drootlibdir="/usr/lib/$multiarch" \
		--buildtype=debugoptimized -Ddocs=disabled -Dsystemd=disabled \
		-Dbashcompletiondir=no "${opts[@]}" ||
		die "meson setup failed (see $log): are the build dependencies installed? run harness/deps.sh"
fi
what="ndctl $MZ_NDCTL_VERSION"
[ "$tests" = 0 ] || what+=" and its test suite"
info "building $what ($(git -C "$tree" rev-list --count "$MZ_NDCTL_TAG"..HEAD) patches) in $bdir"
mz_run "$log" ninja -C "$bdir" || die "building ndctl failed; see $log"
if [ "$tests" = 1 ]; then
	info "ndctl $MZ_NDCTL_VERSION and its tests built in $bdir in $(mz_since "$start") s"
	echo "$bdir"
	exit 0
fi
rm -rf "$root"
mz_run "$log" meson install -C "$bdir" --no-rebuild --destdir "$root" ||
	die "installing ndctl into $root failed; see $log"
[ -x "$root/usr/bin/ndctl" ] || die "no usr/bin/ndctl in $root after the install; see $log"
info "ndctl $MZ_NDCTL_VERSION built and installed into $root in $(mz_since "$start") s"
echo "$root"
