#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of the template fill loop's checks (Debian's bats):
#
#   bats tests/bats/codegen.bats
#
# codegen-loops.py on canned objdump output (tests/bats/fixtures/codegen/
# good.s, the fill function as GCC 12 compiles it for the guest kernel,
# and variants of it made here, each with one defect), kernel-fill.sh on
# the mirror and on broken copies of it, and the store probe built with
# the extracted loop (gcc), whose loops must have the kernel's shape.  A
# few seconds; nothing boots.

# shellcheck disable=SC2154 # $stderr is set by run --separate-stderr
# shellcheck disable=SC2016 # the sed scripts hold assembly, not expansions
bats_require_minimum_version 1.5.0

setup_file() {
	export ROOT H FIX
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	H=$ROOT/harness
	FIX=$BATS_TEST_DIRNAME/fixtures/codegen
}

setup() {
	export MZ_CACHE=$BATS_TEST_TMPDIR/cache
	export MZ_LOGS=$MZ_CACHE/logs
	T=$BATS_TEST_TMPDIR
}

# loops FILE ARGS...: codegen-loops.py on canned output FILE.
loops() {
	local f=$1
	shift
	"$H/codegen-loops.py" --asm "$f" obj.o "$@"
}

# variant NAME SED-SCRIPT: good.s changed by SED-SCRIPT, as $T/NAME.s.
variant() {
	sed "$2" "$FIX/good.s" >"$T/$1.s"
	! cmp -s "$FIX/good.s" "$T/$1.s"
}

@test "codegen-loops.py: the kernel's fill loops pass, plain and MOVNTI" {
	run -0 loops "$FIX/good.s" zone_device_page_fill caller:none
	[[ "$output" == *"ok   plain fill loop at zone_device_page_fill+0x35: 11 instructions, 8 stores"* ]]
	[[ "$output" == *"ok   streaming fill loop at zone_device_page_fill+0x66: 11 instructions, 8 stores"* ]]
	[[ "$output" == *"ok   caller: no MOVNTI"* ]]
	run -0 loops "$FIX/good.s" zone_device_page_fill:plain
	run -0 loops "$FIX/good.s" zone_device_page_fill:streaming
}

@test "codegen-loops.py: the template reloaded per page fails" {
	variant reload 's/^ 465:\tmov    %rcx,(%rax)$/ 465:\tmov    0x0(%rsp),%rcx\n 466:\tmov    %rcx,(%rax)/'
	run -1 loops "$T/reload.s" zone_device_page_fill
	[[ "$output" == *"FAIL plain fill loop at zone_device_page_fill+0x35: 12 instructions, 8 stores: 1 load(s)"* ]]
	[[ "$output" == *"FAIL zone_device_page_fill: no clean plain fill loop"* ]]
	# The streaming loop is still fine, but any unclean loop fails.
	[[ "$output" == *"ok   streaming fill loop at zone_device_page_fill+0x66"* ]]
	run -1 loops "$T/reload.s" zone_device_page_fill:streaming
}

@test "codegen-loops.py: a per-page test, a call or a missing word store fails" {
	variant test 's/^ 4bd:\tadd    \$0x40,%rax$/ 4bb:\ttest   $0x7,%al\n 4bc:\tjne    4c7 <zone_device_page_fill+0x97>\n&/'
	run -1 loops "$T/test.s" zone_device_page_fill
	[[ "$output" == *"FAIL streaming fill loop"*"2 jumps, not the loop's one"* ]]
	variant call 's/^ 488:\tsub    \$0x1,%rdx$/ 486:\tcall   500 <__memcpy>\n&/'
	run -1 loops "$T/call.s" zone_device_page_fill
	[[ "$output" == *"FAIL plain fill loop"*"a call"* ]]
	variant seven '/^ 46c:/d'
	run -1 loops "$T/seven.s" zone_device_page_fill
	[[ "$output" == *"FAIL zone_device_page_fill: no clean plain fill loop of 8 word stores"* ]]
	run -0 loops "$T/seven.s" zone_device_page_fill:streaming
}

