#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Tests of harness/series/tree.sh, harness/series/export.sh and harness/series/check-mirror.sh
# on a small fake kernel: a directory whose Makefile answers kernelversion
# with 7.3.4, given as LINUX_SRC, and a temporary copy of the project
# (harness/, a 2-patch series made against the fake kernel in patches/,
# the mirror, all in a git repository of its own).  MZ_CACHE and MZ_TREE
# point into the test's temporary directory; nothing real is touched.
#
#   bats tests/bats/tree.bats

# shellcheck disable=SC2154 # $stderr is set by run --separate-stderr
bats_require_minimum_version 1.5.0
load common

# from_of_tree: the From: line of every exported patch (lib.sh).
from_of_tree() {
	# shellcheck disable=SC2016
	bash -c '. "$1/harness/lib.sh" && echo "From: $MZ_TREE_NAME <$MZ_TREE_EMAIL>"' _ "$ROOT"
}

setup() {
	mz_test_dirs
	export MZ_TREE=$MZ_CACHE/linux LINUX_SRC=$T/ksrc
	export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@localhost
	export GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@localhost
	unset MZ_FORCE MZ_SUBJECT_PREFIX

	# The fake kernel.
	mkdir -p "$T/ksrc/mm" "$T/ksrc/include/linux" "$T/ksrc/kernel"
	printf 'kernelversion:\n\t@echo 7.3.4\n' >"$T/ksrc/Makefile"
	printf 'void page_init(void)\n{\n\tslow();\n}\n' >"$T/ksrc/mm/page.c"
	printf 'struct page { long flags; };\n' >"$T/ksrc/include/linux/page.h"
	printf 'int sched(void);\n' >"$T/ksrc/kernel/sched.c"

	# Two patches against it, made in a scratch git copy.
	cp -r "$T/ksrc" "$T/gen"
	g() { git -C "$T/gen" "$@"; }
	g init -q -b main
	g add -A && g commit -q -m base
	printf 'void page_init(void)\n{\n\ttemplate();\n}\n' >"$T/gen/mm/page.c"
	g commit -q -am "mm: template fast path"
	printf 'struct page { long flags; long pfn; };\n' >"$T/gen/include/linux/page.h"
	printf '#define PAGE_NEW 1\n' >"$T/gen/include/linux/page_new.h"
	g add -A && g commit -q -m "mm: a pfn field and a new header"

	# The project copy: harness/, patches/, the mirror.
	P=$T/proj
	mkdir -p "$P/patches"
	cp -r "$ROOT/harness" "$P/harness"
	g format-patch -q -o "$P/patches" HEAD~2..HEAD
	(cd "$P/patches" && ls -- *.patch) >"$P/patches/series"
	for f in mm/page.c include/linux/page.h include/linux/page_new.h; do
		mkdir -p "$P/$(dirname "$f")"
		cp "$T/gen/$f" "$P/$f"
	done
	git -C "$P" init -q -b main
	git -C "$P" add -A && git -C "$P" commit -q -m project
}

tree() { git -C "$MZ_TREE" "$@"; }

@test "tree.sh: applies the series on a base commit, then finds it up to date" {
	run -0 --separate-stderr "$P/harness/series/tree.sh" apply
	[ "$output" = "$MZ_TREE" ]
	[[ "$stderr" == *"copying base from LINUX_SRC=$T/ksrc (Linux 7.3.4)"* ]]
	[[ "$stderr" == *"applied 2 patches on v7.3.4 in "* ]]
	[ "$(tree log --format=%s v7.3.4-base)" = "Linux 7.3.4 (base)" ]
	[ "$(tree log --reverse --format=%s v7.3.4-base..series)" = \
		"$(printf 'mm: template fast path\nmm: a pfn field and a new header')" ]
	for f in mm/page.c include/linux/page.h include/linux/page_new.h kernel/sched.c; do
		cmp "$T/gen/$f" "$MZ_TREE/$f"
	done
	[ -z "$(tree status --porcelain)" ]
	run -0 --separate-stderr "$P/harness/series/tree.sh"
	[[ "$stderr" == *"tree is up to date with patches/ (2 patches)"* ]]
}

@test "tree.sh, cover-letter.sh: a wrong subcommand or count is an error naming it, nothing made" {
	run -2 "$P/harness/series/tree.sh" bogus
	[ "$output" = "tree.sh: error: SUBCOMMAND 'bogus': want apply, base or first (see --help)" ]
	run -2 "$P/harness/series/tree.sh" apply base
	[ "$output" = "tree.sh: error: want [apply|base|first], not 2 argument(s) (see --help)" ]
	[ ! -e "$MZ_TREE" ]
	run -2 "$P/harness/series/cover-letter.sh" bogus "$ROOT/patches/0000-cover-letter.patch"
	[ "$output" = "cover-letter.sh: error: SUBCOMMAND 'bogus': want extract (see --help)" ]
	run -2 "$P/harness/series/cover-letter.sh" extract
	[ "$output" = "cover-letter.sh: error: want extract FILE, not 1 argument(s) (see --help)" ]
}

