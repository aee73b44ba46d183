#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# verify-config.sh: check that a .config has every option the Kconfig fragments ask for.
#
#   verify-config.sh [--src KERNEL_TREE] CONFIG FRAGMENT...
#
# Each "CONFIG_X=v" or "# CONFIG_X is not set" of the fragments (the last
# one wins, as in merge_config.sh) must be what CONFIG has; fails naming
# each option Kconfig dropped.  build-kernel.sh runs it after merging.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_opt --src src '' KERNEL_TREE . \
	"options this tree's Kconfig files do not define are not expected (the series' own, on the base)"
mz_parse "$@"
[ ${#MZ_OPERANDS[@]} -ge 2 ] ||
	mz_arg_error "want [--src KERNEL_TREE] CONFIG FRAGMENT..., not ${#MZ_OPERANDS[@]} arguments"
set -- "${MZ_OPERANDS[@]}"
config=$1
shift
[ -z "$src" ] || [ -d "$src" ] || mz_arg_error "--src '$src': no such directory (want a kernel tree)"
[ -f "$config" ] || die "$config does not exist"
for f in "$@"; do [ -f "$f" ] || die "fragment $f does not exist"; done

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
