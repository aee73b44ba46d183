#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The checkpatch step of harness/check/check-series.sh runs checkpatch.pl inside
# the kernel tree: its git lookups and its CamelCase cache
# (.checkpatch-camelcase.*) belong to the kernel's repository, not to this
# project's.
#
#   bats tests/bats/checkpatch.bats
#
# Needs the kernel tree of harness/series/tree.sh (MZ_TREE, default
# ~/.cache/memmap-zone-device/linux; 'make check' makes it first); skipped
# without it.  The series checked is a one-patch series written here.

# shellcheck disable=SC2154 # $stderr is set by run --separate-stderr
bats_require_minimum_version 1.5.0

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	H=$ROOT/harness
	T=$BATS_TEST_TMPDIR
	export MZ_TREE=${MZ_TREE:-${MZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memmap-zone-device}/linux}
	export MZ_CACHE=$T/cache MZ_LOGS=$T/cache/logs
	# shellcheck disable=SC2016
	tag=$(bash -c '. "$1/lib.sh" && echo "$MZ_BASE_TAG"' _ "$H")
	git -C "$MZ_TREE" rev-parse -q --verify "refs/tags/$tag" >/dev/null 2>&1 ||
		skip "no kernel tree at $MZ_TREE (tag $tag): run harness/series/tree.sh"
}

# A patch with a CamelCase identifier (checkpatch then builds its CamelCase
# cache) on a line that ends in a blank.
bad_series() {
	mkdir -p "$T/patches"
	cat >"$T/patches/0001-mm-test.patch" <<-'EOF'
	From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
	From: Test Sender <test@example.org>
	Date: Sun, 22 Nov 2026 00:00:00 +0000
	Subject: [PATCH] mm: add a test counter

	Add a counter for the test.

	Signed-off-by: Test Sender <test@example.org>
	---
	 mm/mm_init.c | 1 +
	 1 file changed, 1 insertion(+)

	diff --git a/mm/mm_init.c b/mm/mm_init.c
	index 1111111111111..2222222222222 100644
	--- a/mm/mm_init.c
	+++ b/mm/mm_init.c
	@@ -30,6 +30,7 @@
	 #include "shuffle.h"
	 
	 #include <asm/setup.h>
	+static int memmapTestCounter; 
	 
	 #ifdef CONFIG_DEBUG_MEMORY_INIT
	 int __meminitdata mminit_loglevel;
	EOF
	echo 0001-mm-test.patch >"$T/patches/series"
}

@test "check-series.sh checkpatch: runs in the kernel tree, no CamelCase cache in the project, a bad patch fails" {
	bad_series
	touch "$T/start"
	sleep 1
	cd "$ROOT"
	MZ_PATCHES=$T/patches run -1 --separate-stderr "$H/check/check-series.sh" checkpatch
	[[ "$stderr" == *"0001-mm-test.patch:"* ]]
	[[ "$stderr" == *"trailing whitespace"* ]]
	# The CamelCase check ran, so checkpatch wrote its cache somewhere...
	[[ "$stderr" == *"Avoid CamelCase: <memmapTestCounter>"* ]]
	[[ "$stderr" == *"checkpatch --strict reports the above"* ]]
	# ... but not here.
	run -0 find "$ROOT" -maxdepth 1 -name '.checkpatch-camelcase.*' -newer "$T/start"
	[ -z "$output" ]
	# And the same check is silent on a clean patch.
	sed -i 's/^+static int memmapTestCounter; $/+static int memmap_test_counter;/' "$T/patches/0001-mm-test.patch"
	MZ_PATCHES=$T/patches run -0 --separate-stderr "$H/check/check-series.sh" checkpatch
	[[ "$stderr" == *"clean on every patch"* ]]
}

@test "check-series.sh checkpatch: a missing MZ_PATCHES series is an error" {
	mkdir -p "$T/empty"
	MZ_PATCHES=$T/empty run -1 --separate-stderr "$H/check/check-series.sh" checkpatch
	[[ "$stderr" == *"series missing"* ]]
}

@test "check-series.sh checkpatch: accepts an Originally-by: tag, nothing else it warns about" {
	bad_series
	sed -i 's/^+static int memmapTestCounter; $/+static int memmap_test_counter;/' "$T/patches/0001-mm-test.patch"
	# A well-formed Originally-by: passes ...
	sed -i 's/^Signed-off-by: Test Sender/Originally-by: First Author <first@example.org>\n&/' \
		"$T/patches/0001-mm-test.patch"
	MZ_PATCHES=$T/patches run -0 --separate-stderr "$H/check/check-series.sh" checkpatch
	[[ "$stderr" == *"clean on every patch"* ]]
	# ... a malformed one still fails, with checkpatch's own words.
	sed -i 's/^Originally-by: First/Originally-by:  First/' "$T/patches/0001-mm-test.patch"
	MZ_PATCHES=$T/patches run -1 --separate-stderr "$H/check/check-series.sh" checkpatch
	[[ "$stderr" == *"Use a single space after Originally-by:"* ]]
	# ... and so does any other non-standard tag.
	sed -i 's/^Originally-by:  First/Inspired-by: First/' "$T/patches/0001-mm-test.patch"
	MZ_PATCHES=$T/patches run -1 --separate-stderr "$H/check/check-series.sh" checkpatch
	[[ "$stderr" == *"Non-standard signature: Inspired-by:"* ]]
}

