#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit.sh [RUN...]: the series' KUnit test of the ZONE_DEVICE template
# copy (mm/tests/zone_device_memmap_kunit.c), one kernel per RUN (default:
# all three):
#
#   x86_64        x86-64, with the streaming backend (MOVNTI)
#   arm64         arm64, the other large architecture with ZONE_DEVICE
#                 (make check-series runs it)
#   x86_64-kasan  x86-64 with generic KASAN: the template path must run
#                 there (the test checks the backend each call reports),
#                 without the streaming backend, which KASAN kernels lack
#                 (make check-debug runs it)
#
# kunit.sh --guest-output LOG: no kernel is built; LOG is what a guest
# test printed (vm.sh's NAME.test.log) after it loaded the test as a module
# (guest/tests/smoke, whose step 5 prints the suite's debugfs results as
# "# kunit: LINE"); those lines are parsed as any run's are.  make check does this with its smoke guest, so the
# guest kernel (CONFIG_ZONE_DEVICE_MEMMAP_KUNIT_TEST=m in base.config) is
# the only x86-64 kernel it builds.
#
# For each architecture the kernel's own tools/testing/kunit/kunit.py
# configures and builds a small kernel from the test's kunitconfig
# (mm/tests/zone_device_memmap.kunitconfig) out of the tree, in
# $MZ_BUILD/kunit-ARCH; QEMU boots it with the command line and
# machine of kunit.py's qemu_configs; kunit.py parses the KTAP it prints.
# QEMU is run here rather than by 'kunit.py run', which asks for KVM
# first: MZ_ACCEL=kvm uses KVM for x86_64, anything else TCG (this
# project's hosts have a /dev/kvm that hangs stock kernels; the test takes
# seconds under TCG).  arm64 is cross-compiled with Debian's
# gcc-aarch64-linux-gnu and boots in qemu-system-aarch64 (qemu-system-arm);
# harness/deps.sh installs both.
#
# The exit status is non-zero when any run fails, crashes, skips or runs
# no test.  Cold, each architecture is a kernel build of 3-10 minutes on
# two cores.  Logs: $MZ_LOGS/kunit-RUN.{build,console,log}.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

# Per architecture: cross compiler prefix, QEMU, kernel image, console,
# machine (as tools/testing/kunit/qemu_configs/ARCH.py has them).  A RUN is
# an architecture, or ARCH-kasan for ARCH with KASAN.
declare -A cross=([x86_64]="" [arm64]=aarch64-linux-gnu-)
declare -A qemu=([x86_64]=qemu-system-x86_64 [arm64]=qemu-system-aarch64)
declare -A qemu_pkg=([x86_64]=qemu-system-x86 [arm64]=qemu-system-arm)
declare -A image=([x86_64]=arch/x86/boot/bzImage [arm64]=arch/arm64/boot/Image.gz)
declare -A console=([x86_64]=ttyS0 [arm64]=ttyAMA0)
declare -A machine=([x86_64]="-bios qboot.rom" [arm64]="-machine virt -cpu max")

usage() {
	echo "usage: ${0##*/} [RUN...]   (RUN: x86_64 arm64 x86_64-kasan; default: all three)" >&2
	echo "       ${0##*/} --guest-output LOG   (the KTAP a guest test printed as \"# kunit: LINE\")" >&2
	exit 2
}
guest_log=
if [ "${1:-}" = --guest-output ]; then
	[ $# -eq 2 ] || usage
	guest_log=$2
	[ -f "$guest_log" ] || die "--guest-output $guest_log: no such file"
	set --
fi
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(x86_64 arm64 x86_64-kasan)
for r in "${runs[@]}"; do
	case "$r" in -*) usage ;; esac
	[ -n "${qemu[${r%-kasan}]:-}" ] || { echo "${0##*/}: unknown run '$r'" >&2; usage; }
done
[ -z "$guest_log" ] || runs=(guest)

need_tool python3 python3
need_tool timeout coreutils
src=$("$MZ_ROOT/harness/series/tree.sh" apply)
kunitconfig=mm/tests/zone_device_memmap.kunitconfig
[ -f "$src/$kunitconfig" ] || die "$src has no $kunitconfig: is the series applied (harness/series/tree.sh)?"
mz_lock tree_lock "$MZ_TREE.lock" "tree.sh to finish rewriting $MZ_TREE" -s
mkdir -p "$MZ_LOGS"

