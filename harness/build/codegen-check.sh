#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# codegen-check.sh: check what the template copies of mm/mm_init.c compile to.
#
#   codegen-check.sh OBJECT      (check-series.sh codegen runs it)
#
# OBJECT is mm/mm_init.o of a build of the streaming variant, x86-64.  In
# zone_device_memmap_init_range() (the heads, on every thread's chunk) and
# memmap_init_compound() (the tails):
#
#  - the streaming copy is inline MOVNTI, at least one struct page's
#    worth (8 stores), not a call to __memcpy_flushcache(), which redoes
#    length and alignment per page;
#  - the plain copy is no string instruction (rep movs/stos): GCC makes
#    one of a memcpy() of a struct page at -Os, whose startup costs as
#    much as the slow path for one page;
#  - the streaming stores are drained: at least 2 SFENCE in the range
#    function (before compound setup, at the end of the chunk), 1 in
#    memmap_init_compound() (before prep_compound_head()).
#
# Prints one line per function and fails naming what is missing.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 1 1 "OBJECT (mm/mm_init.o of a $MZ_STREAM_VARIANT build)" "$@"
obj=${MZ_OPERANDS[0]}
[ -f "$obj" ] || die "$obj: no such object"
need_tool objdump binutils

bad=0
# function:minimum SFENCEs
for f in zone_device_memmap_init_range:2 memmap_init_compound:1; do
	fn=${f%%:*} want=${f##*:}
	body=$(objdump -dr --no-show-raw-insn "$obj" |
		awk -v f="<$fn>:" '$2 == f { on = 1; next } on && /^$/ { on = 0 } on')
	if [ -z "$body" ]; then
		warn "$fn: not in $obj"
		bad=1
		continue
	fi
	fences=$(grep -c 'sfence' <<<"$body" || true)
	movnti=$(grep -c 'movnti' <<<"$body" || true)
	strings=$(grep -cE 'rep[a-z]* +(movs|stos)' <<<"$body" || true)
	calls=$(grep -c "__memcpy_flushcache" <<<"$body" || true)
	info "$fn: $movnti MOVNTI, $fences SFENCE, $strings string instructions, $calls calls of __memcpy_flushcache()"
	[ "$movnti" -ge 8 ] || { warn "$fn: $movnti MOVNTI, want at least 8 (one struct page, inline)"; bad=1; }
	[ "$calls" -eq 0 ] || { warn "$fn: calls __memcpy_flushcache() (not the fixed-size inline path)"; bad=1; }
	[ "$strings" -eq 0 ] || { warn "$fn: has a rep movs/stos (the plain copy became a string instruction)"; bad=1; }
	[ "$fences" -ge "$want" ] || { warn "$fn: $fences SFENCE, want at least $want (the streaming drains)"; bad=1; }
done
[ "$bad" -eq 0 ] || die "the template copies in $obj do not compile to what the series promises (above)"
info "the template copies compile to what the series promises"
