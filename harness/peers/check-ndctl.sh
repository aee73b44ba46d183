#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # mz_opt and mz_flag set the options' variables
# check-ndctl.sh: ndctl's own test suite on the base and on the series, side by side.
#
#   check-ndctl.sh [options]                 (make check-ndctl NDCTL_ARGS='...')
#   check-ndctl.sh --runs on --only libndctl+dax-ext4.sh
#
# Builds the nfit kernels, nfit_test and cxl_test, ndctl with its tests,
# boots a guest per run and group of tests, then ndctl-compare.sh gives
# the verdict against the base and --expect.  Fails when a guest did not
# finish the suite.  The guests, what is built and what fails the
# comparison: docs/matrix.md, "ndctl's own suite".
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

H=$MZ_ROOT/harness
mz_opt --runs runs "$MZ_NDCTL_RUNS" R,R "$(mz_list_re "$MZ_NDCTL_RUNS")" \
	'base, off or on: the base kernel, the series with memmap_streaming=off or =on'
mz_opt --suites suites ndctl:ndctl,ndctl:dax,ndctl:cxl S,S '^[a-z]+:[a-z]+(,[a-z]+:[a-z]+)*$' "meson suites of ndctl's tests"
mz_opt --only only '' A+B '^[A-Za-z0-9_.-]+(\+[A-Za-z0-9_.-]+)*$' 'only the tests of these names'
mz_opt --multiplier mult '' N '^[1-9][0-9]*$' "meson's --timeout-multiplier in the guest (default: 3 under TCG, 1 under KVM)"
mz_opt --timeout timeout 5400 SECONDS '^[1-9][0-9]*$' "a guest's whole run"
mz_opt --expect expect "$H/peers/ndctl-expect.txt" FILE . "the base's expected results (ndctl-compare.sh --expect)"
mz_opt --summary summary "$MZ_RESULTS/ndctl-suite.json" FILE '^.*[^/]$' 'the JSON results'
mz_opt --logs logs "$MZ_LOGS/ndctl-suite" DIR . "the guests' consoles and outputs"
mz_opt --series-build series_build '' DIR . \
	'the series runs boot this finished nfit build (a mutated kernel, to see the comparison fail)'
