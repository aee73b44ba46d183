#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# cover-letter.sh: print the hand-written part of a cover letter.
#
#   cover-letter.sh extract FILE      (upstream.sh and send-prep.sh run it)
#
# FILE is a cover letter made by 'git format-patch --cover-letter
# --cover-from-description=subject'; its hand-written part (subject line,
# blank line, body up to the shortlog) is the branch description that
# regenerates it (harness/series/cover-letter.awk).
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 2 2 'extract FILE' "$@"
case "${MZ_OPERANDS[0]}" in
extract) ;;
*) mz_arg_error "SUBCOMMAND '${MZ_OPERANDS[0]}': want extract" ;;
esac
file=${MZ_OPERANDS[1]}
[ -r "$file" ] || die "cannot read $file"
awk -f "$MZ_ROOT/harness/series/cover-letter.awk" "$file"