@test "codegen-loops.py: a caller with a copy of its own fails" {
	variant callernt 's/^ 4d3:\tmov    %rcx,(%rdi)$/ 4d3:\tmovnti %rcx,(%rdi)/'
	run -1 loops "$T/callernt.s" zone_device_page_fill caller:none
	[[ "$output" == *"FAIL caller: 1 MOVNTI, 0 string or memcpy() copies of its own"* ]]
	variant callerrep 's/^ 4d3:\tmov    %rcx,(%rdi)$/ 4d3:\trep movsq %ds:(%rsi),%es:(%rdi)/'
	run -1 loops "$T/callerrep.s" caller:none
	[[ "$output" == *"FAIL caller: 0 MOVNTI, 1 string or memcpy() copies of its own"* ]]
}

@test "codegen-loops.py: a function the object lacks fails; bad usage exits 2" {
	run -1 --separate-stderr loops "$FIX/good.s" zone_device_page_fill no_such_function
	[[ "$stderr" == *"FAIL no_such_function: not in the object"* ]]
	run -2 --separate-stderr loops "$FIX/good.s"
	[[ "$stderr" == *"an object and at least one function are needed"* ]]
	run -2 --separate-stderr loops "$FIX/good.s" zone_device_page_fill:fast
	[[ "$stderr" == *"KIND is plain, streaming or none"* ]]
	run -2 --separate-stderr loops "$FIX/good.s" --words 0 zone_device_page_fill
	run -2 --separate-stderr "$H/codegen-loops.py" --asm "$T/none.s" obj.o f
	[[ "$stderr" == *"cannot read $T/none.s"* ]]
}

@test "kernel-fill.sh: the probe's headers hold the kernel's functions verbatim" {
	run -0 "$H/kernel-fill.sh" "$ROOT" "$T"
	# Every line of each extracted function is the mirror's, in order.
	awk '/^static noinline void zone_device_page_fill\(/ { on = 1 } on { print } on && /^}/ { exit }' \
		"$ROOT/mm/mm_init.c" >"$T/want"
	[ "$(wc -l <"$T/want")" -gt 10 ]
	grep -qF -f "$T/want" "$T/kernel-fill.h"
	diff <(sed -n '/^static noinline void zone_device_page_fill(/,/^}/p' "$T/kernel-fill.h") "$T/want"
	for f in movnti_8 movnti_16 movnti_32 movnti_64; do
		grep -q "^static __always_inline void $f(" "$T/kernel-fill-x86.h"
	done
	grep -q 'movntiq' "$T/kernel-fill-x86.h"
}

@test "kernel-fill.sh: a missing or doubled function is an error and leaves no header" {
	mkdir -p "$T/src/mm" "$T/src/arch/x86/include/asm" "$T/out"
	cp "$ROOT/arch/x86/include/asm/string_64.h" "$T/src/arch/x86/include/asm/"
	sed 's/zone_device_page_fill(/zone_device_page_copy(/' "$ROOT/mm/mm_init.c" >"$T/src/mm/mm_init.c"
	run -1 --separate-stderr "$H/kernel-fill.sh" "$T/src" "$T/out"
	[[ "$stderr" == *"has 0 definitions of zone_device_page_fill(), want 1"* ]]
	[ ! -e "$T/out/kernel-fill.h" ]
	[ -z "$(find "$T/out" -name 'kernel-fill.h.*')" ]
	{ cat "$ROOT/mm/mm_init.c"; sed -n '/^static noinline void zone_device_page_fill(/,/^}/p' "$ROOT/mm/mm_init.c"; } \
		>"$T/src/mm/mm_init.c"
	run -1 --separate-stderr "$H/kernel-fill.sh" "$T/src" "$T/out"
	[[ "$stderr" == *"has 2 definitions of zone_device_page_fill()"* ]]
	run -2 "$H/kernel-fill.sh" "$T/src"
}

@test "store probe: built from the kernel's loop, with the kernel's loop shape" {
	command -v gcc >/dev/null || skip "no gcc (make deps installs it)"
	[ "$(uname -m)" = x86_64 ] || skip "the MOVNTI loop is x86-64's"
	run -0 "$H/store-probe.sh" --size 64M --repeat 1
	[[ "$output" == *"copy, cached 8x movq"* ]]
	[ -x "$MZ_CACHE/probe/store-probe" ]
	run -0 "$H/codegen-loops.py" "$MZ_CACHE/probe/store-probe" zone_device_page_fill
	# The probe follows the mirror: a changed loop rebuilds it.
	cmp -s <(sed -n '/^static noinline void zone_device_page_fill(/,/^}/p' "$MZ_CACHE/probe/kernel-fill.h") \
		<(sed -n '/^static noinline void zone_device_page_fill(/,/^}/p' "$ROOT/mm/mm_init.c")
}
