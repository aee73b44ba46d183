#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# seed-build.sh: start a kernel build directory as a copy of a finished one.
#
#   seed-build.sh FROM TO      (build-kernel.sh runs it)
#
# TO starts as a copy of the finished build directory FROM (same source
# tree, another variant), so that Kbuild rebuilds only what the
# configuration change touches: it records which CONFIG_ symbols every
# object depends on (fixdep), so a copied build plus a new .config
# recompiles a handful of files where a new directory recompiles all of
# them.  Only objtool's build under tools/ records absolute paths
# (in its .cmd and .d files); they are rewritten to TO with their times
# kept, or make would rebuild objtool and with it every object.
#
# TO must be missing or empty.  FROM must hold the .mz-built stamp
# build-kernel.sh writes after a successful build; the copy does not.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 2 2 'FROM TO (build directories)' "$@"
from=${MZ_OPERANDS[0]} to=${MZ_OPERANDS[1]}
[ -d "$from" ] || die "$from is not a directory"
[ -f "$from/.mz-built" ] || die "$from holds no finished build (no .mz-built stamp)"
if [ -e "$to" ] && [ -n "$(find "$to" -mindepth 1 -print -quit)" ]; then
	die "$to is not empty; seed only a new build directory"
fi
from=$(cd "$from" && pwd)
mkdir -p "$to"
to=$(cd "$to" && pwd)
[ "$from" != "$to" ] || die "$from: cannot seed a build directory from itself"

tmp=$to.seed.$$
trap 'rm -rf "$tmp"' EXIT
cp -a "$from" "$tmp"
rm -f "$tmp/.mz-built"
# FROM as a sed pattern, ending where the path ends.
re=$(printf '%s' "$from" | sed 's/[][\\.*^$#]/\\&/g')
re="$re\\([^A-Za-z0-9_.-]\\|\$\\)"
rep=$(printf '%s' "$to" | sed 's/[\\&#]/\\&/g')
n=0
while IFS= read -r -d '' f; do
	grep -qF "$from" "$f" || continue
	t=$(stat -c %y "$f")
	sed -i "s#$re#$rep\\1#g" "$f"
	touch -d "$t" "$f"
	n=$((n + 1))
done < <(find "$tmp/tools" \( -name '.*.cmd' -o -name '*.d' \) -type f -print0 2>/dev/null)
rmdir "$to"
mv "$tmp" "$to"
trap - EXIT
info "seeded $to from $from ($n path record(s) rewritten)"