@test "tree.sh: a LINUX_SRC that is not 7.3.y is refused" {
	printf 'kernelversion:\n\t@echo 7.4.0\n' >"$T/ksrc/Makefile"
	run -1 "$P/harness/series/tree.sh" apply
	[[ "$output" == *"is Linux 7.4.0; this series targets 7.3.y"* ]]
	[ ! -e "$MZ_TREE" ]
}

@test "check-mirror.sh: passes, then names each hand edit of the mirror" {
	run -0 "$P/harness/series/check-mirror.sh"
	[[ "$output" == *"mirror matches the series: 2 patches, 3 files"* ]]
	echo '/* edited by hand */' >>"$P/mm/page.c"
	echo extra >"$P/mm/extra.c"
	rm "$P/include/linux/page_new.h"
	run -1 "$P/harness/series/check-mirror.sh"
	[[ "$output" == *"differs from the series: mm/page.c"* ]]
	[[ "$output" == *"in the mirror but not touched by the series: mm/extra.c"* ]]
	[[ "$output" == *"missing from the mirror: include/linux/page_new.h"* ]]
	[[ "$output" == *"error: patches/ and the kernel-tree mirror disagree"* ]]
	# The kernel tree itself was not changed by the check.
	[ -z "$(tree status --porcelain)" ]
	[ "$(tree rev-list --count v7.3.4-base..series)" -eq 2 ]
}

@test "export.sh: regenerates patches/ and the mirror from a new commit" {
	"$P/harness/series/tree.sh" apply >/dev/null 2>&1
	mkdir -p "$MZ_TREE/drivers/dax"
	printf 'int dax_probe(void);\n' >"$MZ_TREE/drivers/dax/probe.c"
	printf 'void page_init(void)\n{\n\ttemplate();\n\tdrain();\n}\n' >"$MZ_TREE/mm/page.c"
	tree rm -q include/linux/page_new.h
	tree add -A && tree commit -q --author="Series Author <series@localhost>" \
		-m "mm: drain, a dax probe, no new header"
	run -0 "$P/harness/series/export.sh"
	# The cover letter is from the series' author, not the committer.
	grep -qx 'From: Series Author <series@localhost>' "$P/patches/0000-cover-letter.patch"
	[[ "$output" == *"exported 3 patches and 3 mirrored files"* ]]
	[ "$(grep -vc '^#' "$P/patches/series")" -eq 3 ]
	grep -qx '0003-mm-drain-a-dax-probe-no-new-header.patch' "$P/patches/series"
	[ -f "$P/patches/0000-cover-letter.patch" ]
	for f in drivers/dax/probe.c mm/page.c include/linux/page.h; do
		cmp "$MZ_TREE/$f" "$P/$f"
	done
	# A file the series no longer touches leaves the mirror.
	[ ! -e "$P/include/linux/page_new.h" ]
	run -0 "$P/harness/series/check-mirror.sh"
	[[ "$output" == *"mirror matches the series: 3 patches, 3 files"* ]]
	run -0 --separate-stderr "$P/harness/series/tree.sh" apply
	[[ "$stderr" == *"up to date"* ]]
}

@test "export.sh: a file an uncommitted export left in the mirror goes when its patch has gone" {
	"$P/harness/series/tree.sh" apply >/dev/null 2>&1
	# What an earlier export of a since-dropped patch wrote and nobody committed.
	mkdir -p "$P/kernel"
	printf 'int vhost_task(void);\n' >"$P/kernel/vhost_task.c"
	run -1 "$P/harness/series/check-mirror.sh"
	[[ "$output" == *"in the mirror but not touched by the series: kernel/vhost_task.c"* ]]
	run -0 "$P/harness/series/export.sh"
	[ ! -e "$P/kernel/vhost_task.c" ]
	run -0 "$P/harness/series/check-mirror.sh"
}

@test "export.sh: a cover letter whose series did not change keeps its Date:" {
	"$P/harness/series/tree.sh" apply >/dev/null 2>&1
	run -0 "$P/harness/series/export.sh"
	cp "$P/patches/0000-cover-letter.patch" "$T/cover.before"
	# format-patch dates a cover letter when it runs: let the clock move.
	sleep 1
	run -0 "$P/harness/series/export.sh"
	cmp "$T/cover.before" "$P/patches/0000-cover-letter.patch"
	# A new patch changes the cover letter, and its date with it.
	printf 'void page_init(void)\n{\n\ttemplate();\n\tdrain();\n}\n' >"$MZ_TREE/mm/page.c"
	tree commit -q -am "mm: drain"
	run -0 "$P/harness/series/export.sh"
	run -1 cmp -s "$T/cover.before" "$P/patches/0000-cover-letter.patch"
	grep -q '^Date: ' "$P/patches/0000-cover-letter.patch"
}

