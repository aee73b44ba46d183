#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# store-probe.sh [ARGS...]: build and run the user-space store-pattern probe.
#
# harness/bench/probe/store-probe.c models the write pattern of the series'
# memmap_init_zone_device() (a 64-byte template struct page copied to every
# 64-byte slot, cached movq vs MOVNTI, cold vs warm destination, memset and
# non-temporal fill as the ceiling).  It is not a measurement of the kernel.
#
# The copy cases run the kernel's own per-page copy: kernel-fill.sh extracts it
# from the mirror (mm/mm_init.c, arch/x86/include/asm/string_64.h) into
# $MZ_PROBE_FILES/ at every run, and the binary is rebuilt with gcc
# whenever the probe's source or the extracted loop is newer than it; all ARGS go to the probe unchanged (--size, --repeat,
# --evict, --json FILE, --help).
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

src=$MZ_ROOT/harness/bench/probe/store-probe.c
outdir=$MZ_PROBE_FILES
bin=$outdir/store-probe

[ -f "$src" ] || die "probe source missing: $src"
mkdir -p "$outdir"
"$MZ_ROOT/harness/bench/kernel-fill.sh" "$MZ_ROOT" "$outdir"
stale=0
for f in "$src" "$outdir/kernel-fill.h" "$outdir/kernel-fill-x86.h"; do
	[ "$f" -nt "$bin" ] && stale=1
done
if [ ! -x "$bin" ] || [ "$stale" = 1 ]; then
	need_tool gcc gcc
	info "building $bin"
	# Build to a temporary name so an interrupted build never leaves a
	# half-written binary that looks up to date.
	: >"$outdir/build.log"
	mz_run "$outdir/build.log" gcc -std=gnu11 -O2 -Wall -Wextra -I "$outdir" -o "$bin.tmp" "$src" ||
		{ cat "$outdir/build.log" >&2; die "gcc failed to build $src"; }
	mv -f "$bin.tmp" "$bin"
fi

exec "$bin" "$@"
