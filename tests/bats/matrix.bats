#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# harness/matrix/ktap-count.awk, and harness/matrix/matrix.sh up to the
# point where it would boot a guest (its argument checks, --logs).  The
# cells booted are tests/bats/system/matrix.bats.

bats_require_minimum_version 1.5.0
load common

setup() {
	mz_test_dirs
}

@test "ktap-count.awk: counts per group, top-level failures count" {
	run awk -f "$H/matrix/ktap-count.awk" <<'EOF2'
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

@test "ktap-count.awk: a group line a kernel message split still gives four words" {
	# What a console that printed the kernel's message in the middle of
	# the line gave matrix.sh once (its sums then took "MHz" for a count).
	run awk -f "$H/matrix/ktap-count.awk" <<'EOF2'
# selftests: memmap_init: [    6.120341] tsc: Refined TSC clocksource calibration: 2445.404 MHz
memmap_controls.sh
# ok 1 a
ok 1 selftests: memmap_init: memmap_controls.sh
EOF2
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "2445.404_MHz 1 0 0" ]
	[ "${lines[1]}" = "controls 0 0 0" ]
}

@test "ktap-count.awk -v list=skips: each skip with its group and reason" {
	run awk -v list=skips -f "$H/matrix/ktap-count.awk" <<'EOF2'
# selftests: memmap_init: memmap_controls.sh
# ok 1 a
# # b: skipped: no nvdimm
# ok 2 b # SKIP
# ok 3 c # SKIP said inline
ok 1 selftests: memmap_init: memmap_controls.sh
# selftests: memmap_init: memmap_equivalence.sh
# 1..0 # SKIP only the slow path
ok 2 selftests: memmap_init: memmap_equivalence.sh # SKIP
EOF2
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = "controls"$'\037'"b"$'\037'"no nvdimm" ]
	[ "${lines[1]}" = "controls"$'\037'"c"$'\037'"said inline" ]
	[ "${lines[2]}" = "equivalence"$'\037'$'\037'"only the slow path" ]
}

@test "matrix.sh: argument errors" {
	# Every one: exit 2, "matrix.sh: error: OPTION 'VALUE': ...".
	m() { run -2 "$H/matrix/matrix.sh" "$@"; }
	m --bogus
	[ "$output" = "matrix.sh: error: unknown option '--bogus' (see --help)" ]
	m --append
	[ "$output" = "matrix.sh: error: --append needs a value (see --help)" ]
	m --variants nosuch
	[[ "$output" == *"--variants 'nosuch': want a variant of Kconfig.fragments/"* ]]
	m --params off,maybe
	[[ "$output" == *"--params 'maybe': want a cell of"* ]]
	m --jobs 0
	[ "$output" = "matrix.sh: error: --jobs '0': want N (guests run in parallel, one CPU each), of the form ^[1-9][0-9]*\$ (see --help)" ]
	m --variants stream-y:none+maybe
	[[ "$output" == *"--variants 'maybe': want a cell"* ]]
	m --variants stream-y:
	[[ "$output" == *"--variants 'stream-y:': want LIST ("* ]]
	m --variants stream-y,stream-y:on
	[[ "$output" == *"--variants 'stream-y': given twice"* ]]
	m --variants :on
	[[ "$output" == *"--variants ':on': want LIST ("* ]]
	m --params none,safer
	[[ "$output" == *"--params 'safer': want a cell of harness/matrix/matrix-cells.txt (none, off, altmap, on, bogus, cxl, hotplug, safe, numa, threads, distro)"* ]]
	m --boot-timeout 0
	[[ "$output" == *"--boot-timeout '0': want SECONDS ("* ]]
	m --build "$BATS_TEST_TMPDIR/nosuch"
	[[ "$output" == *"--build '$BATS_TEST_TMPDIR/nosuch': want a build-kernel.sh output directory"* ]]
	m --guest-test '../x'
	[[ "$output" == *"--guest-test '../x': want NAME ("* ]]
	m --set nosuch
	[[ "$output" == *"--set 'nosuch': want check|debug ("* ]]
	m --add
	m --add nocolon
	[[ "$output" == *"--add 'nocolon': want SRC:DST ("* ]]
	m extra
	[ "$output" = "matrix.sh: error: unexpected argument 'extra' (see --help)" ]
	run -0 "$H/matrix/matrix.sh" --help
	[[ "${lines[0]}" == "matrix.sh: run the memmap_init selftests"* ]]
}

@test "matrix.sh: --logs is emptied only when matrix.sh made it" {
	L=$BATS_TEST_TMPDIR/logs
	mkdir -p "$L"
	# No kernel: a run that gets past the check stops at once.
	nobuild=$BATS_TEST_TMPDIR/nobuild
	mkdir -p "$nobuild/arch/x86/boot" && : >"$nobuild/arch/x86/boot/bzImage"
	echo precious >"$L/notes.txt"
	run -2 "$H/matrix/matrix.sh" --build "$nobuild" --variants stream-y --params none --logs "$L"
	[[ "$output" == *"--logs '$L' holds files matrix.sh did not write"* ]]
	[ "$(cat "$L/notes.txt")" = precious ]
	echo file >"$BATS_TEST_TMPDIR/file"
	run -2 "$H/matrix/matrix.sh" --logs "$BATS_TEST_TMPDIR/file"
	[[ "$output" == *"is not a directory"* ]]
	[ "$(cat "$BATS_TEST_TMPDIR/file")" = file ]
	# With the marker a previous run leaves (or only per-cell files), it
	# is emptied; here the run then stops at the missing kernel.
	: >"$L/.mz-matrix-logs"
	run -1 "$H/matrix/matrix.sh" --build "$nobuild" --variants stream-y --params none --logs "$L"
	[[ "$output" == *"making the initramfs for stream-y failed"* ]]
	[ ! -e "$L/notes.txt" ] && [ -f "$L/.mz-matrix-logs" ]
	rm -rf "$L" && mkdir -p "$L" && echo 0 >"$L/stream-y.none.rc"
	run -1 "$H/matrix/matrix.sh" --build "$nobuild" --variants stream-y --params none --logs "$L"
	[ ! -e "$L/stream-y.none.rc" ]
}

