#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of the template copy's checks (Debian's bats):
#
#   bats tests/bats/codegen.bats
#
# codegen-check.sh on small objects gcc builds here (the two functions it
# reads, right and with one defect each), kernel-fill.sh on the mirror and
# on broken copies of it, and the store probe built with the extracted
# copy (gcc).  A few seconds; nothing boots.

# shellcheck disable=SC2154 # $stderr is set by run --separate-stderr
# shellcheck disable=SC2016 # the sed scripts hold assembly, not expansions
bats_require_minimum_version 1.5.0
load common

setup() {
	mz_test_dirs
}

# object NAME RANGE-BODY COMPOUND-BODY: $T/NAME.o, whose two functions
# are the asm of RANGE-BODY and COMPOUND-BODY.
object() {
	command -v gcc >/dev/null || skip "no gcc (make deps installs it)"
	[ "$(uname -m)" = x86_64 ] || skip "the MOVNTI checks read x86-64 code"
	cat >"$T/$1.c" <<-EOF
	void __memcpy_flushcache(void);
	void zone_device_memmap_init_range(void) { asm volatile($2 ::: "memory"); }
	void memmap_init_compound(void) { asm volatile($3 ::: "memory"); }
	EOF
	gcc -O2 -c -o "$T/$1.o" "$T/$1.c"
}

# The streaming copy of one struct page: eight MOVNTI.
NT='"movnti %%rax,(%%rdi); movnti %%rax,8(%%rdi); movnti %%rax,16(%%rdi); movnti %%rax,24(%%rdi);"
	"movnti %%rax,32(%%rdi); movnti %%rax,40(%%rdi); movnti %%rax,48(%%rdi); movnti %%rax,56(%%rdi);"'

@test "codegen-check.sh: inline MOVNTI and the drains pass" {
	object good "$NT \"sfence; sfence\"" "$NT \"sfence\""
	run -0 --separate-stderr "$H/build/codegen-check.sh" "$T/good.o"
	[[ "$stderr" == *"zone_device_memmap_init_range: 8 MOVNTI, 2 SFENCE, 0 string instructions"* ]]
	[[ "$stderr" == *"memmap_init_compound: 8 MOVNTI, 1 SFENCE"* ]]
}

@test "codegen-check.sh: a missing drain, a string instruction, a call or no MOVNTI fails" {
	object nodrain "$NT \"sfence\"" "$NT \"sfence\""
	run -1 --separate-stderr "$H/build/codegen-check.sh" "$T/nodrain.o"
	[[ "$stderr" == *"zone_device_memmap_init_range: 1 SFENCE, want at least 2"* ]]
	object rep "$NT \"rep movsq; sfence; sfence\"" "$NT \"sfence\""
	run -1 --separate-stderr "$H/build/codegen-check.sh" "$T/rep.o"
	[[ "$stderr" == *"has a rep movs/stos"* ]]
	object call "$NT \"call __memcpy_flushcache; sfence; sfence\"" "$NT \"sfence\""
	run -1 --separate-stderr "$H/build/codegen-check.sh" "$T/call.o"
	[[ "$stderr" == *"calls __memcpy_flushcache()"* ]]
	object cached "\"sfence; sfence\"" "$NT \"sfence\""
	run -1 --separate-stderr "$H/build/codegen-check.sh" "$T/cached.o"
	[[ "$stderr" == *"0 MOVNTI, want at least 8"* ]]
}

@test "codegen-check.sh: a function the object lacks fails; bad usage exits 2" {
	command -v gcc >/dev/null || skip "no gcc (make deps installs it)"
	echo 'void zone_device_memmap_init_range(void) { }' >"$T/one.c"
	gcc -O2 -c -o "$T/one.o" "$T/one.c"
	run -1 --separate-stderr "$H/build/codegen-check.sh" "$T/one.o"
	[[ "$stderr" == *"memmap_init_compound: not in"* ]]
	run -2 "$H/build/codegen-check.sh"
	[[ "$output" == "codegen-check.sh: error: want OBJECT (mm/mm_init.o of a "*" build), not 0 argument(s) (see --help)" ]]
	run -1 "$H/build/codegen-check.sh" "$T/missing.o"
}