@test "export.sh: every patch is from the neutral author, and git am takes it as exported" {
	# Patches without a From: (as patches/ had them before), and a commit
	# made in the tree by whoever works there: git's own identity is the
	# tree's (tree.sh sets it).
	sed -i '/^From: /d' "$P"/patches/0*.patch
	unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
	"$P/harness/series/tree.sh" apply >/dev/null 2>&1
	printf 'void page_init(void)\n{\n\ttemplate();\n\tdrain();\n}\n' >"$MZ_TREE/mm/page.c"
	tree commit -q -am "mm: drain"
	run -0 "$P/harness/series/export.sh"
	from=$(from_of_tree)
	local p n=0
	while read -r p; do
		[ "$(sed -n '/^$/q; /^From: /p' "$P/patches/$p")" = "$from" ] ||
			{ echo "$p: $(sed -n '/^$/q; /^From: /p' "$P/patches/$p")"; false; }
		if grep -n '^Signed-off-by: ' "$P/patches/$p"; then echo "in $p"; false; fi
		n=$((n + 1))
	done < <(grep -v '^#' "$P/patches/series")
	[ "$n" -eq 3 ]
	# A maintainer's clone: git am of the files as they are, nothing added.
	git clone -q "$MZ_TREE" "$T/am"
	git -C "$T/am" checkout -q --detach v7.3.4-base
	grep -v '^#' "$P/patches/series" | sed "s|^|$P/patches/|" |
		GIT_COMMITTER_NAME=Maintainer GIT_COMMITTER_EMAIL=m@localhost xargs git -C "$T/am" am -q
	[ "$(git -C "$T/am" rev-parse 'HEAD^{tree}')" = "$(tree rev-parse 'series^{tree}')" ]
	[ "$(git -C "$T/am" log --format='From: %an <%ae>' v7.3.4-base..HEAD | sort -u)" = "$from" ]
	# tree.sh takes the files back: nothing to apply.
	run -0 --separate-stderr "$P/harness/series/tree.sh" apply
	[[ "$stderr" == *"up to date"* ]]
}

@test "patches/: every patch is from the neutral author and has no Signed-off-by:, the cover letters' included" {
	local p n=0 from
	from=$(from_of_tree)
	for p in "$ROOT"/patches/*.patch "$ROOT"/patches/*/*.patch; do
		n=$((n + 1))
		if grep -nE '^Signed-off-by: ' "$p"; then echo "in $p"; false; fi
		[ "$(sed -n '/^$/q; /^From: /p' "$p")" = "$from" ] ||
			{ echo "$p: $(sed -n '/^$/q; /^From: /p' "$p")"; false; }
	done
	[ "$n" -gt 10 ]
}

@test "patches/mm-unstable/: its cover letter is the first series', with its base where the 7.3.4 paragraph was" {
	local rel
	# shellcheck disable=SC2016
	rel=$(bash -c '. "$1/harness/lib.sh" && echo "$MZ_COVER_RELEASE_PARAGRAPH"' _ "$ROOT")
	"$ROOT/harness/series/cover-letter.sh" extract "$ROOT/patches/0000-cover-letter.patch" >"$T/first"
	"$ROOT/harness/series/cover-letter.sh" extract "$ROOT/patches/mm-unstable/0000-cover-letter.patch" >"$T/up"
	grep -q "^$rel" "$T/first"
	if grep -q "^$rel" "$T/up"; then false; fi
	if grep -q '^Generated by "harness/' "$T/up"; then false; fi
	grep -q '^It applies on \([0-9a-f]\{7,\} ("\|v11 with\)' "$T/up"
	# Without those paragraphs (and the line naming the report script),
	# the two texts are one.
	para() { awk -v drop="$1" 'BEGIN { RS = ""; ORS = "\n\n" } index($0, drop) == 1 { next } { sub(/\nGenerated by "harness\/[^\n]*$/, ""); sub(/^Generated by "harness\/.*$/, ""); if ($0 != "") print }' "$2"; }
	diff <(para "$rel" "$T/first") <(para "It applies on " "$T/up" | awk 'BEGIN { RS = ""; ORS = "\n\n" } !/^  [0-9a-f]+ \("/')
}

