#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# harness/build/kunit.sh --guest-output: make check's verdict on the KUnit
# tests its smoke guest loads as modules (guest/tests/smoke, steps 5-6).
#
#   bats tests/bats/kunit.bats
#
# The fixtures are two consoles of that guest from before its test's
# output had a serial port of its own (vm.sh), cut down to what kunit.sh
# reads and a few kernel lines (CRLF, as QEMU's serial log has them):
# pass.console from the series' stream-y kernel, mutant.console from the
# same kernel with the plain template copy leaving a struct page's last
# word unwritten (the 5 cases that copy with plain stores fail).  Needs
# the kernel tree of harness/series/tree.sh for kunit.py (MZ_TREE, default
# ~/.cache/memmap-zone-device/linux; 'make check' makes it first); the
# argument errors run without it.

# shellcheck disable=SC2154 # $stderr is set by run --separate-stderr
bats_require_minimum_version 1.5.0

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	H=$ROOT/harness
	F=$BATS_TEST_DIRNAME/fixtures/kunit
	T=$BATS_TEST_TMPDIR
	export MZ_TREE=${MZ_TREE:-${MZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memmap-zone-device}/linux}
	export MZ_CACHE=$T/cache MZ_LOGS=$T/cache/logs
}

need_tree() {
	local tag
	# shellcheck disable=SC2016
	tag=$(bash -c '. "$1/lib.sh" && echo "$MZ_BASE_TAG"' _ "$H")
	git -C "$MZ_TREE" rev-parse -q --verify "refs/tags/$tag" >/dev/null 2>&1 ||
		skip "no kernel tree at $MZ_TREE (tag $tag): run harness/series/tree.sh"
}

@test "kunit.sh: argument errors" {
	run -2 "$H/build/kunit.sh" --guest-output
	[ "$output" = "kunit.sh: error: --guest-output needs a value (see --help)" ]
	run -2 "$H/build/kunit.sh" --guest-output "$F/pass.console" x86_64
	[[ "$output" == *"--guest-output '$F/pass.console': builds no kernel, so no RUN ('x86_64')"* ]]
	run -2 "$H/build/kunit.sh" riscv
	[[ "$output" == "kunit.sh: error: RUN 'riscv': want x86_64 arm64 x86_64-kasan "* ]]
	run -1 "$H/build/kunit.sh" --guest-output "$T/missing.console"
	[[ "$output" == *"--guest-output $T/missing.console: no such file"* ]]
}

@test "kunit.sh --guest-output: the guest's KTAP passes when every case passes" {
	need_tree
	run -0 --separate-stderr "$H/build/kunit.sh" --guest-output "$F/pass.console"
	[[ "$stderr" == *"guest: Testing complete. Ran 8 tests: passed: 8"* ]]
	[[ "$stderr" == *"KUnit passed on: guest"* ]]
	# What kunit.py parsed: the KTAP alone, without the prefix or the CRs.
	[ "$(head -n 1 "$MZ_LOGS/kunit-guest.console")" = "KTAP version 1" ]
	run ! grep -q $'\r' "$MZ_LOGS/kunit-guest.console"
}

@test "kunit.sh --guest-output: a template that forgets a word fails, naming the cases" {
	need_tree
	run -1 --separate-stderr "$H/build/kunit.sh" --guest-output "$F/mutant.console"
	[[ "$stderr" == *"[FAILED] order 0, streaming off"* ]]
	[[ "$stderr" == *"word 7: template 0xa5a5a5a5a5a5a5a5, slow path 0x0"* ]]
	[[ "$stderr" == *"guest: FAILED ("*"Ran 8 tests: passed: 3, failed: 5)"* ]]
}

@test "kunit.sh --guest-output: an output without the test's KTAP fails, saying what to look at" {
	need_tree
	grep -v '^# kunit: ' "$F/pass.console" >"$T/none.console"
	run -1 --separate-stderr "$H/build/kunit.sh" --guest-output "$T/none.console"
	[[ "$stderr" == *"no '# kunit: ' lines in $T/none.console"*"steps 5 and 6"* ]]
	# A suite that skipped is not a pass either.
	sed 's/^\(# kunit:  *ok [0-9] order 1\)\r$/\1 # SKIP order 1 not run\r/' "$F/pass.console" >"$T/skip.console"
	grep -q 'SKIP order 1' "$T/skip.console"
	run -1 --separate-stderr "$H/build/kunit.sh" --guest-output "$T/skip.console"
	[[ "$stderr" == *"skipped: 1"* ]]
}
