#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tree.sh: make the git kernel tree the series is developed in.
#
#   tree.sh [apply]   the release (tagged MZ_RELEASE_TAG), then one commit
#                     per patch of patches/fixes/series (branch "fixes",
#                     its end tagged MZ_BASE_TAG), of patches/series
#                     (branch opt-in) and of each follow-up series in
#                     order (MZ_FOLLOWUPS: patches/threads/series, branch
#                     "threads", then patches/hotplug/series), on branch
#                     "series"; prints the tree path
#   tree.sh base      also make a worktree checked out at the base, the
#                     release with the fixes (for building the kernel
#                     without the series); prints its path
#   tree.sh first     also make a worktree checked out at the end of the
#                     first series (branch opt-in), without the follow-up
#                     series (for the benchmark's rows of the first
#                     series); prints its path
#
# The base is Debian's linux-source-7.3 (see fetch-base.sh) or, with
# LINUX_SRC=/path, your own 7.3.y tree (git or plain).  Commits are made
# with fixed identities and dates so the same series gives the same hashes.
#
# A tree whose "series" branch has commits that were never exported is not
# rewritten: export them (make export) or set MZ_FORCE=1.  make tree runs
# tree.sh apply.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 0 1 '[apply|base|first]' "$@"
mode=${MZ_OPERANDS[0]:-apply}
case "$mode" in
apply|base|first) ;;
*) mz_arg_error "SUBCOMMAND '$mode': want apply, base or first" ;;
esac

# check.sh applies the tree once and exports MZ_TREE_APPLIED, the series
# stamp it applied: while patches/ still has that stamp, the steps it runs
# take the tree as it is.
if [ "$mode" = apply ] && [ -n "${MZ_TREE_APPLIED:-}" ] && [ "$MZ_TREE_APPLIED" = "$(series_stamp)" ]; then
	echo "$MZ_TREE"
	exit 0
fi

need_tool git git

# Deterministic identities: the tree is a build artefact, not a history.
export GIT_AUTHOR_NAME="memmap base" GIT_AUTHOR_EMAIL="base@localhost"
export GIT_COMMITTER_NAME="$MZ_TREE_NAME" GIT_COMMITTER_EMAIL="$MZ_TREE_EMAIL"
export GIT_COMMITTER_DATE="2026-06-01T00:00:00Z"
g() { git -C "$MZ_TREE" "$@"; }

make_base() {
	local src
	if [ -n "${LINUX_SRC:-}" ]; then
		[ -f "$LINUX_SRC/Makefile" ] || die "LINUX_SRC=$LINUX_SRC is not a kernel tree"
		src=$(cd "$LINUX_SRC" && pwd)
		local ver
		ver=$(mz_kernelversion "$src")
		case "$ver" in 7.3.*) ;; *) die "LINUX_SRC=$src is Linux $ver; this series targets 7.3.y" ;; esac
		info "copying base from LINUX_SRC=$src (Linux $ver)"
		mkdir -p "$MZ_TREE"
		if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
			git -C "$src" archive --format=tar HEAD | tar -C "$MZ_TREE" -xf -
		else
			(cd "$src" && tar --exclude=.git -cf - .) | tar -C "$MZ_TREE" -xf -
		fi
	else
		src=$("$MZ_ROOT/harness/series/fetch-base.sh")
		info "moving the extracted source into the tree at $MZ_TREE"
		mkdir -p "$(dirname "$MZ_TREE")"
		mv "$src" "$MZ_TREE"
		rm -f "$MZ_TREE/.mz-extracted"
		# Debian appends "ignore everything at the top level" to
		# .gitignore for its packaging repository; with it, files a
		# patch adds would be silently left out of commits.  Upstream
		# 7.3.4 has no such block: restore its .gitignore.
		awk '/^# Debian packaging: ignore everything/ { exit } { l[n++] = $0 }
			END { while (n > 0 && (l[n - 1] == "" || l[n - 1] == "#")) n--
			      for (i = 0; i < n; i++) print l[i] }' \
			"$MZ_TREE/.gitignore" >"$MZ_TREE/.gitignore.mz"
		mv "$MZ_TREE/.gitignore.mz" "$MZ_TREE/.gitignore"
	fi
	info "committing the base"
	g init -q -b series
	g config core.autocrlf false
	g config gc.auto 0
	# checkpatch.pl keeps its CamelCase cache at the top of the tree.
	echo '/.checkpatch-camelcase.*' >>"$MZ_TREE/.git/info/exclude"
	g add -A -f .
	GIT_AUTHOR_DATE=$GIT_COMMITTER_DATE g commit -q -m "Linux $(mz_kernelversion "$MZ_TREE") (base)"
	g tag "$MZ_RELEASE_TAG"
}