@test "patches/v11-fixes/ then patches/mm-unstable/ are Part 2 of patches/, and each fix names a cited commit in Fixes:" {
	local part1 nfix id p n
	# shellcheck disable=SC2016
	read -r part1 nfix < <(bash -c '. "$1/harness/lib.sh" && echo "$MZ_PART1 $MZ_V11_FIXES_N"' _ "$ROOT")
	# The subject, unfolded, without its [PATCH n/m].
	subj() { awk '/^$/ { exit } /^Subject: / { s = $0; on = 1; next } on && /^ / { s = s $0; next } { on = 0 }
		END { sub(/^Subject: \[[^]]*\] /, "", s); print s }' "$1"; }
	diff <(grep -v '^#' "$ROOT/patches/series" | tail -n +"$((part1 + 1))" |
		while read -r p; do subj "$ROOT/patches/$p"; done) \
		<(for d in v11-fixes mm-unstable; do grep -v '^#' "$ROOT/patches/$d/series" |
			while read -r p; do subj "$ROOT/patches/$d/$p"; done; done)
	[ "$(grep -cv '^#' "$ROOT/patches/v11-fixes/series")" -eq "$nfix" ]
	while read -r p; do
		id=$(sed -n 's/^Fixes: \([0-9a-f]\{12\}\) (".*")$/\1/p' "$ROOT/patches/v11-fixes/$p")
		[ -n "$id" ] || { echo "$p: no Fixes: tag"; false; }
		grep -q "^$id " "$ROOT/patches/cited-commits.txt" || { echo "$p: $id not in cited-commits.txt"; false; }
	done < <(grep -v '^#' "$ROOT/patches/v11-fixes/series")
	# The delta's cover letter names the fixes it applies on.
	grep -q "^\"$(subj "$ROOT/patches/v11-fixes/0000-cover-letter.patch")\"\.$" \
		"$ROOT/patches/mm-unstable/0000-cover-letter.patch"
	# and v11's commits by the ids cited-commits.txt has (mm-stable's),
	# never by those of the tree it was exported on.
	n=0
	while read -r id; do
		grep -q "^$id " "$ROOT/patches/cited-commits.txt" || { echo "the cover letter names $id"; false; }
		n=$((n + 1))
	done < <(sed -n 's/^  \([0-9a-f]\{7,\}\) (".*")$/\1/p' "$ROOT/patches/mm-unstable/0000-cover-letter.patch")
	[ "$n" -ge 7 ]
}

@test "export.sh: refuses a path outside the mirrored directories and changes nothing" {
	"$P/harness/series/tree.sh" apply >/dev/null 2>&1
	mkdir -p "$MZ_TREE/scripts"
	printf 'echo hi\n' >"$MZ_TREE/scripts/hello.sh"
	printf 'void page_init(void)\n{\n\ttemplate();\n\tdrain();\n}\n' >"$MZ_TREE/mm/page.c"
	tree add -A && tree commit -q -m "scripts: hello, mm: drain"
	before=$(cd "$P" && find patches mm include -type f | LC_ALL=C sort | xargs sha256sum)
	run -1 --separate-stderr "$P/harness/series/export.sh"
	[[ "$stderr" == *"touches scripts/hello.sh, outside the mirrored directories"* ]]
	[ "$(cd "$P" && find patches mm include -type f | LC_ALL=C sort | xargs sha256sum)" = "$before" ]
}

@test "tree.sh: refuses to overwrite commits that were never exported" {
	"$P/harness/series/tree.sh" apply >/dev/null 2>&1
	echo '/* unexported work */' >>"$MZ_TREE/mm/page.c"
	tree commit -q -am "wip: unexported"
	head=$(tree rev-parse HEAD)
	run -1 "$P/harness/series/tree.sh" apply
	[[ "$output" == *"has commits that patches/ does not have; run 'make export'"* ]]
	[ "$(tree rev-parse HEAD)" = "$head" ]
	# Uncommitted changes are refused too.
	tree reset -q --hard HEAD~1
	echo '/* uncommitted */' >>"$MZ_TREE/mm/page.c"
	touch "$P/patches/series" && echo '# changed' >>"$P/patches/series"
	run -1 "$P/harness/series/tree.sh" apply
	[[ "$output" == *"has uncommitted changes"* ]]
	grep -q uncommitted "$MZ_TREE/mm/page.c"
	# MZ_FORCE=1 discards them.
	MZ_FORCE=1 run -0 "$P/harness/series/tree.sh" apply
	[ "$(tree rev-list --count v7.3.4-base..series)" -eq 2 ]
	cmp "$T/gen/mm/page.c" "$MZ_TREE/mm/page.c"
}

