#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-selftests.sh: build and install the memmap_init kselftests for a built kernel.
#
#   build-selftests.sh BUILD_DIR OUTDIR      (matrix.sh runs it)
#
# The memmap_init kselftest target, its test modules included, is built
# against the configured and built kernel in BUILD_DIR (a build-kernel.sh
# output) and installed as a kselftest tree in OUTDIR:
#
#   OUTDIR/run_kselftest.sh, kselftest/, kselftest-list.txt
#   OUTDIR/memmap_init/          the scripts, helpers, config, settings,
#                                and the lab's tests (guest/memmap_init/)
#                                listed after the target's
#   OUTDIR/memmap_init/test_modules/*.ko  where the target has them (the
#                                follow-up series' memmap_threads.sh)
#   OUTDIR/memmap_init/lab_modules/*.ko  the lab's (guest/memmap_init/
#                                modules/, build-lab-modules.sh)
#   OUTDIR/mm/hmm-tests          the upstream hmm-tests binary, for the
#                                opt-in peer suite (memmap_hmm_peer.sh)
#
# with, in the kernel tree MZ_KSRC (default: the tree 'tree.sh apply'
# prints),
#   make -C tools/testing/selftests TARGETS=memmap_init O=WORK KDIR=BUILD_DIR \
#        KSFT_INSTALL_PATH=OUTDIR install
# and, for hmm-tests alone (not the whole mm target), the kernel's UAPI
# headers installed into WORK and
#   make -C tools/testing/selftests/mm OUTPUT=WORK/mm WORK/mm/hmm-tests
# WORK is $MZ_SELFTESTS/NAME-TREE (NAME: BUILD_DIR's last component,
# TREE: a hash of MZ_KSRC's path: make decides by timestamps, so binaries
# built from another tree must not look up to date).
# OUTDIR is emptied first.  The test modules are built in the kernel tree's
# memmap_init/test_modules (as livepatch's are), so builds take a lock and
# clean it up afterwards.
#
# Put the tree in the initramfs and run it:
#   initramfs.sh --add OUTDIR:/mz/kselftest BUILD_DIR initramfs.cpio.gz
#   vm.sh --label-nvdimm 1G BUILD_DIR initramfs.cpio.gz -- kselftest memmap_init devs [hmm]
# (devs: the tests may destroy the guest's NVDIMMs; without it they touch none)
#
# Prints OUTDIR on stdout.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 2 2 'BUILD_DIR OUTDIR' "$@"
set -- "${MZ_OPERANDS[@]}"
[ -d "$1" ] || die "no such build directory: $1"
build=$(cd "$1" && pwd)

need_tool make make
need_tool gcc gcc
need_tool rsync rsync
need_tool flock util-linux
mz_module_build "$build"

ksrc=${MZ_KSRC:-}
if [ -z "$ksrc" ]; then
	ksrc=$("$MZ_ROOT/harness/series/tree.sh" apply)
fi
ksrc=$(cd "$ksrc" && pwd)
st=$ksrc/tools/testing/selftests
[ -f "$st/memmap_init/Makefile" ] ||
	die "$st/memmap_init missing: MZ_KSRC=$ksrc has no memmap_init selftests"

name=$(basename "$build")
work=$MZ_SELFTESTS/$name-$(printf %s "$ksrc" | sha256sum | cut -c1-8)
log=$MZ_LOGS/selftests-$name.log
mkdir -p "$work" "$MZ_LOGS" "$2"
out=$(cd "$2" && pwd)
case "$out" in /|"$HOME"|"$ksrc"*|"$build") die "refusing to empty $out" ;; esac
find "$out" -mindepth 1 -delete

exec 8>"$MZ_SELFTESTS.lock"
flock 8
start=$(date +%s)
: >"$log"
cc=$(mz_cc)

# run DESC CMD...: run CMD (mz_run: logged with its command line), stop
# on failure with the log's tail.
run() {
	local desc=$1
	shift
	if ! mz_run "$log" "$@"; then
		tail -n 30 "$log" >&2
		die "$desc failed; full log: $log"
	fi
}

mods=$st/memmap_init/test_modules
cleanup_mods() {
	[ ! -d "$mods" ] ||
		mz_run "$log" make -C "$mods" KDIR="$build" clean 2>/dev/null || true
}
trap cleanup_mods EXIT

info "building memmap_init selftests against $build from $ksrc (log: $log)"
run "memmap_init build" make -C "$st" TARGETS=memmap_init O="$work" KDIR="$build" \
	KSFT_INSTALL_PATH="$out" HOSTCC="$cc" install
if grep -E 'warning:' "$log" >&2; then
	die "the memmap_init build has warnings; full log: $log"
fi
# The modules the target's test_modules/Makefile lists (obj-m += NAME.o).
if [ -f "$mods/Makefile" ]; then
	while read -r m; do
		ko=$out/memmap_init/test_modules/$m.ko
		[ -f "$ko" ] || die "build finished but $ko is missing; see $log"
	done < <(sed -n 's/^obj-m *+= *\([a-z0-9_]*\)\.o$/\1/p' "$mods/Makefile")
fi
grep -qx 'memmap_init:memmap_controls.sh' "$out/kselftest-list.txt" ||
	die "$out/kselftest-list.txt does not list memmap_init; see $log"

# The lab's tests run after the target's, from its directory.
"$MZ_ROOT/harness/build/install-lab-tests.sh" "$MZ_ROOT/guest/memmap_init" "$out" >&2 ||
	die "installing the lab's tests failed"
"$MZ_ROOT/harness/build/build-lab-modules.sh" "$build" "$out/memmap_init/lab_modules" >&2 ||
	die "building the lab's test modules failed"

# hmm-tests needs the UAPI headers of this kernel (test_hmm_uapi.h comes
# from lib/ directly).  Both steps are best effort: the peer suite skips
# without the binary.
hdr=$work/headers
mkdir -p "$work/mm"
if mz_run "$log" make -C "$ksrc" O="$work/headers-build" INSTALL_HDR_PATH="$hdr" \
	headers_install &&
	mz_run "$log" make -C "$st/mm" OUTPUT="$work/mm" KHDR_INCLUDES="-isystem $hdr/include" \
		"$work/mm/hmm-tests"; then
	mkdir -p "$out/mm"
	cp "$work/mm/hmm-tests" "$out/mm/hmm-tests"
else
	warn "could not build hmm-tests (see $log); memmap_hmm_peer.sh will skip"
fi

info "installed the memmap_init kselftests in $out in $(mz_since "$start") s"
echo "$out"
