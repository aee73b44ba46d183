#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# export.sh: regenerate patches/ and the kernel-tree mirror from the kernel tree.
#
#   export.sh      (make export)
#
# From the "series" branch of the kernel tree (harness/series/tree.sh):
#
#   patches/fixes/ ($MZ_FIXES, the fixes the series applies on)
#       git format-patch of the release..fixes, with the description of
#       branch "fixes" as the cover letter; MZ_BASE_TAG moves to its end
#   patches/0000-cover-letter.patch, patches/NNNN-*.patch, patches/series
#       git format-patch of fixes..opt-in ($MZ_FIRST_BRANCH, the opt-in
#       series); the cover letter's text is that branch's description
#       (git branch --edit-description opt-in)
#   patches/threads/, patches/hotplug/ ($MZ_FOLLOWUPS, the follow-up series)
#       the same of opt-in..threads and threads..series, each with the
#       description of the branch it ends at (mz_followup_range in
#       lib.sh); a follow-up whose range is empty has no folder.  When
#       such an end branch is missing, that follow-up ends at "series" and
#       those after it are empty (refused while one of them has a folder)
#   Without an opt-in branch, patches/ is base..series as one series.
#   mm/ arch/ include/ drivers/ lib/ Documentation/ tools/...
#       the post-series copy of every file the fixes or the series touch
#
# Run it after committing in the tree; harness/series/check-mirror.sh verifies
# that both sides agree.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 0 0 'no arguments' "$@"
need_tool git git
g() { git -C "$MZ_TREE" "$@"; }
g rev-parse -q --verify "refs/tags/$MZ_RELEASE_TAG" >/dev/null ||
	die "no kernel tree at $MZ_TREE; run harness/series/tree.sh first"
# The series applies on the fixes: after a rebase of both (git rebase -i
# --update-refs $MZ_RELEASE_TAG), the base tag follows branch "fixes".
if g rev-parse -q --verify "refs/heads/$MZ_FIXES" >/dev/null; then
	g merge-base --is-ancestor "$MZ_FIXES" series ||
		die "branch $MZ_FIXES is not part of branch series; rebase with --update-refs (see docs/developing.md)"
	fixes=$MZ_FIXES
else
	fixes=$MZ_RELEASE_TAG
fi
[ "$(g symbolic-ref --short HEAD)" = series ] || die "$MZ_TREE is not on branch 'series'"
[ -z "$(g status --porcelain --untracked-files=no)" ] ||
	die "$MZ_TREE has uncommitted changes; commit them first"

