#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # mz_opt and mz_flag set the options' variables
# hmm-compare.sh: upstream's hmm-tests on the base and on the series, with device-coherent memory.
#
#   hmm-compare.sh [options]                 (make check-hmm-base)
#   hmm-compare.sh --compare DIR [--summary FILE]
#
# Builds the base and the series with one variant's configuration, and
# the series' hmm-tests, boots each kernel in the matrix's guest and runs
# guest/tests/hmm-tests coherent.  Fails when a case that passes on the
# base does not pass on the series, when the series warns in a function
# the base does not, or when a run printed no totals.  The summary has
# per kernel the totals, the failed and skipped cases (with hmm-tests'
# reason) and the warning sites.  docs/matrix.md says more.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_opt --variant variant "$MZ_STREAM_VARIANT" VARIANT '^[A-Za-z0-9_-]+$' \
	'the Kconfig.fragments variant both kernels are built with (build-kernel.sh --base VARIANT and VARIANT)'
mz_opt --timeout timeout 900 SECONDS '^[1-9][0-9]*$' "a guest's limit"
mz_opt --logs logs "$MZ_LOGS/hmm-compare" DIR . "the runs' outputs (NAME.out) and consoles (NAME.log)"
mz_opt --summary summary "$MZ_RESULTS/hmm-compare.json" FILE '^.*[^/]$' 'the JSON summary'
mz_opt --compare compare '' DIR . 'build and boot nothing: compare the runs DIR holds (base.out, series.out, base.log, series.log)'
mz_parse "$@"
[ ${#MZ_OPERANDS[@]} -eq 0 ] || mz_arg_error "unexpected argument '${MZ_OPERANDS[0]}'"
compare_only=0
[ -z "$compare" ] || logs=$compare compare_only=1
[ -f "$MZ_ROOT/Kconfig.fragments/$variant.config" ] ||
	mz_arg_error "--variant '$variant': want a variant of Kconfig.fragments/"
need_tool jq jq
H=$MZ_ROOT/harness
mkdir -p "$logs" "$(dirname "$summary")"

if [ "$compare_only" = 0 ]; then
	base=$("$H/build/build-kernel.sh" --base "$variant") ||
		die "building the base ($variant: $MZ_BASE_VERSION with patches/fixes/) failed"
	series=$("$H/build/build-kernel.sh" "$variant") || die "building the series ($variant) failed"
	st=$MZ_SELFTESTS/$variant
	"$H/build/build-selftests.sh" "$series" "$st" >/dev/null || die "building the selftests failed"
	[ -x "$st/mm/hmm-tests" ] || die "no hmm-tests in $st/mm (see build-selftests.sh's log)"

	# run NAME BUILD: boot BUILD and run hmm-tests coherent; NAME.out holds its
	# output, NAME.log the console.
	run() {
		local name=$1 build=$2 initrd=$MZ_INITRAMFS/hmm-compare-$1.cpio.gz rc=0
		"$H/vm/initramfs.sh" --add "$st:/mz/kselftest" "$build" "$initrd" >/dev/null ||
			die "making the initramfs for $name failed"
		MZ_VM_DIR=$MZ_VM_FILES/hmm-compare "$H/vm/vm.sh" --timeout "$timeout" --smp 2 \
			"${MZ_ZONE_DEVICES[@]}" --log "$logs/$name.log" "$build" "$initrd" -- hmm-tests coherent \
			>"$logs/$name.out" 2>"$logs/$name.err" || rc=$?
		info "$name: $(grep '^totals: ' "$logs/$name.out" || echo "no totals (vm.sh exit $rc, see $logs/$name.err)")"
	}
	run base "$base"
	run series "$series"
else
	for f in base.out series.out base.log series.log; do
		[ -f "$logs/$f" ] || die "--compare $logs: no $f in it"
	done
fi

# results NAME STATUS: the cases with that result.
results() {
	sed -n "s/^result: $2 //p" "$logs/$1.out" | sed 's/ # .*//' | sort
}
# skips NAME: the skipped cases, "CASE<TAB>REASON", the reason hmm-tests
# gave, which the guest test puts after " # " ("result: skip CASE # WHY"),
# empty when it gave none.
skips() {
	sed -n 's/^result: skip //p' "$logs/$1.out" | sort |
		awk '{ i = index($0, " # "); if (i) print substr($0, 1, i - 1) "\t" substr($0, i + 3); else print $0 "\t" }'
}
# warnings NAME: the kernel's warnings, by source file and function (the
# series moves line numbers), with their counts.
warnings() {
	tr -d '\r' <"$logs/$1.log" |
		sed -n 's/^\[ *[0-9.]*\] WARNING: \([^ :]*\):[0-9]* at \([^+ ]*\).*/\1:\2()/p' |
		sort | uniq -c | awk '{ print $2 " (" $1 "x)" }'
}

bad=0
for n in base series; do
	grep -q '^totals: ' "$logs/$n.out" || { warn "$n: hmm-tests printed no totals"; bad=1; }
done
lost=$(comm -23 <(results base pass) <(results series pass))
gained=$(comm -13 <(results base pass) <(results series pass))
printf '%-8s %s\n' base "$(sed -n 's/^totals: //p' "$logs/base.out")" \
	series "$(sed -n 's/^totals: //p' "$logs/series.out")"
for n in base series; do
	echo "$n: failed: $(results "$n" fail | tr '\n' ' ')"
	echo "$n: skipped, by hmm-tests' reason:"
	skips "$n" | awk -F '\t' '{ r = ($2 == "" ? "(no reason given)" : $2); n[r]++; c[r] = c[r] " " $1 }
		END { for (r in n) printf "  %s (%d):%s\n", r, n[r], c[r] }' | sort
	echo "$n: warnings: $(warnings "$n" | tr '\n' ' ')"
done
if [ -n "$lost" ]; then
	echo "pass on base, not on the series: $(tr '\n' ' ' <<<"$lost")"
	bad=1
fi
[ -z "$gained" ] || echo "pass on the series, not on base: $(tr '\n' ' ' <<<"$gained")"
newwarn=$(comm -13 <(warnings base | sed 's/ (.*//' | sort) <(warnings series | sed 's/ (.*//' | sort))
if [ -n "$newwarn" ]; then
	echo "warnings on the series only: $(tr '\n' ' ' <<<"$newwarn")"
	bad=1
fi

json() {
	jq -n --arg totals "$(sed -n 's/^totals: //p' "$logs/$1.out")" \
		--arg fail "$(results "$1" fail)" --arg skip "$(skips "$1")" \
		--arg warn "$(warnings "$1")" \
		'{totals: $totals, failed: ($fail | split("\n") | map(select(. != ""))),
		  skipped: ($skip | split("\n") | map(select(. != "") | split("\t")
			| {case: .[0], reason: (.[1] // "")})),
		  warnings: ($warn | split("\n") | map(select(. != "")))}'
}
jq -n --argjson b "$(json base)" --argjson s "$(json series)" --arg v "$variant" \
	'{variant: $v, base: $b, series: $s}' >"$summary"
info "summary: $summary; logs: $logs"
[ "$bad" = 0 ] || die "the series differs from the base (above)"
info "the series passes every hmm-tests case the base passes"
