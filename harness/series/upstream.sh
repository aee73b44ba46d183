#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# upstream.sh: Part 2 of the series on upstream's code.
#
#   MZ_UPSTREAM_SRC=TREE upstream.sh export|apply|base      (make upstream-export)
#
# Part 1 of the series (its first $MZ_PART1 patches) is v11 of Li Zhe's
# series, which upstream has queued (mm-unstable, linux-next); Part 2 is
# what this series adds.  Maintainers take Part 2 on top of their tree.
# MZ_UPSTREAM_SRC names such a tree: a git kernel tree whose HEAD has v11
# (mm-unstable, or 7.3.y with v11 applied).  Nothing in it is changed: the
# work happens in clones under $MZ_CACHE.
#
#   upstream.sh export   rebase Part 2 of the series tree (tree.sh) onto
#                        MZ_UPSTREAM_SRC's HEAD with the fixes of
#                        patches/fixes/ and write it: its first
#                        MZ_V11_FIXES_N patches, which fix v11's own code,
#                        to patches/v11-fixes/ (the cover letter's text
#                        kept from the one there), the rest to
#                        patches/mm-unstable/, with a cover letter naming
#                        v11's commits by their mm-stable ids
#                        (patches/cited-commits.txt) and, when the base is
#                        a local rebuild of v11, that base
#   upstream.sh apply    MZ_UPSTREAM_SRC's HEAD plus patches/fixes/,
#                        patches/v11-fixes/ and patches/mm-unstable/, then
#                        the follow-up series in the tree's order
#                        (MZ_FOLLOWUPS: patches/threads/, patches/hotplug/)
#                        (git am) in $MZ_UPSTREAM_TREE; prints its path
#   upstream.sh base     MZ_UPSTREAM_SRC's HEAD with patches/fixes/ in
#                        $MZ_UPSTREAM_TREE-base; prints its path
#
# A conflict while rebasing is resolved with Part 2's side of each
# conflicting hunk: the two trees differ only in Part 1's wording, which
# Part 2 rewrites where it touches it.  That is right only where the
# upstream code a resolved hunk replaces is code Part 2's own patch
# removes: the export refuses a resolution that removes other code
# (resolution-check.py), naming it; the fix is to give the rewrite of
# Part 1 the shape of upstream's code there.  The export then checks that
# every file outside Part 1's files ends up as in the series tree.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 1 1 'export|apply|base' "$@"
mode=${MZ_OPERANDS[0]}
case "$mode" in
export|apply|base) ;;
*) mz_arg_error "SUBCOMMAND '$mode': want export, apply or base" ;;
esac
need_tool git git

out=$MZ_PATCHES/mm-unstable
v11fixes=$MZ_PATCHES/$MZ_V11_FIXES
mz_upstream_src
src=$MZ_UPSTREAM_DIR base=$MZ_UPSTREAM_HEAD

# clone_at DIR: DIR is a clone of $src checked out at $base, on branch
# "upstream" (shared objects: cheap, and $src is never written).
clone_at() {
	local dir=$1
	if [ ! -d "$dir/.git" ]; then
		info "cloning $src into $dir (shared objects)"
		git clone -q --shared --no-checkout "$src" "$dir"
	fi
	git -C "$dir" fetch -q "$src" "$base"
	git -C "$dir" checkout -q -f -B upstream "$base"
	git -C "$dir" clean -q -fdx
}

export GIT_AUTHOR_NAME="$MZ_TREE_NAME" GIT_AUTHOR_EMAIL="$MZ_TREE_EMAIL"
export GIT_COMMITTER_NAME="$MZ_TREE_NAME" GIT_COMMITTER_EMAIL="$MZ_TREE_EMAIL"

# am_series TREE DIR [OPTION]: 'git am' (with OPTION) the patches
# DIR/series lists onto TREE's HEAD; prints how many.
am_series() {
	local tree=$1 dir=$2 p n=0
	local -a plist=() opt=(${3:+"$3"})
	mz_series_patches plist "$dir"
	for p in ${plist[@]+"${plist[@]}"}; do
		mz_patch_identity "$dir/$p" "$MZ_TREE_NAME" "$MZ_TREE_EMAIL" |
			git -C "$tree" am -q ${opt[@]+"${opt[@]}"} || {
			git -C "$tree" am --abort || true
			die "${dir#"$MZ_ROOT/"}/$p does not apply to MZ_UPSTREAM_SRC's HEAD ${base:0:12} plus what precedes it; export again (make upstream-export) on this base"
		}
		n=$((n + 1))
	done
	echo "$n"
}

