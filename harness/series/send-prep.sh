#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # mz_opt and mz_flag set the options' variables
# send-prep.sh: prepare a copy of a series for git send-email (nothing is sent).
#
#   send-prep.sh [--fixes|--threads|--hotplug|--v11-fixes|--mm-unstable|--ndctl] OUTDIR   (make send-prep*)
#
# Without an option, the series of patches/, on the fixes of
# patches/fixes/ (applied first, not sent: the cover letter names them).
# --threads, --hotplug (an option per follow-up series, MZ_FOLLOWUPS): that
# follow-up alone, on the fixes and patches/, which are applied, not sent;
# not on the follow-ups the kernel tree stacks under it, which it needs
# none of (check-series.sh first builds each follow-up there).
# In a scratch clone, every patch gets the sender (git config user.name
# and user.email, refused when unset or a placeholder) as author and
# Signed-off-by:, git format-patch writes the series with its cover
# letter, get_maintainer.pl the Cc: lines, and checkpatch.pl --strict
# must be silent.  OUTDIR (new, empty, or an earlier run's *.patch) is
# written only when every step passed; the git send-email command is
# printed on stdout.  MZ_PATCHES: another series directory (for tests).
# docs/developing.md says more.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_flag --fixes fixes 'the fixes of patches/fixes/, on the release'
for f in $MZ_FOLLOWUPS; do
	mz_flag "--$f" "followup_${f//-/_}" "the follow-up series of patches/$f/, on the fixes and patches/"
