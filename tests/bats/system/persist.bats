#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# A namespace's memmap_streaming choice is saved when its info block is
# created and never rewritten: two boots of the kernel in MZ_TEST_BUILD
# (guest/tests/persist), the NVDIMMs' contents kept between them.
#
#   MZ_TEST_BUILD=~/.cache/memmap-zone-device/build/series-stream-y bats tests/bats/system/persist.bats
#
# Skipped without MZ_TEST_BUILD (make check passes the kernel it built).
# About two minutes under TCG.

# shellcheck disable=SC2154 # $stderr is set by run --separate-stderr
bats_require_minimum_version 1.5.0
load vm_helper

setup_file() {
	export ROOT H
	ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
	H=$ROOT/harness
	mz_vm_initramfs
}

setup() {
	export MZ_CACHE=$BATS_TEST_TMPDIR/cache MZ_LOGS=$BATS_TEST_TMPDIR/cache/logs
	export MZ_ACCEL=${MZ_ACCEL:-tcg} MZ_VM_DIR=$BATS_TEST_TMPDIR/vm
	T=$BATS_TEST_TMPDIR
	need_vm
}

# hashes OUTPUT: the distinct "NS SHA" of the "# infoblock NS SHA" lines
# guest/tests/persist printed.
hashes() {
	sed -n 's/^# infoblock \(namespace[0-9.]*\) \(.*\)$/\1 \2/p' <<<"$1" | sort -u
}

@test "memmap_streaming: saved when the info block is created, never rewritten: a file system and the info block survive a change and a reboot" {
	local set check
	run --separate-stderr "$H/vm/vm.sh" --nvdimms 2 --timeout 600 --log "$T/set.log" \
		"$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" -- persist set
	echo "$output"
	[ "$status" -eq 0 ] || { echo "$stderr"; tail -n 40 "$T/set.log"; false; }
	[[ "$output" == *"# Totals: pass:10 fail:0"* ]]
	set=$(hashes "$output")
	run --separate-stderr "$H/vm/vm.sh" --nvdimms 2 --keep-nvdimm --timeout 600 --log "$T/check.log" \
		"$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" -- persist check
	echo "$output"
	[ "$status" -eq 0 ] || { echo "$stderr"; tail -n 40 "$T/check.log"; false; }
	[[ "$output" == *"# Totals: pass:11 fail:0"* ]]
	grep -q 'backend=template+streaming' <<<"$output"
	grep -q 'backend=template ' <<<"$output"
	# One hash per namespace over both boots: neither the change, nor the
	# reboot, nor the read-only region's enable and refusal wrote the info
	# blocks.
	check=$(hashes "$output")
	echo "first boot: $set"
	echo "second boot: $check"
	[ "$(wc -l <<<"$set")" -eq 2 ]
	[[ "$set" != *unreadable* ]]
	[ "$set" = "$check" ]
}
