#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Tests of harness/matrix.sh and harness/ktap-count.awk.  The VM tests use
# the kernel in MZ_TEST_BUILD for every variant (MZ_MATRIX_BUILD) and run
# small guest tests instead of the kselftest target (MZ_MATRIX_TEST);
# without MZ_TEST_BUILD they are skipped.

bats_require_minimum_version 1.5.0

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	H=$ROOT/harness
	export MZ_CACHE=$BATS_TEST_TMPDIR/cache
	export MZ_LOGS=$MZ_CACHE/logs
	export MZ_ACCEL=${MZ_ACCEL:-tcg}
	SUMMARY=$BATS_TEST_TMPDIR/summary.json
}

need_vm() {
	if [ -z "${MZ_TEST_BUILD:-}" ] || [ ! -f "$MZ_TEST_BUILD/arch/x86/boot/bzImage" ]; then
		skip "no kernel: set MZ_TEST_BUILD to a build-kernel.sh output directory"
	fi
	export MZ_MATRIX_BUILD=$MZ_TEST_BUILD
}

@test "ktap-count.awk: counts per group, top-level failures count" {
	run awk -f "$H/ktap-count.awk" <<'EOF2'
# selftests: memmap_init: memmap_controls.sh
# TAP version 13
# ok 1 a
# not ok 2 b
# ok 3 c # SKIP no nvdimm
not ok 1 selftests: memmap_init: memmap_controls.sh # exit=1
# selftests: memmap_init: memmap_races.sh
# timeout
not ok 2 selftests: memmap_init: memmap_races.sh # TIMEOUT 300 seconds
# selftests: memmap_init: memmap_data.sh
# ok 1 x
ok 3 selftests: memmap_init: memmap_data.sh
# selftests: memmap_init: memmap_equivalence.sh
# TAP version 13
# 1..0 # SKIP kernels with kasan or kmsan only have the slow path
ok 4 selftests: memmap_init: memmap_equivalence.sh # SKIP
EOF2
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "controls 1 1 1" ]
	[ "${lines[1]}" = "races 0 1 0" ]
	[ "${lines[2]}" = "data 1 0 0" ]
	[ "${lines[3]}" = "equivalence 0 0 1" ]
}

@test "matrix.sh: argument errors" {
	run -2 "$H/matrix.sh" --bogus
	run -1 "$H/matrix.sh" --variants nosuch
	[[ "$output" == *"unknown variant 'nosuch'"* ]]
	run -1 "$H/matrix.sh" --params off,maybe
	[[ "$output" == *"unknown boot parameter value 'maybe'"* ]]
	run -1 "$H/matrix.sh" --jobs 0
	[[ "$output" == *"--jobs must be a positive number"* ]]
}

@test "matrix.sh: passing cells give counts and a JSON summary" {
	need_vm
	MZ_MATRIX_TEST=fake-kselftest run "$H/matrix.sh" --variants stream-off \
		--params none,bogus --timeout 120 --summary "$SUMMARY"
	[ "$status" -eq 0 ]
	[ "$(jq length "$SUMMARY")" -eq 4 ]
	[ "$(jq -c '[.[] | select(.boot_param == "bogus" and .group == "controls")][0] | [.pass, .fail, .skip]' "$SUMMARY")" = "[1,0,1]" ]
	[ "$(jq -r '.[0].variant' "$SUMMARY")" = stream-off ]
}

@test "matrix.sh: a failing guest test fails the matrix" {
	need_vm
	MZ_MATRIX_TEST=fail run "$H/matrix.sh" --variants stream-off --params none \
		--timeout 120 --summary "$SUMMARY"
	[ "$status" -ne 0 ]
	[[ "$output" == *"FAIL (guest exit 1"* ]]
}

@test "matrix.sh: a kernel WARNING in the guest log fails the matrix" {
	need_vm
	MZ_MATRIX_TEST=warn run "$H/matrix.sh" --variants stream-off --params none \
		--timeout 120 --summary "$SUMMARY"
	[ "$status" -ne 0 ]
	[[ "$output" == *FAIL* ]]
}

@test "matrix.sh: a hanging guest is killed and fails the matrix" {
	need_vm
	MZ_MATRIX_TEST=hang run "$H/matrix.sh" --variants stream-off --params none \
		--timeout 15 --summary "$SUMMARY"
	[ "$status" -ne 0 ]
	[[ "$output" == *FAIL* ]]
}

@test "matrix.sh: a guest that runs no test fails its cell" {
	need_vm
	MZ_MATRIX_TEST=true run "$H/matrix.sh" --variants stream-off --params none \
		--timeout 120 --summary "$SUMMARY"
	[ "$status" -ne 0 ]
	[[ "$output" == *"FAIL (no test ran)"* ]]
}