case "$mode" in
base)
	clone_at "$MZ_UPSTREAM_TREE-base"
	n=$(am_series "$MZ_UPSTREAM_TREE-base" "$MZ_PATCHES/$MZ_FIXES")
	info "applied the $n fixes of patches/$MZ_FIXES/ to ${base:0:12} in $MZ_UPSTREAM_TREE-base"
	echo "$MZ_UPSTREAM_TREE-base"
	;;
apply)
	[ -f "$out/series" ] || die "no $out/series; run 'make upstream-export' first"
	[ -f "$v11fixes/series" ] || die "no $v11fixes/series; run 'make upstream-export' first"
	clone_at "$MZ_UPSTREAM_TREE"
	n=$(am_series "$MZ_UPSTREAM_TREE" "$MZ_PATCHES/$MZ_FIXES")
	info "applied the $n fixes of patches/$MZ_FIXES/ to ${base:0:12}"
	n=$(am_series "$MZ_UPSTREAM_TREE" "$v11fixes")
	info "applied the $n fixes of v11 in patches/$MZ_V11_FIXES/"
	n=$(am_series "$MZ_UPSTREAM_TREE" "$out")
	info "applied $n patches of patches/mm-unstable/ to ${base:0:12} in $MZ_UPSTREAM_TREE"
	for f in $MZ_FOLLOWUPS; do
		[ -f "$MZ_PATCHES/$f/series" ] || continue
		n=$(am_series "$MZ_UPSTREAM_TREE" "$MZ_PATCHES/$f" --3way)
		info "applied the $n patches of the follow-up series patches/$f/ on top"
	done
	echo "$MZ_UPSTREAM_TREE"
	;;
