#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# hmm-compare.sh: the upstream hmm-tests on the base (7.3.4 with the
# fixes of patches/fixes/) and on the series, in the same guest, with
# device-coherent memory: the cases that pass on base must pass on the
# series.
#
#   hmm-compare.sh [--variant VARIANT] [--timeout S] [--logs DIR] [--summary FILE]
#   hmm-compare.sh --compare DIR [--summary FILE]
#
# Builds the base and the series with the same configuration (variant
# stream-y unless --variant: build-kernel.sh --base VARIANT and VARIANT,
# one build at a time; the series' own options are all the base lacks,
# so a debug variant compares two debug kernels), the series' hmm-tests
# (build-selftests.sh: the same binary on both kernels), then boots each
# kernel in the matrix's guest (2 vCPUs, vm.sh with lib.sh's
# MZ_ZONE_DEVICES: 512 MiB of reserved memory for test_hmm's two
# device-coherent devices) and runs guest/tests/hmm-tests coherent:
# test_hmm as that kernel has it, so that base's, which has no
# memmap_streaming parameter, runs the same cases.  Prints both totals and
# every case whose result differs, and the kernel's warnings by source
# file and function (upstream test_hmm makes memremap_pages() warn when a
# coherent device runs out of its one chunk).  Fails when a case that
# passes on base does not pass on the series, when the series warns in a
# function base does not, or when
# either run printed no totals.  The summary (JSON): per kernel the
# totals, the failed cases, the skipped ones each with the reason
# hmm-tests gave ("# SKIP REASON"), and the warning sites.  --compare
# DIR only compares the runs whose output (base.out, series.out) and
# console logs (base.log, series.log) DIR holds.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

compare_only=0
variant=$MZ_STREAM_VARIANT
timeout=900
logs=$MZ_LOGS/hmm-compare
summary=$MZ_RESULTS/hmm-compare.json
while [ $# -gt 0 ]; do
	case "$1" in
	--variant|--timeout|--logs|--summary|--compare)
		mz_need_value "$1" $#
		case "$1" in
		--compare) logs=$2 compare_only=1 ;;
		--variant) variant=$2 ;;
		--timeout) timeout=$2 ;;
		--logs) logs=$2 ;;
		--summary) summary=$2 ;;
		esac
		shift 2 ;;
	-h|--help) mz_help ;;
	*) mz_arg_error "unknown option '$1'" ;;
	esac
done
[ -f "$MZ_ROOT/Kconfig.fragments/$variant.config" ] ||
	mz_arg_error "--variant '$variant': want a variant of Kconfig.fragments/"
mz_form --timeout "$timeout" '^[1-9][0-9]*$' 'seconds, 1 or more'
need_tool jq jq
H=$MZ_ROOT/harness
mkdir -p "$logs" "$(dirname "$summary")"

if [ "$compare_only" = 0 ]; then
	base=$("$H/build/build-kernel.sh" --base "$variant") ||
		die "building the base ($variant: 7.3.4 with patches/fixes/) failed"
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
