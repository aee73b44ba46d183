#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# harness/peers/hmm-compare.sh's verdict (make check-hmm-base) on fake runs:
# the cases and the kernel warnings of base 7.3.4 and of the series.
#
#   bats tests/bats/hmm-compare.bats

bats_require_minimum_version 1.5.0
load common

setup() {
	mz_test_dirs
	mkdir -p "$T/runs"
}

# run_out NAME RESULT...: NAME.out as guest/tests/hmm-tests prints it, one
# "result: STATUS CASE" per RESULT ("pass a.b.c"; a skip with the reason
# hmm-tests gave, "skip a.b.c # why"), and its totals.
run_out() {
	local name=$1 r
	shift
	{
		echo "# hmm-tests: test_hmm loaded"
		for r in "$@"; do echo "result: $r"; done
		echo "totals: Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:0, 1 s, exit 0"
	} >"$T/runs/$name.out"
}

# console NAME FILE:LINE FUNCTION...: NAME.log with one kernel warning per
# pair, as printk stamps them.
console() {
	local name=$1
	shift
	: >"$T/runs/$name.log"
	while [ $# -ge 2 ]; do
		printf '[   12.345678] WARNING: %s at %s+0x4fc/0x5d0, CPU#1: hmm-tests/1\r\n' "$1" "$2" \
			>>"$T/runs/$name.log"
		shift 2
	done
}

@test "hmm-compare.sh: the same cases and warnings pass, whatever the line numbers" {
	run_out base "pass hmm.hmm_device_private.open_close" "fail hmm.hmm_device_coherent.migrate_multiple" \
		"skip hmm.hmm_device_private.compound # Not enough huge pages" "skip hmm.hmm_device_private.hmm_gup_test"
	run_out series "pass hmm.hmm_device_private.open_close" "fail hmm.hmm_device_coherent.migrate_multiple" \
		"skip hmm.hmm_device_private.compound # Not enough huge pages" "skip hmm.hmm_device_private.hmm_gup_test"
	console base mm/memremap.c:158 memremap_pages mm/memremap.c:158 memremap_pages
	console series mm/memremap.c:339 memremap_pages
	run -0 "$H/peers/hmm-compare.sh" --compare "$T/runs" --summary "$T/s.json"
	[[ "$output" == *"base: warnings: mm/memremap.c:memremap_pages() (2x)"* ]]
	[[ "$output" == *"series: warnings: mm/memremap.c:memremap_pages() (1x)"* ]]
	[[ "$output" == *"passes every hmm-tests case the base passes"* ]]
	[ "$(jq -r '.series.failed[0]' "$T/s.json")" = hmm.hmm_device_coherent.migrate_multiple ]
	# Every skip with the reason hmm-tests gave, in the table and the JSON.
	[[ "$output" == *$'base: skipped, by hmm-tests\' reason:\n  (no reason given) (1): hmm.hmm_device_private.hmm_gup_test\n  Not enough huge pages (1): hmm.hmm_device_private.compound\n'* ]]
	[ "$(jq -c '.base.skipped' "$T/s.json")" = '[{"case":"hmm.hmm_device_private.compound","reason":"Not enough huge pages"},{"case":"hmm.hmm_device_private.hmm_gup_test","reason":""}]' ]
}

@test "hmm-compare.sh: a case passing on base only, or a warning in a new function, fails" {
	run_out base "pass hmm.hmm_device_coherent.open_close" "pass hmm.hmm_device_private.open_close"
	run_out series "fail hmm.hmm_device_coherent.open_close" "pass hmm.hmm_device_private.open_close"
	console base
	console series
	run -1 "$H/peers/hmm-compare.sh" --compare "$T/runs" --summary "$T/s.json"
	[[ "$output" == *"pass on base, not on the series: hmm.hmm_device_coherent.open_close"* ]]
	[[ "$output" == *"differs from the base"* ]]

	run_out series "pass hmm.hmm_device_coherent.open_close" "pass hmm.hmm_device_private.open_close"
	console series mm/mm_init.c:1234 memmap_init_zone_device
	run -1 "$H/peers/hmm-compare.sh" --compare "$T/runs" --summary "$T/s.json"
	[[ "$output" == *"warnings on the series only: mm/mm_init.c:memmap_init_zone_device()"* ]]

	# A run without totals (the guest died) fails too.
	console series
	sed -i '/^totals:/d' "$T/runs/series.out"
	run -1 "$H/peers/hmm-compare.sh" --compare "$T/runs" --summary "$T/s.json"
	[[ "$output" == *"series: hmm-tests printed no totals"* ]]
}

@test "hmm-compare.sh: argument errors and missing runs" {
	run -2 "$H/peers/hmm-compare.sh" --bogus
	[ "$output" = "hmm-compare.sh: error: unknown option '--bogus' (see --help)" ]
	run -2 "$H/peers/hmm-compare.sh" --compare
	run -1 "$H/peers/hmm-compare.sh" --compare "$T/runs"
	[[ "$output" == *"no base.out in it"* ]]
	run -2 "$H/peers/hmm-compare.sh" --variant nosuch
	[[ "$output" == *"--variant 'nosuch': want a variant of Kconfig.fragments/"* ]]
}