export)
	series=$("$MZ_ROOT/harness/series/tree.sh" apply)
	part1_end=$(git -C "$series" rev-list --reverse "$MZ_BASE_TAG..series" | sed -n "${MZ_PART1}p")
	[ -n "$part1_end" ] || die "the series has fewer than MZ_PART1=$MZ_PART1 patches"
	# Part 2 of the series; its follow-ups (MZ_FOLLOWUPS) must apply on top.
	first=series
	if git -C "$series" rev-parse -q --verify "refs/heads/$MZ_FIRST_BRANCH" >/dev/null; then
		first=$MZ_FIRST_BRANCH
	fi
	work=$MZ_UPSTREAM_TREE-export
	clone_at "$work"
	# The fixes the series applies on, as they are (they must apply).
	n=$(am_series "$work" "$MZ_PATCHES/$MZ_FIXES")
	info "applied the $n fixes of patches/$MZ_FIXES/"
	onto=$(git -C "$work" rev-parse HEAD)
	git -C "$work" fetch -q "$series" series
	mapfile -t commits < <(git -C "$series" rev-list --reverse "$part1_end..$first")
	info "rebasing Part 2 (${#commits[@]} patches) onto ${base:0:12}"
	for c in "${commits[@]}"; do
		if git -C "$work" cherry-pick --allow-empty "$c" >/dev/null 2>&1; then
			continue
		fi
		mapfile -t conflicted < <(git -C "$work" diff --name-only --diff-filter=U)
		[ "${#conflicted[@]}" -gt 0 ] ||
			die "cherry-picking $(git -C "$series" log -1 --format='%h (%s)' "$c") failed without a conflict; see $work"
		for f in "${conflicted[@]}"; do
			# Part 2's side of every conflicting hunk (see the header).
			awk '/^<<<<<<< /{ skip = 1; next }
			     /^=======$/ && skip == 1 { skip = 0; next }
			     /^>>>>>>> /{ next }
			     !skip' "$work/$f" >"$work/$f.mz" && mv "$work/$f.mz" "$work/$f"
			git -C "$work" add "$f"
		done
		info "  $(git -C "$series" log -1 --format='%s' "$c"): resolved ${conflicted[*]}"
		GIT_EDITOR=true git -C "$work" cherry-pick --continue >/dev/null
		git -C "$series" diff "$c^" "$c" -- "${conflicted[@]}" >"$work.series.diff"
		git -C "$work" diff HEAD^ HEAD -- "${conflicted[@]}" >"$work.export.diff"
		if ! "$MZ_ROOT/harness/series/resolution-check.py" "$work.series.diff" \
			"$work.export.diff" >"$work.extra"; then
			sed 's/^/    /' "$work.extra" >&2
			die "resolving $(git -C "$series" log -1 --format='%h (%s)' "$c") with its side removed upstream code that the patch does not remove (above): give the rewrite of Part 1 upstream's shape there; see $work"
		fi
	done
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# The fixes of v11 keep the cover letter text they have.
	[ -f "$v11fixes/0000-cover-letter.patch" ] ||
		die "no $v11fixes/0000-cover-letter.patch: its subject and text are the fixes' cover letter; write them as 'git format-patch --cover-letter' lays them out"
	"$MZ_ROOT/harness/series/cover-letter.sh" extract "$v11fixes/0000-cover-letter.patch" >"$tmp/fixes-desc"
	fixes_end=$(git -C "$work" rev-list --reverse "$onto..HEAD" | sed -n "${MZ_V11_FIXES_N}p")
	[ -n "$fixes_end" ] || die "Part 2 has fewer than MZ_V11_FIXES_N=$MZ_V11_FIXES_N patches"
	for part in "fixes $onto..$fixes_end" "delta $fixes_end..HEAD"; do
		git -C "$work" -c core.abbrev=12 format-patch -q --cover-letter --zero-commit --no-signature \
			--subject-prefix="$MZ_SUBJECT_PREFIX" -o "$tmp/${part%% *}" "${part#* }"
		for f in "$tmp/${part%% *}"/*.patch; do mz_strip_tree_signoff "$f"; done
	done
	if [ "$first" != series ]; then
		for f in $MZ_FOLLOWUPS; do
			[ -f "$MZ_PATCHES/$f/series" ] || continue
			info "checking that patches/$f/ applies on top"
			# Made on 7.3.4, a follow-up may have the first
			# series' lines as context where upstream has v11's:
			# --3way merges it through the blobs of the kernel
			# tree, which MZ_UPSTREAM_SRC shares objects with.
			n=$(am_series "$work" "$MZ_PATCHES/$f" --3way)
			info "  patches/$f/: $n patches applied"
		done
	fi
	# Outside Part 1's files, the result (with the follow-ups) must be
	# the series tree's.
	mapfile -t p1files < <(git -C "$series" diff --name-only "$MZ_BASE_TAG" "$part1_end")
	mapfile -t p2files < <(git -C "$series" diff --name-only "$part1_end" series)
	for f in "${p2files[@]}"; do
		case " ${p1files[*]} " in *" $f "*) continue ;; esac
		if ! cmp -s <(git -C "$series" show "series:$f" 2>/dev/null) <(git -C "$work" show "HEAD:$f" 2>/dev/null); then
			die "after the rebase, $f differs from the series tree's; see $work"
		fi
	done
	# The cover letter: the first series' own (its branch description),
	# with the base it sits on in place of the paragraph that explains
	# the 7.3.4 form, and without the line naming this project's report
	# script.  One text for both postings.
	# v11's commits in the base, named by their ids in mm-stable where
	# patches/cited-commits.txt has them: a base that is a local rebuild
	# of v11 (7.3.y plus its patches) has ids of its own, which the cover
	# letter names only as the tree it was exported on.
	v11=
	rebuilt=0
	while IFS=$'\t' read -r id subj; do
		up=$(awk -v s="$subj" '{ i = index($0, " "); r = substr($0, i + 1); j = index(r, " | ")
			if (j && substr(r, 1, j - 1) == s) { print $1; exit } }' "$MZ_PATCHES/cited-commits.txt")
		if [ -z "$up" ]; then
			rebuilt=1
			continue
		fi
		[ "${id:0:${#up}}" = "$up" ] || rebuilt=1
		v11+="  $up (\"$subj\")"$'\n'
	done < <(git -C "$src" log --format='%H%x09%s' -n 20 "$base" -- mm/mm_init.c include/linux/string.h \
		arch/x86/include/asm/string_64.h include/linux/mm.h |
		grep -E 'zone-device|zone_device|ZONE_DEVICE|memcpy_nontemporal|memcpy_flushcache|set_page_section_from_pfn' || true)
	[ -n "$v11" ] || die "MZ_UPSTREAM_SRC's HEAD ${base:0:12}: none of its commits is one of v11's in patches/cited-commits.txt"
	{
		if [ "$rebuilt" = 0 ]; then
			echo "It applies on $(git -C "$src" log -1 --format='%h ("%s")' "$base")"
			echo "with, on top, the $MZ_V11_FIXES_N fixes posted as"
			echo "\"$(head -n 1 "$tmp/fixes-desc")\"."
			echo "The base has these commits of v11:"
			echo
			printf '%s' "$v11"
		else
			echo "It applies on v11 with, on top, the $MZ_V11_FIXES_N fixes posted as"
			echo "\"$(head -n 1 "$tmp/fixes-desc")\"."
			echo "It was exported on, and tested with, $(git -C "$src" log -1 --format='%h' "$base"): Linux $(mz_kernelversion "$src")"
			echo "with v11's patches applied (no mm-stable tree was at hand).  v11's"
			echo "commits in mm-stable:"
			echo
			printf '%s' "$v11"
		fi
	} >"$tmp/base"
	git -C "$series" config "branch.$first.description" >"$tmp/first-desc" ||
		die "branch $first of $series has no description (its cover letter's text)"
	grep -q "^$MZ_COVER_RELEASE_PARAGRAPH" "$tmp/first-desc" ||
		die "the cover letter of branch $first has no paragraph starting \"$MZ_COVER_RELEASE_PARAGRAPH\" for the base to replace"
	awk -v base="$tmp/base" -v rel="$MZ_COVER_RELEASE_PARAGRAPH" '
		BEGIN { while ((getline l < base) > 0) b = b l "\n" }
		skip && /^$/ { skip = 0; printf "%s", b }
		skip { next }
		index($0, rel) == 1 && prev == "" { skip = 1; next }
		/^Generated by "harness\// { gen = 1; next }
		gen && /^$/ { gen = 0; next }
		{ gen = 0; print; prev = $0 }
	' "$tmp/first-desc" >"$tmp/desc"
	# write_out DIR FORMATTED DESC WHAT: DIR holds the patches of
	# FORMATTED, its cover letter filled in from DESC, and their series.
	write_out() {
		local dir=$1 from=$2 desc=$3 what=$4 f b
		awk -v desc="$desc" '
			/\*\*\* SUBJECT HERE \*\*\*/ { getline first < desc; sub(/\*\*\* SUBJECT HERE \*\*\*/, first); print; next }
			/^\*\*\* BLURB HERE \*\*\*$/ { getline skip < desc; while ((getline l < desc) > 0) print l; next }
			{ print }' "$from/0000-cover-letter.patch" >"$from/cover" && mv "$from/cover" "$from/0000-cover-letter.patch"
		mz_keep_cover_date "$from/0000-cover-letter.patch" "$dir/0000-cover-letter.patch"
		rm -rf "$dir"
		mkdir -p "$dir"
		{
			echo "# Applied in order with 'git am' on ${base:0:12} with $what; generated by harness/series/upstream.sh export"
			for f in "$from"/*.patch; do
				b=${f##*/}
				[ "$b" = 0000-cover-letter.patch ] || echo "$b"
			done
		} >"$dir/series"
		cp "$from"/*.patch "$dir/"
	}
	write_out "$v11fixes" "$tmp/fixes" "$tmp/fixes-desc" "patches/$MZ_FIXES/series"
	info "exported the $MZ_V11_FIXES_N fixes of v11 to $v11fixes"
	write_out "$out" "$tmp/delta" "$tmp/desc" "patches/$MZ_FIXES/series and patches/$MZ_V11_FIXES/series"
	info "exported $(($(wc -l <"$out/series") - 1)) patches to $out (base ${base:0:12})"
	;;
esac
