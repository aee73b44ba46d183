#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-mirror.sh: fail when patches/ and the kernel-tree mirror disagree.
#
#   check-mirror.sh      (make check-mirror; check.sh's mirror step)
#
# Applies patches/fixes/series, patches/series and each follow-up's
# patches/NAME/series (MZ_FOLLOWUPS: threads, hotplug), in order,
# to the release in a scratch index of the kernel tree (nothing in the
# tree's work tree or branches changes), then requires that the mirror
# directories hold exactly the files they touch, each identical to what
# they produce.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 0 0 'no arguments' "$@"
need_tool git git
if ! git -C "$MZ_TREE" rev-parse -q --verify "refs/tags/$MZ_RELEASE_TAG" >/dev/null 2>&1; then
	"$MZ_ROOT/harness/series/tree.sh" apply >/dev/null
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GIT_INDEX_FILE=$tmp/index
g() { git -C "$MZ_TREE" "$@"; }
g read-tree "$MZ_RELEASE_TAG"

n=0
plist=()
mz_stack_patches plist "$MZ_ROOT/patches"
for p in ${plist[@]+"${plist[@]}"}; do
	g apply --cached "$MZ_ROOT/patches/$p" 2>"$tmp/err" ||
		die "patches/$p does not apply on $MZ_RELEASE_TAG and the patches before it: $(head -n 1 "$tmp/err")"
	n=$((n + 1))
done

bad=0
declare -A touched=()
while IFS= read -r f; do
	touched[$f]=1
	if g cat-file -e ":$f" 2>/dev/null; then
		if [ ! -f "$MZ_ROOT/$f" ]; then
			echo "missing from the mirror: $f" >&2; bad=1
		elif ! g show ":$f" | cmp -s - "$MZ_ROOT/$f"; then
			echo "differs from the series: $f" >&2; bad=1
		fi
	elif [ -e "$MZ_ROOT/$f" ]; then
		echo "deleted by the series but present in the mirror: $f" >&2; bad=1
	fi
done < <(g diff-index --cached --name-only "$MZ_RELEASE_TAG")

read -r -a mirror_dirs <<<"$MZ_MIRROR_DIRS"
for d in "${mirror_dirs[@]}"; do
	[ -d "$MZ_ROOT/$d" ] || continue
	while IFS= read -r f; do
		f=${f#"$MZ_ROOT/"}
		[ -n "${touched[$f]:-}" ] || { echo "in the mirror but not touched by the series: $f" >&2; bad=1; }
	done < <(find "$MZ_ROOT/$d" -type f)
done

[ "$bad" -eq 0 ] || die "patches/ and the kernel-tree mirror disagree (above); regenerate both with harness/series/export.sh"
info "mirror matches the series: $n patches, ${#touched[@]} files"