FILL_FNS=(memmap_page_copy zone_device_page_init_from_template)

# fn_text FILE FN: FN's definition in FILE, its "static ... void" line
# included when the name starts the next line.
fn_text() {
	awk -v fn="$2" '
		$0 ~ "^static ([a-z_]+ )*void " fn "\\(" { on = 1 }
		$0 ~ "^" fn "\\(" && prev ~ /^static / { on = 1; print prev }
		on { print } on && /^}/ { exit } { prev = $0 }' "$1"
}

@test "kernel-fill.sh: the probe's headers hold the kernel's functions verbatim" {
	run -0 "$H/bench/kernel-fill.sh" "$ROOT" "$T"
	for f in "${FILL_FNS[@]}"; do
		fn_text "$ROOT/mm/mm_init.c" "$f" >"$T/want"
		[ "$(wc -l <"$T/want")" -gt 4 ]
		diff <(fn_text "$T/kernel-fill.h" "$f") "$T/want"
	done
	for f in movnti_8 movnti_16 movnti_32 movnti_64; do
		grep -q "^static __always_inline void $f(" "$T/kernel-fill-x86.h"
	done
	grep -q 'movntiq' "$T/kernel-fill-x86.h"
}

@test "kernel-fill.sh: a missing or doubled function is an error and leaves no header" {
	mkdir -p "$T/src/mm" "$T/src/arch/x86/include/asm" "$T/out"
	cp "$ROOT/arch/x86/include/asm/string_64.h" "$T/src/arch/x86/include/asm/"
	sed 's/^zone_device_page_init_from_template(/zone_device_page_init_other(/' "$ROOT/mm/mm_init.c" >"$T/src/mm/mm_init.c"
	run -1 --separate-stderr "$H/bench/kernel-fill.sh" "$T/src" "$T/out"
	[[ "$stderr" == *"has 0 definitions of zone_device_page_init_from_template(), want 1"* ]]
	[ ! -e "$T/out/kernel-fill.h" ]
	[ -z "$(find "$T/out" -name 'kernel-fill.h.*')" ]
	{ cat "$ROOT/mm/mm_init.c"; fn_text "$ROOT/mm/mm_init.c" memmap_page_copy; } >"$T/src/mm/mm_init.c"
	run -1 --separate-stderr "$H/bench/kernel-fill.sh" "$T/src" "$T/out"
	[[ "$stderr" == *"has 2 definitions of memmap_page_copy()"* ]]
	run -2 "$H/bench/kernel-fill.sh" "$T/src"
}

@test "store probe: built from the kernel's copy, MOVNTI inline" {
	command -v gcc >/dev/null || skip "no gcc (make deps installs it)"
	[ "$(uname -m)" = x86_64 ] || skip "the MOVNTI loop is x86-64's"
	run -0 "$H/bench/store-probe.sh" --size 64M --repeat 1
	[[ "$output" == *"copy, cached 8x movq"* ]]
	[ -x "$MZ_CACHE/probe/store-probe" ]
	objdump -d --no-show-raw-insn "$MZ_CACHE/probe/store-probe" |
		awk '$2 == "<copy_nt>:" { on = 1; next } on && /^$/ { exit } on' >"$T/copy_nt.s"
	[ "$(grep -c movnti "$T/copy_nt.s")" -ge 8 ]
	! grep -q 'call' "$T/copy_nt.s" || grep -q 'call.*flags_word' "$T/copy_nt.s"
	# The probe follows the mirror: a changed copy rebuilds it.
	for f in "${FILL_FNS[@]}"; do
		cmp -s <(fn_text "$MZ_CACHE/probe/kernel-fill.h" "$f") <(fn_text "$ROOT/mm/mm_init.c" "$f")
	done
}