# Every file the series touches must be in the mirror: check that before
# anything in patches/ or the mirror changes, so a refusal changes nothing.
read -r -a mirror_dirs <<<"$MZ_MIRROR_DIRS"
mapfile -t files < <(g diff --name-only "$MZ_RELEASE_TAG" series)
for f in "${files[@]}"; do
	mirrored=0
	for d in "${mirror_dirs[@]}"; do
		case "$f" in "$d"|"$d"/*) mirrored=1 ;; esac
	done
	[ "$mirrored" = 1 ] ||
		die "the series touches $f, outside the mirrored directories; extend MZ_MIRROR_DIRS in harness/lib.sh"
done

first=series
if g rev-parse -q --verify "refs/heads/$MZ_FIRST_BRANCH" >/dev/null; then
	first=$MZ_FIRST_BRANCH
	g merge-base --is-ancestor "$first" series ||
		die "branch $first is not part of branch series; rebase with --update-refs (see docs/developing.md)"
fi
# Each follow-up's range in the tree (mz_followup_range), checked before
# anything changes: its end branch must be part of series and come after
# its start.  Without an opt-in branch, or after a follow-up whose end
# branch is missing (a tree made before it), a follow-up is empty.
declare -A ranges=()
end=$first missing=
for f in $MZ_FOLLOWUPS; do
	r=$(mz_followup_range "$f")
	start=$end end=${r#*..}
	if [ "$start" = series ]; then
		[ -z "$missing" ] || [ ! -f "$MZ_ROOT/patches/$f/series" ] ||
			die "the tree has no branch $missing, where the follow-up before patches/$f/ ends: make it (git branch $missing COMMIT), or patches/$f/ would be removed"
		end=series
	elif [ "$end" != series ] && ! g rev-parse -q --verify "refs/heads/$end" >/dev/null; then
		missing=$end end=series
	elif [ "$end" != series ]; then
		g merge-base --is-ancestor "$end" series ||
			die "branch $end is not part of branch series; rebase with --update-refs (see docs/developing.md)"
		g merge-base --is-ancestor "$start" "$end" ||
			die "branch $end does not come after branch $start; rebase with --update-refs (see docs/developing.md)"
	fi
	ranges[$f]=$start..$end
done
n=$(g rev-list --count "$fixes..series")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# format_series RANGE DIR PREFIX: RANGE as a series with its cover letter
# in DIR (replacing the patches and series file there), subjects
# "[PREFIX n/m]".
format_series() {
	local range=$1 dir=$2 prefix=$3 f b
	mkdir -p "$tmp/$dir"
	if [ "$(g rev-list --count "$range")" -gt 0 ]; then
		# The cover letter is "from" the committer: make that the
		# series' author, not whoever runs this.
		GIT_COMMITTER_NAME=$(g log -1 --format=%an series) \
		GIT_COMMITTER_EMAIL=$(g log -1 --format=%ae series) \
		g -c core.abbrev=12 format-patch -q --cover-letter --cover-from-description=subject \
			--subject-prefix="$prefix" --zero-commit --no-signature \
			-o "$tmp/$dir" "$range" ||
			die "git format-patch failed in $MZ_TREE"
	fi
	# The tree's identity stays only as the neutral From: (mz_strip_tree_signoff).
	for f in "$tmp/$dir"/*.patch; do
		if [ -e "$f" ]; then mz_strip_tree_signoff "$f"; fi
	done
	mz_keep_cover_date "$tmp/$dir/0000-cover-letter.patch" "$MZ_ROOT/$dir/0000-cover-letter.patch"
	rm -f "$MZ_ROOT/$dir"/*.patch "$MZ_ROOT/$dir/series"
	mkdir -p "$MZ_ROOT/$dir"
	{
		if [ "$dir" = "patches/$MZ_FIXES" ]; then
			echo "# Applied in order with 'git am' on Linux $MZ_BASE_VERSION; generated by harness/series/export.sh"
		elif [ "$dir" = patches ]; then
			echo "# Applied in order with 'git am' on Linux $MZ_BASE_VERSION with patches/$MZ_FIXES/series; generated by harness/series/export.sh"
		elif [ "$dir" = "patches/${MZ_FOLLOWUPS%% *}" ]; then
			echo "# Applied in order with 'git am' on top of patches/series; generated by harness/series/export.sh"
		else
			b=$(mz_followup_range "${dir#patches/}")
			echo "# Applied in order with 'git am' on top of patches/series, alone or after patches/${b%%..*}/series as the kernel tree stacks it; generated by harness/series/export.sh"
		fi
		for f in "$tmp/$dir"/*.patch; do
			[ -e "$f" ] || continue
			b=${f##*/}
			[ "$b" = 0000-cover-letter.patch ] || echo "$b"
		done
	} >"$MZ_ROOT/$dir/series"
	for f in "$tmp/$dir"/*.patch; do
		if [ -e "$f" ]; then cp "$f" "$MZ_ROOT/$dir/"; fi
	done
}
nf=$(g rev-list --count "$MZ_RELEASE_TAG..$fixes")
if [ "$nf" -gt 0 ]; then
	format_series "$MZ_RELEASE_TAG..$fixes" "patches/$MZ_FIXES" "$MZ_FIXES_PREFIX"
elif [ -d "$MZ_ROOT/patches/$MZ_FIXES" ]; then
	rm -rf "${MZ_ROOT:?}/patches/$MZ_FIXES"
fi
g tag -f "$MZ_BASE_TAG" "$fixes" >/dev/null
format_series "$fixes..$first" patches "$MZ_SUBJECT_PREFIX"
counts=
for f in $MZ_FOLLOWUPS; do
	nu=$(g rev-list --count "${ranges[$f]}")
	if [ "$nu" -gt 0 ]; then
		prefix=$MZ_SUBJECT_PREFIX
		case " $MZ_RFC_FOLLOWUPS " in *" $f "*) prefix="RFC $prefix" ;; esac
		format_series "${ranges[$f]}" "patches/$f" "$prefix"
		counts+=", $nu in patches/$f/"
	elif [ -d "$MZ_ROOT/patches/$f" ]; then
		rm -rf "${MZ_ROOT:?}/patches/$f"
	fi
done

# The mirror: exactly the files the series touches, as the series leaves them.
# Untracked files go too: an export that was never committed leaves those of
# a patch dropped since.
mapfile -t old < <(git -C "$MZ_ROOT" ls-files --cached --others --exclude-standard -- "${mirror_dirs[@]}")
for f in "${old[@]}"; do rm -f "$MZ_ROOT/$f"; done
for f in "${files[@]}"; do
	if g cat-file -e "series:$f" 2>/dev/null; then
		mkdir -p "$MZ_ROOT/$(dirname "$f")"
		g show "series:$f" >"$MZ_ROOT/$f"
		mode=$(g ls-tree series -- "$f" | cut -d' ' -f1)
		[ "$mode" = 100755 ] && chmod +x "$MZ_ROOT/$f"
	fi
done
# Drop directories the previous export left empty.
for d in "${mirror_dirs[@]}"; do
	if [ -d "$MZ_ROOT/$d" ]; then find "$MZ_ROOT/$d" -type d -empty -delete; fi
done
# The tree now matches patches/: let tree.sh know it need not re-apply.
g config mz.head "$(g rev-parse HEAD)"
g config mz.stamp "$(series_stamp)"
fixes_msg=
[ "$nf" -eq 0 ] || fixes_msg=", on the $nf of patches/$MZ_FIXES/,"
if [ "$first" = series ]; then
	info "exported $n patches$fixes_msg and ${#files[@]} mirrored files"
else
	info "exported $n patches ($(g rev-list --count "$fixes..$first") in patches/$counts)$fixes_msg and ${#files[@]} mirrored files"
fi
