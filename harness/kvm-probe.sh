#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kvm-probe.sh BUILD_DIR INITRAMFS: print "kvm" when the kernel in BUILD_DIR
# boots under KVM on this host, else "tcg".
#
# Some hosts have a /dev/kvm (PVM-based KVM) that hangs stock kernels right
# after "Booting from ROM", so a usable /dev/kvm is not enough: the kernel
# is booted under KVM with mz.test=true and a short timeout (MZ_PROBE_TIMEOUT,
# default 20 s), and the answer is kvm only if it reaches MZ-EXIT: 0.
#
# The answer is cached in $MZ_CACHE/accel-probe/<sha256 of bzImage>; delete
# that directory to probe again.  Without a read-writable MZ_KVM_DEV
# (default /dev/kvm) it prints tcg at once.  The probe's console log is
# $MZ_LOGS/kvm-probe.log.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: ${0##*/} BUILD_DIR INITRAMFS" >&2
	exit 2
}
[ $# -eq 2 ] || usage
case "$1$2" in -*) usage ;; esac
build=$1 initrd=$2

kvmdev=$MZ_KVM_DEV
if ! mz_kvm_usable; then
	info "$kvmdev missing or not read-writable: tcg"
	echo tcg
	exit 0
fi

bzimage=$(mz_boot_files "$build" "$initrd")
need_tool sha256sum coreutils

sum=$(sha256sum "$bzimage" | cut -d' ' -f1)
cache=$MZ_CACHE/accel-probe/$sum
if [ -f "$cache" ]; then
	answer=$(cat "$cache")
	case "$answer" in
	kvm|tcg)
		info "cached KVM probe for this kernel: $answer ($cache)"
		echo "$answer"
		exit 0 ;;
	esac
fi

timeout=$MZ_PROBE_TIMEOUT
log=$MZ_LOGS/kvm-probe.log
mkdir -p "$MZ_CACHE/accel-probe" "$MZ_LOGS"
info "probing KVM: booting the kernel with mz.test=true under KVM (timeout ${timeout}s)"
if "$MZ_ROOT/harness/vm.sh" --accel kvm --nvdimms 0 --timeout "$timeout" --log "$log" \
	"$build" "$initrd" true >/dev/null 2>"$log.err"; then
	answer=kvm
	info "the kernel boots under KVM: kvm"
else
	answer=tcg
	info "the kernel did not reach MZ-EXIT: 0 under KVM (see $log, $log.err): tcg"
fi
echo "$answer" >"$cache.tmp"
mv "$cache.tmp" "$cache"
echo "$answer"
