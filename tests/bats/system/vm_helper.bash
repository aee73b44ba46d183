# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# For the bats files that boot the kernel in MZ_TEST_BUILD ("load
# vm_helper" at their top, after "load ../common").

# mz_vm_initramfs [initramfs.sh options]: in setup_file, make the initramfs
# those tests boot, MZ_TEST_INITRAMFS, once per file.  A failure is kept
# for need_vm to report.
mz_vm_initramfs() {
	export MZ_TEST_INITRAMFS=$BATS_FILE_TMPDIR/initramfs.cpio.gz
	if [ -n "${MZ_TEST_BUILD:-}" ] && [ -f "$MZ_TEST_BUILD/arch/x86/boot/bzImage" ]; then
		"$H/vm/initramfs.sh" "$@" "$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" \
			>/dev/null 2>"$BATS_FILE_TMPDIR/initramfs.err" || true
	fi
}

# need_vm: skip unless MZ_TEST_BUILD names a built kernel; fail if its
# initramfs could not be made.
need_vm() {
	[ -n "${MZ_TEST_BUILD:-}" ] ||
		skip "no kernel: set MZ_TEST_BUILD to a build-kernel.sh output directory"
	[ -f "$MZ_TEST_BUILD/arch/x86/boot/bzImage" ] ||
		skip "no kernel: $MZ_TEST_BUILD/arch/x86/boot/bzImage missing"
	if [ ! -f "$MZ_TEST_INITRAMFS" ]; then
		cat "$BATS_FILE_TMPDIR/initramfs.err" >&2
		false
	fi
}
