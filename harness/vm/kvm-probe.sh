#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # the options' variables: mz_opt and mz_flag set them
# kvm-probe.sh: print the accelerator, kvm or tcg, QEMU is to use for a kernel.
#
#   kvm-probe.sh [--no-boot] [--accel auto|kvm|tcg] BUILD_DIR INITRAMFS
#
# auto boots the kernel in BUILD_DIR under KVM once (mz.test=true, within
# MZ_PROBE_TIMEOUT seconds) and answers kvm only when it passes: some
# hosts' KVM hangs stock kernels.  Without a usable MZ_KVM_DEV the answer
# is tcg at once.  The answer is cached per kernel image in
# $MZ_ACCEL_PROBES (delete it to probe again); the probe's console log is
# $MZ_LOGS/kvm-probe.log.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_opt --accel want auto 'auto|kvm|tcg' '^(auto|kvm|tcg)$' \
	'the accelerator asked for (callers pass MZ_ACCEL): kvm and tcg are printed as they are, auto is probed'
mz_flag --no-boot noboot \
	'answer only what needs no boot, else print nothing and exit 3, having started and written nothing'
mz_parse "$@"
[ ${#MZ_OPERANDS[@]} -eq 2 ] || mz_arg_error "want BUILD_DIR INITRAMFS, not ${#MZ_OPERANDS[@]} arguments"
build=${MZ_OPERANDS[0]} initrd=${MZ_OPERANDS[1]}
if [ "$want" != auto ]; then
	echo "$want"
	exit 0
fi

kvmdev=$MZ_KVM_DEV
if ! mz_kvm_usable; then
	info "$kvmdev missing or not read-writable: tcg"
	echo tcg
	exit 0
fi

bzimage=$(mz_boot_files "$build" "$initrd")
need_tool sha256sum coreutils

sum=$(sha256sum "$bzimage" | cut -d' ' -f1)
cache=$MZ_ACCEL_PROBES/$sum
if [ -f "$cache" ]; then
	answer=$(cat "$cache")
	case "$answer" in
	kvm|tcg)
		info "cached KVM probe for this kernel: $answer ($cache)"
		echo "$answer"
		exit 0 ;;
	esac
fi

[ "$noboot" = 0 ] || exit 3
timeout=$MZ_PROBE_TIMEOUT
log=$MZ_LOGS/kvm-probe.log
mkdir -p "$MZ_ACCEL_PROBES" "$MZ_LOGS"
info "probing KVM: booting the kernel with mz.test=true under KVM (timeout ${timeout}s)"
if "$MZ_ROOT/harness/vm/vm.sh" --accel kvm --nvdimms 0 --timeout "$timeout" --log "$log" \
	"$build" "$initrd" true >/dev/null 2>"$log.err"; then
	answer=kvm
	info "the kernel boots under KVM: kvm"
else
	answer=tcg
	info "the kernel did not reach MZ-EXIT: 0 under KVM (see $log, ${log%.log}.test.log, $log.err): tcg"
fi
echo "$answer" >"$cache.tmp"
mv "$cache.tmp" "$cache"
echo "$answer"