mz_parse "$@"
[ ${#MZ_OPERANDS[@]} -eq 0 ] || mz_arg_error "unexpected argument '${MZ_OPERANDS[0]}'"
IFS=, read -r -a runlist <<<"$runs"
[ -f "$expect" ] || mz_arg_error "--expect '$expect': no such file"
if [ -n "$series_build" ] &&
	{ [ ! -f "$series_build/.mz-built" ] || [ ! -f "$series_build/arch/x86/boot/bzImage" ]; }; then
	mz_arg_error "--series-build '$series_build': want a finished build-kernel.sh build"
fi

# The tools ndctl's tests run, staged into the guest from this host.
# mktemp: the cxl tests' templates have 4 X's, busybox's takes 6 or more.
tools=(jq fio mkfs.xfs xfs_io parted dmsetup keyctl xxd trace-cmd lsblk uuidgen filefrag hexdump
	fallocate blockdev mountpoint getconf dd sort stat truncate timeout sha256sum seq mktemp)
adds=()
for t in "${tools[@]}"; do
	p=$(PATH=$PATH:/usr/sbin:/sbin command -v "$t") ||
		die "$t is missing on this host; the guests need it for ndctl's tests: run harness/deps.sh"
	adds+=(--add "$p:/usr/bin/$t")
done

start=$(date +%s)
ntests=$("$H/build/build-ndctl.sh" --tests) || die "building ndctl's tests failed"
ntree=$MZ_NDCTL_TREE
mkdir -p "$logs" "$(dirname "$summary")"
plan=$logs/tests.json
intro=$(meson introspect --tests "$ntests") || die "meson introspect --tests $ntests failed"
jq -n --arg b "$ntests" --argjson t "$intro" '{builddir: $b, tests: $t}' >"$plan"
conf=$ntree/contrib/nfit_test_depmod.conf
[ -f "$conf" ] || die "$conf missing: is $ntree an ndctl tree? (harness/series/ndctl-tree.sh apply)"
data=$(jq -r '.tests[0].env.DATA_PATH' "$plan")
[ -d "$data" ] || die "the plan's DATA_PATH $data is not a directory"
adds+=(--add "$plan:/mz/ndctl/tests.json" --add "$ntests:$ntests" --add "$data:$data")
# The names of the tests the suites hold, in the plan's order.
jsuites=$(tr , '\n' <<<"$suites" | jq -R . | jq -s .)
mapfile -t names < <(jq -r --argjson s "$jsuites" \
	'.tests[] | select(any(.suite[]; . as $x | $s | index($x))) | .name' "$plan")
if [ -n "$only" ]; then
	mapfile -t names < <(printf '%s\n' "${names[@]}" | grep -xF -f <(tr + '\n' <<<"$only") || true)
fi
[ ${#names[@]} -gt 0 ] || die "no test of the suites $suites${only:+ named $only} in $plan"
# The guests of a run: "nfit" for the tests of nfit_test, the NVDIMMs and
# the e820 regions, and "cxl" for the tests that load cxl_test (the cxl
# suite, and any other test whose script runs 'modprobe cxl_test', such
# as the dax suite's daxctl-create.sh), whose emulated memdevs sit on
# NUMA nodes 0 and 1 (set_dev_node(i % 2): a node that does not exist
# oopses in the allocator): vm.sh --numa, 4 GiB (and vm.sh's default
# NVDIMM, which those tests leave alone), the drivers of new devices
# loaded as udev would (ndctl-suite cxl_test=1).  A guest runs when one
# of its tests is selected; each is given its tests by name.
declare -A gnames=() gvm=() gapp=() garg=()
gvm[nfit]="--mem 12G --nvdimms 2 --nvdimm-size 8G --label-size 2M --nvdimm-align 1G"
gapp[nfit]="memmap=3G!6G,1G!9G"
garg[nfit]=""
gvm[cxl]="--mem 4G --numa"
gapp[cxl]=""
garg[cxl]="cxl_test=1"
for t in "${names[@]}"; do
	g=nfit
	script=$(jq -r --arg t "$t" '.tests[] | select(.name == $t) | .cmd[-1]' "$plan")
	if jq -e --arg t "$t" '.tests[] | select(.name == $t) | .suite | index("ndctl:cxl")' "$plan" >/dev/null ||
		{ [ -f "$script" ] && grep -q '^[[:space:]]*modprobe cxl_test' "$script"; }; then
		g=cxl
	fi
	gnames[$g]+="${gnames[$g]:++}$t"
done
groups=()
for g in nfit cxl; do [ -z "${gnames[$g]:-}" ] || groups+=("$g"); done

# The suites not run, with why, for the table and the summary.
: >"$logs/not-run.txt"
while read -r suite count; do
	printf '%s %s %s\n' "$suite" "$count" "not selected (--suites)" >>"$logs/not-run.txt"
done < <(jq -r --argjson s "$jsuites" '[.tests[] | select(any(.suite[]; . as $x | $s | index($x)) | not)
	| .suite[0]] | group_by(.) | .[] | "\(.[0]) \(length)"' "$plan")

declare -A build=() initrd=() accel=()
for r in "${runlist[@]}"; do
	k=series
	[ "$r" != base ] || k=base
	[ -n "${build[$k]:-}" ] && continue
	flag=()
	[ "$k" = series ] || flag=(--base)
	if [ "$k" = series ] && [ -n "$series_build" ]; then
		b=$series_build
	else
		b=$("$H/build/build-kernel.sh" ${flag[@]+"${flag[@]}"} nfit) || die "building the $k nfit kernel failed"
	fi
	"$H/build/build-nfit-test.sh" "$b" >/dev/null || die "building nfit_test and cxl_test for $b failed"
	# One depmod file: ndctl's for nfit_test, build-nfit-test.sh's for cxl_test.
	dconf=$logs/depmod-$k/nfit_test_depmod.conf
	mkdir -p "${dconf%/*}"
	cat "$conf" "$b/cxl_test/depmod.conf" >"$dconf"
	i=$MZ_INITRAMFS/ndctl-suite-${b##*/}.cpio.gz
	ksrc=$(readlink -f "$b/source")
	MZ_KSRC=$ksrc "$H/vm/initramfs.sh" --depmod-conf "$dconf" "${adds[@]}" "$b" "$i" >/dev/null ||
		die "making the $k initramfs failed"
	build[$k]=$b initrd[$k]=$i
	accel[$k]=$("$H/vm/kvm-probe.sh" --accel "$MZ_ACCEL" "$b" "$i") ||
		die "settling the accelerator for $b failed"
done

for r in "${runlist[@]}"; do
	k=series
	[ "$r" != base ] || k=base
	m=$mult
	[ -n "$m" ] || { m=1; [ "${accel[$k]}" = kvm ] || m=3; }
	# loglevel=5: the kernel's chatter (notices, info) stays off the
	# console, whose log is read for kernel reports (warnings still show);
	# the guest prints the messages of a failed test after it.
	pol=
	[ "$r" = base ] || pol=" memmap_streaming=$r"
	s=$(date +%s)
	: >"$logs/$r.out"
	: >"$logs/$r.log"
	for g in "${groups[@]}"; do
		read -r -a gargs <<<"${suites//,/ }"
		gargs+=("multiplier=$m" "only=${gnames[$g]}" ${garg[$g]:+"${garg[$g]}"})
		out=$logs/$r.$g.out log=$logs/$r.$g.log
		info "run $r, $g guest: $(tr + '\n' <<<"${gnames[$g]}" | wc -l) tests of $suites on the $k kernel (${accel[$k]}, memmap_streaming: ${r/base/none}); log: $log"
		read -r -a vmargs <<<"${gvm[$g]}"
		app="${gapp[$g]:+${gapp[$g]} }loglevel=5$pol"
		rc=0
		"$H/vm/vm.sh" --accel "${accel[$k]}" --timeout "$timeout" --smp 2 \
			"${vmargs[@]}" --append "$app" --log "$log" \
			"${build[$k]}" "${initrd[$k]}" -- ndctl-suite "${gargs[@]}" >"$out" || rc=$?
		grep -qE '^# ndctl-suite: totals:' "$out" ||
			die "run $r, $g guest: it did not finish the suite (vm.sh exit $rc); see $out and $log"
		info "run $r, $g guest: $(sed -n 's/^# ndctl-suite: totals: //p' "$out")"
		# One output and console per run, as ndctl-compare.sh reads them.
		cat "$out" >>"$logs/$r.out"
		cat "$log" >>"$logs/$r.log"
	done
	echo "$(mz_since "$s") ${accel[$k]}" >"$logs/$r.info"
	info "run $r: $(cut -d' ' -f1 "$logs/$r.info") s with the boots"
done

# NAME SUITE: each test with the first of the selected suites it is in.
declare -A suite_of=()
while read -r t su; do suite_of[$t]=$su; done < <(jq -r --argjson s "$jsuites" \
	'.tests[] | [.suite[] | . as $x | select($s | index($x))] as $m
	 | select($m | length > 0) | "\(.name) \($m[0])"' "$plan")
for t in "${names[@]}"; do printf '%s %s\n' "$t" "${suite_of[$t]:-}"; done >"$logs/names.txt"
info "$(mz_since "$start") s in all; the verdict:"
"$H/peers/ndctl-compare.sh" --runs "$runs" --names "$logs/names.txt" --expect "$expect" \
	--logs "$logs" --summary "$summary"
