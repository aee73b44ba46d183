#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # mz_opt sets the options' variables
# store-probe.sh: build and run the user-space store-pattern probe on this CPU.
#
#   store-probe.sh [options]      (make probe PROBE_ARGS='...'; bench.sh runs it)
#
# harness/bench/probe/store-probe.c models the write pattern of the series'
# memmap_init_zone_device() (a 64-byte template struct page copied to every
# 64-byte slot, cached movq vs MOVNTI, cold vs warm destination, memset and
# non-temporal fill as the ceiling).  It is not a measurement of the kernel.
#
# The copy cases run the kernel's own per-page copy: kernel-fill.sh extracts
# it from the mirror (mm/mm_init.c, arch/x86/include/asm/string_64.h) into
# $MZ_PROBE_FILES/ at every run, and the binary is rebuilt with gcc whenever
# the probe's source or the extracted copy is newer than it.  The options
# go to the probe, which prints its results on stdout.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

size_re='^[1-9][0-9]*([KMGkmg](iB|B)?)?$'
mz_opt --size size '' SIZE "$size_re" \
	"the destination buffer: bytes, K, M or G, a multiple of 64 bytes, at most 75% of MemAvailable (default: the probe's)"
mz_opt --repeat repeat '' N '^[1-9][0-9]*$' \
	"timed runs per case, at most store-probe.c's MAX_REPEAT (default: the probe's)"
mz_opt --evict evict '' SIZE "$size_re" \
	"the cold cases' eviction buffer, as --size (default: twice the last-level cache, within limits)"
mz_opt --json json '' FILE . 'also write the results as a JSON object to FILE'
mz_parse "$@"
[ ${#MZ_OPERANDS[@]} -eq 0 ] || mz_arg_error "unexpected argument '${MZ_OPERANDS[0]}'"
args=()
for o in size repeat evict json; do
	[ -z "${!o}" ] || args+=("--$o" "${!o}")
done

src=$MZ_ROOT/harness/bench/probe/store-probe.c
outdir=$MZ_PROBE_FILES
bin=$outdir/store-probe

[ -f "$src" ] || die "probe source missing: $src"
if [ -n "$repeat" ]; then
	max=$(sed -n 's/^#define MAX_REPEAT \([0-9]*\)$/\1/p' "$src")
	[ -n "$max" ] || die "$src defines no MAX_REPEAT"
	if [ ${#repeat} -gt ${#max} ] || [ "$repeat" -gt "$max" ]; then
		mz_arg_error "--repeat '$repeat': want N from 1 to $max (store-probe.c's MAX_REPEAT)"
	fi
fi
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

exec "$bin" ${args[@]+"${args[@]}"}
