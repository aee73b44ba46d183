#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-space.sh: stop make check at once when it would fill a file system.
#
#   check-space.sh [--assume-free MIB]      (check.sh runs it first)
#
# A cold make check leaves MZ_CHECK_CACHE_MIB in an empty MZ_CACHE
# (kernel trees, builds, initramfs archives, QEMU 10; lib.sh) and writes
# up to MZ_CHECK_TMP_MIB under TMPDIR (bats' temporary files) while it
# runs.  What MZ_CACHE already holds is taken off the first, down to
# 1 GiB (logs, results and rebuilt objects still grow); when both are on
# one file system, it needs the sum.  A run that fills the
# disk fails late, in whatever step writes next, with errors that do not
# say why: this says it before anything is built, and changes nothing.
# --assume-free MIB takes MIB as the free space of every file system
# (for tests).
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_opt --assume-free assume_free '' MIB '^[0-9]+$' 'take MIB as the free space of every file system (tests)'
mz_operands 0 0 'no arguments' "$@"

tmp=${TMPDIR:-/tmp}
# existing DIR: DIR, or its nearest existing parent.
existing() {
	local d=$1
	while [ ! -d "$d" ]; do d=$(dirname "$d"); done
	echo "$d"
}
# free_mib DIR: the free space of DIR's file system, in MiB.
free_mib() {
	if [ -n "$assume_free" ]; then
		echo "$assume_free"
	else
		echo $(($(df -Pk "$1" | awk 'NR == 2 { print $4 }') / 1024))
	fi
}

cache_dir=$(existing "$MZ_CACHE")
tmp_dir=$(existing "$tmp")
held=0
[ ! -d "$MZ_CACHE" ] || held=$(($(du -sk "$MZ_CACHE" 2>/dev/null | cut -f1) / 1024))
cache_need=$((MZ_CHECK_CACHE_MIB - held))
[ "$cache_need" -ge 1024 ] || cache_need=1024

# need WHAT DIR MIB: fail unless DIR's file system has MIB free.
bad=0
need() {
	local free
	free=$(free_mib "$2")
	if [ "$free" -lt "$3" ]; then
		printf '%s: error: %s: %s MiB free, make check needs about %s MiB there\n' \
			"${0##*/}" "$1" "$free" "$3" >&2
		bad=1
	else
		info "$1: $free MiB free, make check needs about $3 MiB there"
	fi
}
if [ "$(stat -c %d "$cache_dir")" = "$(stat -c %d "$tmp_dir")" ]; then
	need "MZ_CACHE ($MZ_CACHE, $held MiB held) and TMPDIR ($tmp), one file system" \
		"$cache_dir" $((cache_need + MZ_CHECK_TMP_MIB))
else
	need "MZ_CACHE ($MZ_CACHE, $held MiB held)" "$cache_dir" "$cache_need"
	need "TMPDIR ($tmp)" "$tmp_dir" "$MZ_CHECK_TMP_MIB"
fi
[ "$bad" = 0 ] ||
	die "not enough free space, so nothing was run: free some (old copies of MZ_CACHE, e.g. earlier fresh-clone runs' HOME, are the usual culprits), or point MZ_CACHE or TMPDIR at a larger file system"
