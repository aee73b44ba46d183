#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# verify-config.sh [--src KERNEL_TREE] CONFIG FRAGMENT...: check that every
# option the Kconfig fragments ask for ("CONFIG_X=v" or "# CONFIG_X is not
# set") is what the final .config CONFIG has, and fail naming each one
# Kconfig dropped.  build-kernel.sh runs it after merging the fragments.
#
# With --src, options that KERNEL_TREE's Kconfig files do not define (the
# series' own options, when checking the unpatched base) are not expected.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

usage() {
	echo "usage: ${0##*/} [--src KERNEL_TREE] CONFIG FRAGMENT..." >&2
	exit 2
}
src=
if [ "${1:-}" = --src ]; then
	[ $# -ge 2 ] || usage
	src=$2
	shift 2
fi
[ $# -ge 2 ] || usage
case "$1" in -*) usage ;; esac
config=$1
shift
[ -f "$config" ] || die "$config does not exist"
for f in "$@"; do [ -f "$f" ] || die "fragment $f does not exist"; done
[ -z "$src" ] || [ -d "$src" ] || die "--src $src is not a directory"

# last_values FRAGMENT...: the fragments' option lines, the last one for
# each option (a later fragment overrides an earlier one, as in
# merge_config.sh).
last_values() {
	awk '/^CONFIG_[A-Za-z0-9_]+=/ { sym = $0; sub(/=.*/, "", sym) }
	     /^# CONFIG_[A-Za-z0-9_]+ is not set$/ { sym = $2 }
	     sym != "" { if (!(sym in line)) order[n++] = sym; line[sym] = $0; sym = "" }
	     END { for (i = 0; i < n; i++) print line[order[i]] }' "$@"
}
missing=()
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) sym=${line%%=*}; want=$line ;;
	"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}; want= ;;
	*) continue ;;
	esac
	if [ -n "$src" ] &&
	   ! grep -rqsx --include='Kconfig*' "config ${sym#CONFIG_}" "$src"; then
		continue
	fi
	if [ -n "$want" ]; then
		grep -qxF "$want" "$config" || missing+=("$want (got: $(grep -E "^$sym=|^# $sym is not set" "$config" || echo unset))")
	else
		! grep -q "^$sym=[ym]" "$config" || missing+=("$sym=n (got: $(grep "^$sym=" "$config"))")
	fi
done < <(last_values "$@")
if [ ${#missing[@]} -gt 0 ]; then
	printf '  %s\n' "${missing[@]}" >&2
	die "Kconfig dropped ${#missing[@]} option(s) the fragments ask for (listed above; usually a missing dependency); fix Kconfig.fragments/"
fi