@test "tree.sh: waits for running builds before it rewrites the tree, not to read it" {
	mkdir -p "$MZ_CACHE"
	# A build (build-kernel.sh) holds the tree's lock shared.
	flock -s "$MZ_TREE.lock" sleep 3 3>&- &
	sleep 0.5
	SECONDS=0
	run -0 "$P/harness/series/tree.sh" apply
	[ "$SECONDS" -ge 2 ]
	[[ "$output" == *"waiting for the builds using $MZ_TREE to finish before updating it"* ]]
	wait
	# Up to date: reading it does not wait for the build.
	flock -s "$MZ_TREE.lock" sleep 3 3>&- &
	sleep 0.5
	SECONDS=0
	run -0 "$P/harness/series/tree.sh" apply
	[ "$SECONDS" -lt 2 ]
	[[ "$output" != *waiting* ]]
	wait
}

@test "export.sh, tree.sh: a follow-up series after branch opt-in goes to patches/threads/ and back" {
	"$P/harness/series/tree.sh" apply >/dev/null 2>&1
	# The first series ends at opt-in; one commit of the follow-up after it.
	tree branch opt-in series
	tree config branch.opt-in.description "$(printf 'mm: the opt-in series\n\nIts cover.')"
	printf 'int sched(void);\nint sched_helpers(void);\n' >"$MZ_TREE/kernel/sched.c"
	# By the tree's own identity, which export strips from the cover
	# letter's shortlog heading too.
	tree commit -q -am "sched: helpers" --author="memmap tree <tree@localhost>"
	tree config branch.series.description "$(printf 'mm: the threads series\n\nApplies on the opt-in series.')"
	run -0 "$P/harness/series/export.sh"
	[[ "$output" == *"exported 3 patches (2 in patches/, 1 in patches/threads/) and 4 mirrored files"* ]]
	[ "$(grep -vc '^#' "$P/patches/series")" -eq 2 ]
	[ "$(grep -v '^#' "$P/patches/threads/series")" = 0001-sched-helpers.patch ]
	[ ! -e "$P/patches/hotplug" ]
	grep -q '^Subject: \[PATCH 0/2\] mm: the opt-in series' "$P/patches/0000-cover-letter.patch"
	grep -q '^Subject: \[PATCH 0/1\] mm: the threads series' "$P/patches/threads/0000-cover-letter.patch"
	grep -q '^Subject: \[PATCH 1/1\] sched: helpers' "$P/patches/threads/0001-sched-helpers.patch"
	cmp "$MZ_TREE/kernel/sched.c" "$P/kernel/sched.c"
	run -0 "$P/harness/series/check-mirror.sh"
	[[ "$output" == *"mirror matches the series: 3 patches, 4 files"* ]]
	# A fresh tree from patches/ has both series, and opt-in where it was,
	# with each cover letter's text on its branch.
	opt=$(tree rev-parse opt-in)
	rm -rf "$MZ_TREE"
	run -0 --separate-stderr "$P/harness/series/tree.sh" apply
	[[ "$stderr" == *"applied 3 patches on v7.3.4 in "* ]]
	[ "$(tree log --format=%s -1 opt-in)" = "mm: a pfn field and a new header" ]
	[ "$(tree rev-parse opt-in)" = "$opt" ]
	[ "$(tree log --format=%s -1 series)" = "sched: helpers" ]
	[ "$(tree config branch.opt-in.description | head -n 1)" = "mm: the opt-in series" ]
	# The follow-up's cover letter goes with branch threads, its end; the
	# one after it (hotplug) has no patches and ends there too.
	[ "$(tree rev-parse threads)" = "$(tree rev-parse series)" ]
	[ "$(tree config branch.threads.description | head -n 1)" = "mm: the threads series" ]
	run -0 --separate-stderr "$P/harness/series/tree.sh" apply
	[[ "$stderr" == *"up to date with patches/ (3 patches)"* ]]
	# Exported again from that tree, the cover letters are the same:
	# the description tree.sh took from each stops at its shortlog.
	cp -r "$P/patches" "$T/before"
	run -0 "$P/harness/series/export.sh"
	for f in 0000-cover-letter.patch threads/0000-cover-letter.patch; do
		diff <(grep -v '^Date: ' "$T/before/$f") <(grep -v '^Date: ' "$P/patches/$f")
	done
	# The follow-up is part of the stamp: a change to it alone re-applies.
	echo '# edited' >>"$P/patches/threads/series"
	run -0 --separate-stderr "$P/harness/series/tree.sh" apply
	[[ "$stderr" == *"applied 3 patches on v7.3.4 in "* ]]
}