apply_series() {
	mz_apply_series "$MZ_TREE" "$MZ_RELEASE_TAG" "$MZ_ROOT/patches" "$(series_stamp)" \
		tree patches/ "make export" "$MZ_BASE_TAG"
}

# The tree is shared (make bench, make check, builds of several variants):
# look at it under a shared lock and change it only under an exclusive one,
# which waits for running builds (build-kernel.sh holds it shared).
up_to_date() {
	g rev-parse -q --verify "refs/tags/$MZ_RELEASE_TAG" >/dev/null 2>&1 &&
		[ "$(g config --get mz.stamp || true)" = "$(series_stamp)" ] &&
		[ "$(g config --get mz.head || true)" = "$(g rev-parse HEAD)" ] &&
		case "$mode" in
		apply) ;;
		base) [ -f "$MZ_BASE_WORKTREE/Makefile" ] &&
			[ "$(git -C "$MZ_BASE_WORKTREE" rev-parse HEAD)" = "$(g rev-parse "$MZ_BASE_TAG^{commit}")" ] ;;
		first) [ -f "$MZ_FIRST_WORKTREE/Makefile" ] &&
			[ "$(git -C "$MZ_FIRST_WORKTREE" rev-parse HEAD)" = "$(g rev-parse -q --verify "refs/heads/$MZ_FIRST_BRANCH")" ] ;;
		esac
}
tree_lock=
mz_lock tree_lock "$MZ_TREE.lock" "another tree.sh updating $MZ_TREE" -s
if ! up_to_date && ! flock -n -x "$tree_lock"; then
	info "waiting for the builds using $MZ_TREE to finish before updating it (lock: $MZ_TREE.lock)"
	flock -x "$tree_lock"
fi

if ! g rev-parse -q --verify "refs/tags/$MZ_RELEASE_TAG" >/dev/null 2>&1; then
	if [ -z "$(g rev-list -1 --parents "refs/tags/$MZ_BASE_TAG" 2>/dev/null | cut -s -d' ' -f2)" ] &&
	   g rev-parse -q --verify "refs/tags/$MZ_BASE_TAG" >/dev/null 2>&1; then
		# A tree from before the fixes: its base is the release.
		info "tagging the release $MZ_RELEASE_TAG in $MZ_TREE (its first commit)"
		g tag "$MZ_RELEASE_TAG" "$MZ_BASE_TAG^{commit}"
	else
		[ ! -e "$MZ_TREE" ] || [ -z "$(ls -A "$MZ_TREE")" ] ||
			die "$MZ_TREE exists but is not a tree made by this script; move it away"
		make_base
	fi
fi
apply_series

if [ "$mode" = base ]; then
	base=$MZ_BASE_WORKTREE
	if [ ! -f "$base/Makefile" ]; then
		info "checking out the base into $base"
		g worktree prune
		g worktree add -q --detach "$base" "$MZ_BASE_TAG"
	elif [ "$(git -C "$base" rev-parse HEAD)" != "$(g rev-parse "$MZ_BASE_TAG^{commit}")" ]; then
		info "moving $base to the base's new end ($MZ_BASE_TAG: the fixes changed)"
		git -C "$base" checkout -q -f --detach "$MZ_BASE_TAG"
	fi
	echo "$base"
elif [ "$mode" = first ]; then
	first=$(g rev-parse -q --verify "refs/heads/$MZ_FIRST_BRANCH") ||
		die "the tree has no $MZ_FIRST_BRANCH branch: patches/ has no follow-up series (${MZ_FOLLOWUPS// //, }/), so the first series is the whole series (tree.sh apply)"
	wt=$MZ_FIRST_WORKTREE
	if [ ! -f "$wt/Makefile" ]; then
		info "checking out the first series ($MZ_FIRST_BRANCH) into $wt"
		g worktree prune
		g worktree add -q --detach "$wt" "$first"
	elif [ "$(git -C "$wt" rev-parse HEAD)" != "$first" ]; then
		info "moving $wt to the first series' new end ($MZ_FIRST_BRANCH)"
		git -C "$wt" checkout -q -f --detach "$first"
	fi
	echo "$wt"
else
	echo "$MZ_TREE"
fi