done
mz_flag --v11-fixes v11_fixes "patches/v11-fixes/, on MZ_UPSTREAM_SRC's HEAD (a tree with v11)"
mz_flag --mm-unstable mm_unstable "patches/mm-unstable/, on MZ_UPSTREAM_SRC's HEAD with the fixes and patches/v11-fixes/ before it"
mz_flag --ndctl ndctl "the ndctl series of patches/ndctl/, on ndctl $MZ_NDCTL_VERSION, with ndctl's conventions"
mz_parse "$@"
# followup: the follow-up series chosen (its folder under patches/), if any.
chosen=() followup='' opts=(fixes:"$fixes")
for f in $MZ_FOLLOWUPS; do
	v=followup_${f//-/_}
	opts+=("$f:${!v}")
	[ "${!v}" = 0 ] || followup=$f
done
opts+=(v11-fixes:"$v11_fixes" mm-unstable:"$mm_unstable" ndctl:"$ndctl")
for o in "${opts[@]}"; do
	[ "${o#*:}" = 0 ] || chosen+=("--${o%%:*}")
done
[ ${#chosen[@]} -le 1 ] || mz_arg_error "${chosen[*]}: want one series at most"
if [ ${#MZ_OPERANDS[@]} -ne 1 ]; then
	o=$(printf -- '--%s|' "${opts[@]%%:*}")
	mz_arg_error "want [${o%|}] OUTDIR"
fi
upstream=
[ "$v11_fixes" = 0 ] || upstream=$MZ_V11_FIXES
[ "$mm_unstable" = 0 ] || upstream=mm-unstable
out=${MZ_OPERANDS[0]}
[ -n "$out" ] || mz_arg_error "OUTDIR '': want a directory"
if [ -e "$out" ]; then
	[ -d "$out" ] || mz_arg_error "OUTDIR '$out': exists and is not a directory"
	for f in "$out"/* "$out"/.[!.]*; do
		[ -e "$f" ] || continue
		case "$f" in *.patch) [ -f "$f" ] && continue ;; esac
		mz_arg_error "OUTDIR '$out': holds files other than an earlier prepared series (e.g. ${f##*/}); give a new or empty directory"
	done
fi

# The sender, as git resolves it for a commit in this project.
name=$(git -C "$MZ_ROOT" config --get user.name || true)
email=$(git -C "$MZ_ROOT" config --get user.email || true)
if [ -z "$name" ] || [ -z "$email" ]; then
	mz_arg_error "no sender identity: git config user.name and user.email must both be set (the prepared patches carry them as author and Signed-off-by); set them with
  git config --global user.name 'Your Name'
  git config --global user.email you@your.domain"
fi
case "$email" in *@*) ;; *) mz_arg_error "git config user.email is '$email', not a mail address; fix it with git config --global user.email you@your.domain" ;; esac
mz_placeholder_email "$email" &&
	mz_arg_error "git config user.email is '$email', a placeholder (example.org, .example, localhost, ...): the patches are sent with the sender's own From: and Signed-off-by:; set it with git config --global user.email you@your.domain"
sender="$name <$email>"

need_tool git git
need_tool perl perl
need_tool flock util-linux
patches=$MZ_PATCHES
# What differs for the ndctl series: its patches, the tree it applies to
# and its base tag, the scratch clone.
src=$MZ_TREE base=$MZ_RELEASE_TAG scratch=$MZ_SEND_TREE
# The series a series applies on (the fixes; for a follow-up, the fixes
# and the first series, not the follow-ups before it in the kernel tree:
# each follow-up is sent on the first series): their patches go in first
# and are not sent (format-patch --base names them).
pre=() predirs=()
if [ "$ndctl" = 1 ]; then
	patches=$MZ_PATCHES/ndctl
	src=$MZ_NDCTL_TREE base=$MZ_NDCTL_TAG scratch=$MZ_NDCTL_SEND_TREE
elif [ "$fixes" = 1 ]; then
	patches=$MZ_PATCHES/$MZ_FIXES
elif [ -n "$upstream" ]; then
	# base: a commit, not a tag of the kernel tree.
	mz_upstream_src
	src=$MZ_UPSTREAM_DIR base=$MZ_UPSTREAM_HEAD scratch=$MZ_SEND_TREE-upstream
	patches=$MZ_PATCHES/$upstream
	[ "$upstream" = "$MZ_V11_FIXES" ] ||
		predirs=("$MZ_PATCHES/$MZ_FIXES" "$MZ_PATCHES/$MZ_V11_FIXES")
else
	predirs=("$MZ_PATCHES/$MZ_FIXES")
	if [ -n "$followup" ]; then
		predirs+=("$MZ_PATCHES")
		patches=$MZ_PATCHES/$followup
	fi
fi
for d in ${predirs[@]+"${predirs[@]}"}; do
	plist=()
	mz_series_patches plist "$d"
	[ "$d" != "$MZ_PATCHES" ] || [ "${#plist[@]}" -gt 0 ] ||
		die "$d/series lists no patches: nothing for $patches to apply on"
	for p in ${plist[@]+"${plist[@]}"}; do pre+=("$d/$p"); done
done
cover=$patches/0000-cover-letter.patch
[ -f "$patches/series" ] || die "$patches/series missing; run harness/series/export.sh"
[ -f "$cover" ] || die "$cover missing; run harness/series/export.sh"
# "[PATCH v6 00/16]" -> "PATCH v6"
prefix=$(sed -n 's/^Subject: \[\(.*[^ ]\) 0*0\/[0-9]*\].*/\1/p' "$cover" | head -n 1)
[ -n "$prefix" ] || die "$cover has no 'Subject: [PATCH vN 00/NN]' line"
series=()
mz_series_patches series "$patches"
[ "${#series[@]}" -gt 0 ] || die "$patches/series lists no patches"

# The kernel tree gives the base commit (and checkpatch.pl and
# get_maintainer.pl); make it if there is none yet.
if [ -z "$upstream" ] &&
	! git -C "$MZ_TREE" rev-parse -q --verify "refs/tags/$MZ_RELEASE_TAG" >/dev/null 2>&1; then
	info "no kernel tree at $MZ_TREE yet; making it with harness/series/tree.sh"
	"$MZ_ROOT/harness/series/tree.sh" apply >/dev/null
fi
if [ "$ndctl" = 1 ] &&
	! git -C "$src" rev-parse -q --verify "refs/tags/$base" >/dev/null 2>&1; then
	info "no ndctl tree at $src yet; making it with harness/series/ndctl-tree.sh"
	"$MZ_ROOT/harness/series/ndctl-tree.sh" apply >/dev/null
fi

mkdir -p "$MZ_CACHE"
exec 9>"$scratch.lock"
flock -n 9 || { info "waiting for another send-prep.sh to finish"; flock 9; }
tmp=$(mktemp -d "$MZ_SEND_OUT-prep.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

s() { git -C "$scratch" "$@"; }
start=$(date +%s)
if ! s rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$scratch"
	info "cloning $src to $scratch (scratch tree for sending)"
	git clone -q --no-checkout --local "$src" "$scratch"
fi
if [ -n "$upstream" ]; then
	s fetch -q "$src" "$base"
else
	s fetch -q --force "$src" "+refs/tags/$base:refs/tags/$base"
fi
if [ -d "$(s rev-parse --git-path rebase-apply)" ]; then s am --abort || true; fi
if [ "$ndctl" = 0 ]; then
	# drivers/ is two thirds of the tree: only the drivers the series
	# touches are checked out (checkpatch and get_maintainer.pl read no
	# others).
	sparse=('/*' '!/drivers/*/')
	mapfile -t -O 2 sparse < <(
		{
			(cd "$patches" && cat "${series[@]}")
			[ "${#pre[@]}" -eq 0 ] || cat "${pre[@]}"
		} | sed -n 's|^diff --git a/drivers/\([^/ ]*\)/.*|/drivers/\1/|p' | sort -u)
	s sparse-checkout set --no-cone "${sparse[@]}"
fi
info "checking out $base in $scratch"
s checkout -q -f -B mz-send "$base"
s clean -q -f -d

export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
for p in ${pre[@]+"${pre[@]}"}; do
	mz_patch_identity "$p" "$name" "$email" | s am -q ||
		{ s am --abort || true; die "patch ${p#"$MZ_PATCHES/"} does not apply on $base and the patches before it; fix it (harness/series/tree.sh, harness/series/export.sh)"; }
done
what=
for d in ${predirs[@]+"${predirs[@]}"}; do what+=" ${d#"$MZ_ROOT/"}/"; done
[ "${#pre[@]}" -eq 0 ] || info "applied the ${#pre[@]} patches it applies on (${what# }; not sent)"
first=$(s rev-parse HEAD)
# base-commit: and a prerequisite-patch-id: line per patch it applies on.
fp_base=()
[ "${#pre[@]}" -eq 0 ] || fp_base=(--base="$base")
n=0
for p in "${series[@]}"; do
	n=$((n + 1))
	mz_patch_identity "$patches/$p" "$name" "$email" | s am -q ||
		{ s am --abort || true; die "patch $p does not apply on $base; fix $patches (harness/series/tree.sh, harness/series/export.sh; for ndctl harness/series/ndctl-tree.sh)"; }
	s log -1 --format=%B >"$tmp/msg"
	grep -qxF "Signed-off-by: $sender" "$tmp/msg" && continue
	s interpret-trailers --in-place --trailer "Signed-off-by: $sender" "$tmp/msg"
	s commit -q --amend --no-verify --allow-empty --cleanup=verbatim -F "$tmp/msg"
done
info "applied $n patches as $sender"

s config branch.mz-send.description "$("$MZ_ROOT/harness/series/cover-letter.sh" extract "$cover")"
# Whatever the sender's diff settings, patches that 'git am' takes as -p1.
s -c core.abbrev=12 -c diff.noprefix=false -c diff.mnemonicPrefix=false -c diff.relative=false \
	format-patch -q --cover-letter --cover-from-description=subject \
		--subject-prefix="$prefix" --numbered --thread=shallow --no-signature \
		${fp_base[@]+"${fp_base[@]}"} -o "$tmp/out" "$first..mz-send" || die "git format-patch failed in $scratch"
mapfile -t files < <(find "$tmp/out" -name '*.patch' | sort)
[ "${#files[@]}" -eq $((n + 1)) ] ||
	die "git format-patch wrote ${#files[@]} files for $n patches and a cover letter"

# Cc: headers, one address a line, before the blank line ending the headers.
add_cc() {
	local f=$1 ccfile=$2
	awk -v ccfile="$ccfile" '
		!done && /^$/ { while ((getline a < ccfile) > 0) print "Cc: " a; done = 1 }
		{ print }
	' "$f" >"$f.new"
	mv "$f.new" "$f"
}
info "Cc: lines from scripts/get_maintainer.pl"
: >"$tmp/all-cc"
for f in "${files[@]}"; do
	case "${f##*/}" in 0000-cover-letter.patch) continue ;; esac
	if [ "$ndctl" = 1 ]; then
		(cd "$MZ_TREE" && scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback \
			-f drivers/nvdimm/namespace_devs.c)
	else
		(cd "$scratch" && scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback "$f")
	fi >"$tmp/cc" 2>"$tmp/cc.err" ||
		{ cat "$tmp/cc.err" >&2; die "scripts/get_maintainer.pl failed on ${f##*/}"; }
	# Not the sender, who sends them anyway; and not linux-kernel for
	# ndctl, which get_maintainer.pl adds for every kernel file.
	awk -v e="$email" -v nd="$ndctl" '$0 != e && !index($0, "<" e ">") &&
		!(nd && $0 == "linux-kernel@vger.kernel.org")' "$tmp/cc" >"$tmp/cc.own"
	[ -s "$tmp/cc.own" ] || die "scripts/get_maintainer.pl found nobody for ${f##*/}"
	add_cc "$f" "$tmp/cc.own"
	cat "$tmp/cc.own" >>"$tmp/all-cc"
done
awk '!seen[$0]++' "$tmp/all-cc" >"$tmp/cover-cc"
add_cc "$tmp/out/0000-cover-letter.patch" "$tmp/cover-cc"

info "scripts/checkpatch.pl --strict on the prepared patches (in the kernel tree)"
bad=0
for f in "${files[@]}"; do
	case "${f##*/}" in 0000-cover-letter.patch) continue ;; esac
	if [ "$ndctl" = 1 ]; then
		o=$(mz_checkpatch "$MZ_TREE" "$f" "${MZ_NDCTL_CHECKPATCH[@]}")
	else
		o=$(mz_checkpatch "$scratch" "$f")
	fi
	if [ -n "$o" ]; then
		printf '%s:\n%s\n' "${f##*/}" "$o" >&2
		bad=1
	fi
done
[ "$bad" -eq 0 ] || die "checkpatch --strict reports the above on the prepared patches; nothing written to $out"

mkdir -p "$out"
rm -f "$out"/*.patch
mv "${files[@]}" "$out/"
out=$(cd "$out" && pwd)
to=linux-mm@kvack.org
[ "$ndctl" = 0 ] || to=nvdimm@lists.linux.dev
grep -qxF "$to" "$tmp/cover-cc" || to=$(grep -v '<' "$tmp/cover-cc" | head -n 1 || true)
[ -n "$to" ] || to=$(head -n 1 "$tmp/cover-cc")
info "prepared $n patches and the cover letter in $out as $sender ($(mz_since "$start") s); check the recipients with --dry-run first"
printf 'git send-email --to=%s %q/*.patch\n' "$to" "$out"