# run RUN: build, boot and parse; false on any failure.
run() {
	local r=$1 a=${1%-kasan} out=$MZ_BUILD/kunit-$1 log=$MZ_LOGS/kunit-$1 accel=tcg
	local -a build=(python3 tools/testing/kunit/kunit.py build --kunitconfig="$kunitconfig"
		--arch="$a" --build_dir="$out" --jobs="$MZ_JOBS")
	[ "$r" = "$a" ] || build+=(--kconfig_add CONFIG_KASAN=y --kconfig_add CONFIG_KASAN_GENERIC=y)
	need_tool "${qemu[$a]}" "${qemu_pkg[$a]}"
	[ -z "${cross[$a]}" ] || {
		need_tool "${cross[$a]}gcc" gcc-aarch64-linux-gnu
		build+=(--cross_compile="${cross[$a]}")
	}
	if command -v ccache >/dev/null 2>&1; then
		build+=(--make_options "CC=ccache ${cross[$a]}gcc")
	fi
	[ "$a" != x86_64 ] || [ "$MZ_ACCEL" != kvm ] || accel=kvm
	rm -f "$log.build" "$log.console" "$log.log"
	info "$r: building the KUnit kernel (cold: 3-10 min; log: $log.build)"
	(cd "$src" && mz_run "$log.build" "${build[@]}") ||
		{ tail -n 20 "$log.build" >&2; info "$r: the build failed; see $log.build"; return 1; }
	# shellcheck disable=SC2206 # the machine options are words
	local -a boot=("${qemu[$a]}" -nodefaults -m 1024 -kernel "$out/${image[$a]}"
		-append "kunit.enable=1 console=${console[$a]} kunit_shutdown=reboot"
		-no-reboot -nographic -accel "$accel" -serial stdio ${machine[$a]})
	info "$r: booting it under ${accel^^}: $(mz_quote "${boot[@]}")"
	timeout 900 "${boot[@]}" </dev/null >"$log.console" 2>&1 ||
		info "$r: QEMU exited with status $? (see $log.console)"
	verdict "$r" "$log"
}

# verdict RUN LOG: kunit.py's parse of LOG.console into LOG.log, printed;
# false unless some case passed and none failed, crashed or skipped.
verdict() {
	local r=$1 log=$2 summary
	(cd "$src" && python3 tools/testing/kunit/kunit.py parse "$log.console") >"$log.log" 2>&1 || true
	sed "s/^/  $r: /" "$log.log" >&2
	summary=$(grep -E 'Testing complete\. Ran [0-9]+ tests' "$log.log" | tail -n 1 || true)
	if [ -z "$summary" ] || [[ ! "$summary" =~ passed:\ [1-9] ]] ||
		[[ "$summary" =~ (failed|crashed|skipped|errors):\ [1-9] ]]; then
		info "$r: FAILED (${summary:-no KUnit results}); console: $log.console"
		return 1
	fi
	info "$r: ${summary#*] }"
}

# guest: the "# kunit: " lines a guest test printed (CRs and the prefix
# taken off) are the KTAP to parse.
guest() {
	local log=$MZ_LOGS/kunit-guest
	rm -f "$log.console" "$log.log"
	sed -n 's/\r$//; s/^# kunit: //p' "$guest_log" >"$log.console"
	if [ ! -s "$log.console" ]; then
		info "guest: FAILED: no '# kunit: ' lines in $guest_log (did the guest load zone_device_memmap_kunit? see its step 5)"
		return 1
	fi
	info "guest: the KTAP of $guest_log"
	verdict guest "$log"
}

failed=()
for r in "${runs[@]}"; do
	if [ "$r" = guest ]; then
		guest || failed+=("$r")
	else
		run "$r" || failed+=("$r")
	fi
done
[ ${#failed[@]} -eq 0 ] || die "KUnit failed on: ${failed[*]}"
info "KUnit passed on: ${runs[*]}"