@test "export.sh, tree.sh: two follow-ups, threads then hotplug, go to patches/threads/ and patches/hotplug/ and back" {
	"$P/harness/series/tree.sh" apply >/dev/null 2>&1
	# opt-in, then one commit of threads ending at branch threads, then
	# one of hotplug ending at series, each branch with its cover letter.
	tree branch opt-in series
	tree config branch.opt-in.description "$(printf 'mm: the opt-in series\n\nIts cover.')"
	printf 'int sched(void);\nint sched_helpers(void);\n' >"$MZ_TREE/kernel/sched.c"
	tree commit -q -am "sched: helpers" --author="memmap tree <tree@localhost>"
	tree branch threads series
	tree config branch.threads.description "$(printf 'mm: the threads series\n\nApplies on the opt-in series.')"
	printf 'void hot_init(void);\n' >"$MZ_TREE/mm/hotplug.c"
	tree add mm/hotplug.c
	tree commit -q -m "mm: hot-added memory" --author="memmap tree <tree@localhost>"
	tree config branch.series.description "$(printf 'mm: the hotplug series\n\nApplies on the opt-in series.')"
	run -0 "$P/harness/series/export.sh"
	[[ "$output" == *"exported 4 patches (2 in patches/, 1 in patches/threads/, 1 in patches/hotplug/) and 5 mirrored files"* ]]
	[ "$(grep -vc '^#' "$P/patches/series")" -eq 2 ]
	[ "$(grep -v '^#' "$P/patches/threads/series")" = 0001-sched-helpers.patch ]
	[ "$(grep -v '^#' "$P/patches/hotplug/series")" = 0001-mm-hot-added-memory.patch ]
	grep -q "^# Applied in order with 'git am' on top of patches/series;" "$P/patches/threads/series"
	grep -q "^# Applied in order with 'git am' on top of patches/series, alone or after patches/threads/series as the kernel tree stacks it;" "$P/patches/hotplug/series"
	grep -q '^Subject: \[PATCH 0/2\] mm: the opt-in series' "$P/patches/0000-cover-letter.patch"
	grep -q '^Subject: \[PATCH 0/1\] mm: the threads series' "$P/patches/threads/0000-cover-letter.patch"
	grep -q '^Subject: \[PATCH 1/1\] sched: helpers' "$P/patches/threads/0001-sched-helpers.patch"
	# An RFC (MZ_RFC_FOLLOWUPS), unlike the others.
	grep -q '^Subject: \[RFC PATCH 0/1\] mm: the hotplug series' "$P/patches/hotplug/0000-cover-letter.patch"
	grep -q '^Subject: \[RFC PATCH 1/1\] mm: hot-added memory' "$P/patches/hotplug/0001-mm-hot-added-memory.patch"
	cmp "$MZ_TREE/mm/hotplug.c" "$P/mm/hotplug.c"
	run -0 "$P/harness/series/check-mirror.sh"
	[[ "$output" == *"mirror matches the series: 4 patches, 5 files"* ]]
	# A fresh tree from patches/: opt-in where it was, threads after the
	# threads series, series after hotplug's, each with its description.
	opt=$(tree rev-parse opt-in)
	rm -rf "$MZ_TREE"
	run -0 --separate-stderr "$P/harness/series/tree.sh" apply
	[[ "$stderr" == *"applied 4 patches on v7.3.4 in "* ]]
	[ "$(tree rev-parse opt-in)" = "$opt" ]
	[ "$(tree log --reverse --format=%s opt-in..threads)" = "sched: helpers" ]
	[ "$(tree log --reverse --format=%s threads..series)" = "mm: hot-added memory" ]
	[ "$(tree symbolic-ref --short HEAD)" = series ]
	[ "$(tree config branch.opt-in.description | head -n 1)" = "mm: the opt-in series" ]
	[ "$(tree config branch.threads.description | head -n 1)" = "mm: the threads series" ]
	[ "$(tree config branch.series.description | head -n 1)" = "mm: the hotplug series" ]
	run -0 --separate-stderr "$P/harness/series/tree.sh" apply
	[[ "$stderr" == *"up to date with patches/ (4 patches)"* ]]
	# Exported again from that tree, the cover letters are the same.
	cp -r "$P/patches" "$T/before"
	run -0 "$P/harness/series/export.sh"
	[[ "$output" == *"(2 in patches/, 1 in patches/threads/, 1 in patches/hotplug/)"* ]]
	for f in 0000-cover-letter.patch threads/0000-cover-letter.patch hotplug/0000-cover-letter.patch; do
		diff <(grep -v '^Date: ' "$T/before/$f") <(grep -v '^Date: ' "$P/patches/$f")
	done
	# hotplug is part of the stamp: a change to it alone re-applies, and a
	# stale threads branch is made again where the threads series ends.
	echo '# edited' >>"$P/patches/hotplug/series"
	tree branch -f threads opt-in
	run -0 --separate-stderr "$P/harness/series/tree.sh" apply
	[[ "$stderr" == *"applied 4 patches on v7.3.4 in "* ]]
	[ "$(tree rev-parse threads)" = "$(tree rev-parse series~1)" ]
	[ "$(tree config branch.threads.description | head -n 1)" = "mm: the threads series" ]
	# Without branch threads, export would fold hotplug into threads and
	# remove patches/hotplug/: refused, and nothing changes.
	"$P/harness/series/export.sh" >/dev/null 2>&1
	tree branch -D threads
	before=$(cd "$P" && find patches mm include kernel -type f | LC_ALL=C sort | xargs sha256sum)
	run -1 --separate-stderr "$P/harness/series/export.sh"
	[[ "$stderr" == *"the tree has no branch threads, where the follow-up before patches/hotplug/ ends: make it (git branch threads COMMIT)"* ]]
	[ "$(cd "$P" && find patches mm include kernel -type f | LC_ALL=C sort | xargs sha256sum)" = "$before" ]
	# A branch threads that is not after opt-in is refused too.
	tree branch threads opt-in~1
	run -1 --separate-stderr "$P/harness/series/export.sh"
	[[ "$stderr" == *"branch threads does not come after branch opt-in; rebase with --update-refs"* ]]
	[ "$(cd "$P" && find patches mm include kernel -type f | LC_ALL=C sort | xargs sha256sum)" = "$before" ]
}

