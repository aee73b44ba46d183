#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# cover-letter.sh extract FILE: print the hand-written part of a cover
# letter made by 'git format-patch --cover-letter --cover-from-description=
# subject' (subject line, blank line, body up to the shortlog), i.e. the
# branch description that regenerates it (harness/series/cover-letter.awk).
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

if [ $# -ne 2 ] || [ "$1" != extract ]; then
	echo "usage: ${0##*/} extract FILE" >&2
	exit 2
fi
[ -r "$2" ] || die "cannot read $2"
awk -f "$MZ_ROOT/harness/series/cover-letter.awk" "$2"
