#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kvm-probe.sh [--no-boot] [--accel auto|kvm|tcg] BUILD_DIR INITRAMFS: the accelerator
# QEMU is to use for the kernel in BUILD_DIR.  --accel kvm or tcg (callers
# pass MZ_ACCEL) is printed as it is; auto, the default, prints "kvm" when
# that kernel boots under KVM on this host, else "tcg".  The matrix and
# the benchmark run it once per kernel and give vm.sh --accel the answer;
# vm.sh without --accel runs it for its own boot.
#
# Some hosts have a /dev/kvm (PVM-based KVM) that hangs stock kernels right
# after "Booting from ROM", so a usable /dev/kvm is not enough: the kernel
# is booted under KVM with mz.test=true and a short timeout (MZ_PROBE_TIMEOUT,
# default 20 s), and the answer is kvm only if it reaches MZ-EXIT: 0.
#
# The answer is cached in $MZ_ACCEL_PROBES/<sha256 of bzImage>; delete
# that directory to probe again.  Without a read-writable MZ_KVM_DEV
# (default /dev/kvm) it prints tcg at once.  The probe's console log is
# $MZ_LOGS/kvm-probe.log.  --no-boot (vm.sh --dry-run) answers only what
# needs no boot: the explicit choice, no usable device, or the cache; when
# only a boot would tell, it prints nothing and exits 3, having started
# and written nothing.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

usage() {
	echo "usage: ${0##*/} [--no-boot] [--accel auto|kvm|tcg] BUILD_DIR INITRAMFS" >&2
	exit 2
}
want=auto
noboot=0
if [ "${1:-}" = --no-boot ]; then
	noboot=1
	shift
fi
if [ "${1:-}" = --accel ]; then
	[ $# -ge 2 ] || usage
	want=$2
	shift 2
fi
[ $# -eq 2 ] || usage
case "$1$2" in -*) usage ;; esac
build=$1 initrd=$2
case "$want" in
kvm|tcg) echo "$want"; exit 0 ;;
auto) ;;
*) echo "${0##*/}: error: accelerator '$want': not auto, kvm or tcg (MZ_ACCEL)" >&2; exit 2 ;;
esac

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