@test "export.sh: an opt-in branch that is not part of series is refused and nothing changes" {
	"$P/harness/series/tree.sh" apply >/dev/null 2>&1
	tree branch opt-in series
	tree reset -q --hard HEAD~1
	tree commit -q --allow-empty -m "mm: elsewhere"
	before=$(cd "$P" && find patches mm include -type f | LC_ALL=C sort | xargs sha256sum)
	run -1 --separate-stderr "$P/harness/series/export.sh"
	[[ "$stderr" == *"branch opt-in is not part of branch series; rebase with --update-refs"* ]]
	[ "$(cd "$P" && find patches mm include -type f | LC_ALL=C sort | xargs sha256sum)" = "$before" ]
}

@test "tree.sh first: a worktree at the first series' end, moved when it moves; refused without a follow-up" {
	# No follow-up series: no opt-in branch, nothing to check out.
	run -1 --separate-stderr "$P/harness/series/tree.sh" first
	[[ "$stderr" == *"the tree has no opt-in branch: patches/ has no follow-up series (threads/, hotplug/)"* ]]
	[ ! -e "$MZ_TREE-first" ]
	# A follow-up series after opt-in, exported and applied again.
	tree branch opt-in series
	printf 'int sched(void);\nint sched_helpers(void);\n' >"$MZ_TREE/kernel/sched.c"
	tree commit -q -am "sched: helpers" --author="memmap tree <tree@localhost>"
	"$P/harness/series/export.sh" >/dev/null
	run -0 --separate-stderr "$P/harness/series/tree.sh" first
	[ "$output" = "$MZ_TREE-first" ]
	[[ "$stderr" == *"checking out the first series (opt-in) into $MZ_TREE-first"* ]]
	[ "$(git -C "$MZ_TREE-first" rev-parse HEAD)" = "$(tree rev-parse opt-in)" ]
	# The first series' files, without the follow-up's change.
	cmp "$T/gen/mm/page.c" "$MZ_TREE-first/mm/page.c"
	cmp "$T/ksrc/kernel/sched.c" "$MZ_TREE-first/kernel/sched.c"
	run -0 --separate-stderr "$P/harness/series/tree.sh" first
	[[ "$stderr" != *"checking out"* ]] && [[ "$stderr" != *"moving"* ]]
	# A new end of the first series moves the worktree there.
	tree checkout -q opt-in
	printf 'void page_init(void)\n{\n\ttemplate2();\n}\n' >"$MZ_TREE/mm/page.c"
	tree commit -q -am "mm: template fast path, again" --author="memmap tree <tree@localhost>"
	tree checkout -q series
	tree rebase -q --onto opt-in opt-in~1 series
	"$P/harness/series/export.sh" >/dev/null
	run -0 --separate-stderr "$P/harness/series/tree.sh" first
	[[ "$stderr" == *"moving $MZ_TREE-first to the first series' new end (opt-in)"* ]]
	[ "$(git -C "$MZ_TREE-first" rev-parse HEAD)" = "$(tree rev-parse opt-in)" ]
	grep -q template2 "$MZ_TREE-first/mm/page.c"
}

