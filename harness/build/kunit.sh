#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit.sh: the series' KUnit tests of the template copies, one kernel per RUN.
#
#   kunit.sh [RUN...]                (make kunit KUNIT_ARGS='RUN...'; default: every RUN)
#   kunit.sh --guest-output LOG      (make check: no kernel built)
#
#   x86_64        x86-64, with the streaming backend (MOVNTI)
#   arm64         arm64, the other large architecture with ZONE_DEVICE
#                 (make check-series)
#   x86_64-kasan  x86-64 with generic KASAN, where the template path must
#                 run, without the streaming backend (make check-debug)
#
# Each RUN is a small kernel that the kernel's own kunit.py builds from
# the tests' kunitconfigs (in $MZ_BUILD/kunit-RUN) and parses the KTAP of;
# QEMU boots it as kunit.py's qemu_configs say (arm64: Debian's cross gcc
# and qemu-system-aarch64, which harness/deps.sh installs).  Fails when a
# run fails, crashes, skips or runs no test.  Logs:
# $MZ_LOGS/kunit-RUN.{build,console,log}.
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
all_runs=(x86_64 arm64 x86_64-kasan)

mz_opt --guest-output guest_log '' LOG . \
	'parse the KTAP a guest test printed as "# kunit: LINE" lines (vm.sh NAME.test.log: guest/tests/smoke loads the test as a module)'
mz_parse "$@"
runs=(${MZ_OPERANDS[@]+"${MZ_OPERANDS[@]}"})
for r in ${runs[@]+"${runs[@]}"}; do
	[ -n "${qemu[${r%-kasan}]:-}" ] ||
		mz_arg_error "RUN '$r': want ${all_runs[*]} (an architecture, -kasan for KASAN)"
done
[ ${#runs[@]} -gt 0 ] || runs=("${all_runs[@]}")
if [ -n "$guest_log" ]; then
	[ ${#MZ_OPERANDS[@]} -eq 0 ] ||
		mz_arg_error "--guest-output '$guest_log': builds no kernel, so no RUN ('${MZ_OPERANDS[0]}')"
	[ -f "$guest_log" ] || die "--guest-output $guest_log: no such file"
	runs=(guest)
fi

need_tool python3 python3
need_tool timeout coreutils
src=$("$MZ_ROOT/harness/series/tree.sh" apply)
# The tests' kunitconfigs: the ZONE_DEVICE one and the hot-added memory
# one (patches/hotplug/); kunit.py merges them into one kernel.
kunitconfigs=(mm/tests/zone_device_memmap.kunitconfig mm/tests/memmap_hotplug.kunitconfig)
for k in "${kunitconfigs[@]}"; do
	[ -f "$src/$k" ] || die "$src has no $k: is the series applied (harness/series/tree.sh)?"
done
mz_lock tree_lock "$MZ_TREE.lock" "tree.sh to finish rewriting $MZ_TREE" -s
mkdir -p "$MZ_LOGS"

# run RUN: build, boot and parse; false on any failure.  QEMU is run
# here rather than by 'kunit.py run', which asks for KVM first: MZ_ACCEL=kvm
# uses KVM for x86_64, anything else TCG (a /dev/kvm may hang stock
# kernels).
run() {
	local r=$1 a=${1%-kasan} out=$MZ_BUILD/kunit-$1 log=$MZ_LOGS/kunit-$1 accel=tcg
	local -a build=(python3 tools/testing/kunit/kunit.py build
		"${kunitconfigs[@]/#/--kunitconfig=}" --arch="$a" --build_dir="$out" --jobs="$MZ_JOBS")
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
	info "$r: building the KUnit kernel (log: $log.build)"
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
		info "guest: FAILED: no '# kunit: ' lines in $guest_log (did the guest load the KUnit modules? see its steps 5 and 6)"
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