@test "check-series.sh checkpatch: the ndctl series of patches/ndctl/ is checked too (--no-tree)" {
	bad_series
	sed -i 's/^+static int memmapTestCounter; $/+static int memmap_test_counter;/' "$T/patches/0001-mm-test.patch"
	mkdir -p "$T/patches/ndctl"
	# ndctl files are not in the kernel tree: without --no-tree checkpatch
	# would complain about that; with it, only about the style.
	cat >"$T/patches/ndctl/0001-ndctl-test.patch" <<-'EOF2'
	From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
	From: Test Sender <test@example.org>
	Date: Sun, 22 Nov 2026 00:00:00 +0000
	Subject: [ndctl PATCH] ndctl: Add a test flag

	Add a flag for the test.

	Signed-off-by: Test Sender <test@example.org>
	---
	 ndctl/streaming.c | 1 +
	 1 file changed, 1 insertion(+)

	diff --git a/ndctl/streaming.c b/ndctl/streaming.c
	index 1111111111111..2222222222222 100644
	--- a/ndctl/streaming.c
	+++ b/ndctl/streaming.c
	@@ -1,3 +1,4 @@
	 #include <stdio.h>
	 
	+static int test_flag;
	 int streaming;
	EOF2
	echo 0001-ndctl-test.patch >"$T/patches/ndctl/series"
	MZ_PATCHES=$T/patches run -0 --separate-stderr "$H/check/check-series.sh" checkpatch
	[[ "$stderr" == *"clean on every patch (1 kernel, 1 ndctl)"* ]]
	sed -i 's/^+static int test_flag;$/+static int test_flag; /' "$T/patches/ndctl/0001-ndctl-test.patch"
	MZ_PATCHES=$T/patches run -1 --separate-stderr "$H/check/check-series.sh" checkpatch
	[[ "$stderr" == *"ndctl/0001-ndctl-test.patch:"* ]]
	[[ "$stderr" == *"trailing whitespace"* ]]
}

@test "check-series.sh bisect: an MZ_BISECT_FROM that names no commit is refused before any build" {
	MZ_BISECT_FROM=no-such-revision run -1 --separate-stderr "$H/check/check-series.sh" bisect
	[[ "$stderr" == *"MZ_BISECT_FROM=no-such-revision: no such revision in $MZ_TREE"* ]]
	[ ! -e "$MZ_CACHE/build/check-bisect" ]
}

@test "check-series.sh bisect: an MZ_BISECT_TO that names no commit of the series, or nothing after the start, is refused before any build" {
	MZ_BISECT_TO=no-such-revision run -1 --separate-stderr "$H/check/check-series.sh" bisect
	[[ "$stderr" == *"MZ_BISECT_TO=no-such-revision: no such revision in $MZ_TREE"* ]]
	MZ_BISECT_FROM=fixes MZ_BISECT_TO=fixes run -1 --separate-stderr "$H/check/check-series.sh" bisect
	[[ "$stderr" == *"MZ_BISECT_TO=fixes: no patch after MZ_BISECT_FROM=fixes"* ]]
	MZ_BISECT_FROM=opt-in MZ_BISECT_TO=fixes run -1 --separate-stderr "$H/check/check-series.sh" bisect
	[[ "$stderr" == *"MZ_BISECT_TO=fixes: no patch after MZ_BISECT_FROM=opt-in"* ]]
	[ ! -e "$MZ_CACHE/build/check-bisect" ]
}

@test "check-series.sh checkpatch: a non-atomic page flag setter is not CamelCase, other CamelCase is" {
	bad_series
	# __SetPageOffline() is page-flags.h's, generated as SetPageOffline()
	# is, which checkpatch exempts itself.
	sed -i 's/^+static int memmapTestCounter; $/+static void (*mz_set)(struct page *) = __SetPageOffline;/' \
		"$T/patches/0001-mm-test.patch"
	MZ_PATCHES=$T/patches run -0 --separate-stderr "$H/check/check-series.sh" checkpatch
	[[ "$stderr" == *"clean on every patch"* ]]
	# A name that only looks like one is still reported.
	sed -i 's/= __SetPageOffline;/= __SetPageofflineX;/' "$T/patches/0001-mm-test.patch"
	MZ_PATCHES=$T/patches run -1 --separate-stderr "$H/check/check-series.sh" checkpatch
	[[ "$stderr" == *"Avoid CamelCase: <__SetPageofflineX>"* ]]
}