@test "tree.sh, export.sh: fixes in patches/fixes/ come first, end at branch fixes and the base tag, and export back" {
	"$P/harness/series/tree.sh" apply >/dev/null 2>&1
	# Without fixes, branch fixes is the release, and nothing is exported.
	[ "$(tree rev-parse fixes)" = "$(tree rev-parse v7.3.4)" ]
	"$P/harness/series/export.sh" >/dev/null 2>&1
	[ ! -e "$P/patches/fixes" ]
	# A fix under the series: commit it on branch fixes and rebase the
	# series onto it.
	tree checkout -q fixes
	printf 'int sched(void);\nint sched_fixed(void);\n' >"$MZ_TREE/kernel/sched.c"
	tree commit -q -am "sched: a fix of its own" --author="memmap tree <tree@localhost>"
	tree config branch.fixes.description "$(printf 'sched: the fixes\n\nThey come first.')"
	tree checkout -q series
	tree rebase -q --onto fixes v7.3.4-base series
	run -0 "$P/harness/series/export.sh"
	[[ "$output" == *"exported 2 patches, on the 1 of patches/fixes/, and 4 mirrored files"* ]]
	[ "$(tree rev-parse v7.3.4-base)" = "$(tree rev-parse fixes)" ]
	[ "$(grep -v '^#' "$P/patches/fixes/series")" = 0001-sched-a-fix-of-its-own.patch ]
	grep -q "^# Applied in order with 'git am' on Linux 7.3.4;" "$P/patches/fixes/series"
	grep -q "^# Applied in order with 'git am' on Linux 7.3.4 with patches/fixes/series;" "$P/patches/series"
	# Its own series, a first version like the others.
	grep -q '^Subject: \[PATCH 0/1\] sched: the fixes' "$P/patches/fixes/0000-cover-letter.patch"
	grep -q '^Subject: \[PATCH 1/1\] sched: a fix of its own' "$P/patches/fixes/0001-sched-a-fix-of-its-own.patch"
	[ "$(grep -vc '^#' "$P/patches/series")" -eq 2 ]
	cmp "$MZ_TREE/kernel/sched.c" "$P/kernel/sched.c"
	run -0 "$P/harness/series/check-mirror.sh"
	[[ "$output" == *"mirror matches the series: 3 patches, 4 files"* ]]
	# A fresh tree from patches/: the fix first, on branch fixes, with the
	# base tag at its end, and the base worktree there.
	fxtree=$(tree rev-parse 'fixes^{tree}')
	rm -rf "$MZ_TREE"
	run -0 --separate-stderr "$P/harness/series/tree.sh" base
	[ "$output" = "$MZ_TREE-base" ]
	[[ "$stderr" == *"applied 3 patches on v7.3.4 in "* ]]
	fx=$(tree rev-parse fixes)
	[ "$(tree rev-parse 'fixes^{tree}')" = "$fxtree" ]
	[ "$(tree rev-parse 'v7.3.4-base^{commit}')" = "$fx" ]
	[ "$(tree rev-list --count v7.3.4..v7.3.4-base)" -eq 1 ]
	[ "$(tree log --format=%s -1 v7.3.4-base)" = "sched: a fix of its own" ]
	[ "$(tree config branch.fixes.description | head -n 1)" = "sched: the fixes" ]
	[ "$(git -C "$MZ_TREE-base" rev-parse HEAD)" = "$fx" ]
	cmp "$P/kernel/sched.c" "$MZ_TREE-base/kernel/sched.c"
	cmp "$T/ksrc/mm/page.c" "$MZ_TREE-base/mm/page.c"
	# A changed fix moves the base tag and the base worktree with it.
	sed -i 's/sched_fixed/sched_fixed_again/' "$P/patches/fixes/0001-sched-a-fix-of-its-own.patch"
	run -0 --separate-stderr "$P/harness/series/tree.sh" base
	[[ "$stderr" == *"moving $MZ_TREE-base to the base's new end"* ]]
	grep -q sched_fixed_again "$MZ_TREE-base/kernel/sched.c"
	grep -q sched_fixed_again "$MZ_TREE/kernel/sched.c"
	[ "$(git -C "$MZ_TREE-base" rev-parse HEAD)" = "$(tree rev-parse v7.3.4-base)" ]
}

@test "tree.sh: a tree from before the fixes (its base tag on the release) gets a release tag" {
	"$P/harness/series/tree.sh" apply >/dev/null 2>&1
	tree tag -d v7.3.4 >/dev/null
	run -0 --separate-stderr "$P/harness/series/tree.sh" apply
	[[ "$stderr" == *"tagging the release v7.3.4 in $MZ_TREE (its first commit)"* ]]
	[ "$(tree rev-parse 'v7.3.4^{commit}')" = "$(tree rev-list --max-parents=0 series)" ]
	[ "$(tree rev-list --count v7.3.4..series)" -eq 2 ]
}
