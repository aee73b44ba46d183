#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-ndctl-base.sh: run the lab's ndctl test on the base kernel (no namespace attribute).
#
#   check-ndctl-base.sh      (make check-ndctl-base)
#
# The lab's ndctl test (guest/memmap_init/memmap_ndctl.sh) on the base
# kernel (7.3.4 with the test_hmm fixes), the kernel without the namespace
# attribute that the series' kernels cannot be: with the patched ndctl
# (build-ndctl.sh), ndctl list shows no memmap_streaming field and
# create-namespace --memmap-streaming fails before it changes the
# namespace or its data.  The matrix expects that case to skip on every
# series kernel (matrix-skips.txt); this is where it runs.
#
# Builds the base guest kernel (build-kernel.sh --base guest, as make
# bench does) and the streaming variant's selftests (the scripts are the
# series'; the base kernel loads none of their modules), boots the base
# kernel with two NVDIMMs (one labelled) and fails unless every test
# passed or skipped and "--memmap-streaming on a kernel without the
# attribute changes nothing" passed.  Log:
# $MZ_LOGS/check-ndctl-base.{log,out}.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 0 0 'no arguments' "$@"
H=$MZ_ROOT/harness
base=$("$H/build/build-kernel.sh" --base guest) || die "building the base kernel failed"
series=$("$H/build/build-kernel.sh" "$MZ_STREAM_VARIANT") || die "building variant $MZ_STREAM_VARIANT failed"
st=$MZ_SELFTESTS/$MZ_STREAM_VARIANT
"$H/build/build-selftests.sh" "$series" "$st" >/dev/null || die "building the selftests failed"
ndctl=$("$H/build/build-ndctl.sh") || die "building ndctl with patches/ndctl/ failed"
initrd=$MZ_INITRAMFS/check-ndctl-base.cpio.gz
# The scripts and ktap_helpers.sh of the series' tree.
MZ_KSRC=$("$MZ_ROOT/harness/series/tree.sh" apply) "$H/vm/initramfs.sh" --ndctl "$ndctl" --add "$st:/mz/kselftest" "$base" "$initrd" >/dev/null ||
	die "making the initramfs failed"
out=$MZ_LOGS/check-ndctl-base.out
rc=0
"$H/vm/vm.sh" --smp 2 --label-nvdimm "$MZ_NVDIMM_SIZE" --log "$MZ_LOGS/check-ndctl-base.log" \
	"$base" "$initrd" -- kselftest memmap_init:memmap_ndctl.sh devs >"$out" || rc=$?
grep -E '^# (not )?ok [0-9]+ ' "$out" >&2 || true
[ "$rc" -eq 0 ] || die "the guest failed (exit $rc); see $out and $MZ_LOGS/check-ndctl-base.log"
grep -qE '^# ok [0-9]+ --memmap-streaming on a kernel without the attribute changes nothing$' "$out" ||
	die "the kernel-without-attribute case did not pass (a skip does not count); see $out"
info "memmap_ndctl.sh on base $MZ_BASE_VERSION: passed, the kernel-without-attribute case included"
