#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # mz_opt and mz_flag set the options' variables
# build-ndctl.sh: build the ndctl tree and install it into a root for the guests.
#
#   build-ndctl.sh [--tests]      (make ndctl)
#
# The tree is ndctl-tree.sh's (ndctl with patches/ndctl/, and whatever is
# edited in its work tree), built with meson and ninja in $MZ_BUILD/ndctl,
# configured once and rebuilt incrementally; documentation, systemd units
# and the test suite are not built.  Prints the root it installs anew,
# which initramfs.sh --ndctl puts into the guests in place of Debian's
# ndctl and libndctl (Debian's paths: ROOT/usr/bin/{ndctl,daxctl,cxl},
# ROOT/usr/lib/MULTIARCH/lib*.so*).  Logs: $MZ_LOGS/build-ndctl*.log.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_flag --tests tests \
	"build ndctl's own test suite as its maintainers run it, in \$MZ_BUILD/ndctl-tests, and print that directory (check-ndctl.sh)"
mz_parse "$@"
[ ${#MZ_OPERANDS[@]} -eq 0 ] || mz_arg_error "unexpected argument '${MZ_OPERANDS[0]}'"
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
