#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-ndctl.sh [options]: the libnvdimm maintainers' own regression suite,
# ndctl's tests, on the base (7.3.4 with patches/fixes/) and on the
# series, side by side (make check-ndctl).
#
#   --runs R,R        which runs (default base,off,on):
#                       base  7.3.4 with the fixes of patches/fixes/
#                       off   the series, memmap_streaming=off
#                       on    the series, memmap_streaming=on
#   --suites S,S      meson suites (default ndctl:ndctl,ndctl:dax,ndctl:cxl)
#   --only A+B        only the tests named A and B
#   --multiplier N    meson's --timeout-multiplier in the guest (default:
#                     3 under TCG, 1 under KVM)
#   --timeout S       a guest's whole run (default 5400)
#   --expect FILE     the expected results on base (default
#                     harness/peers/ndctl-expect.txt)
#   --summary FILE    JSON results (default $MZ_RESULTS/ndctl-suite.json)
#   --logs DIR        guest console logs and outputs (default $MZ_LOGS/ndctl-suite)
#   --series-build DIR  the series runs boot this finished nfit build
#                     instead of building one (a mutated kernel, to see the
#                     comparison fail); nfit_test is built into it
#
# What it builds (each step reuses what is current):
#   - the "nfit" kernel variant (Kconfig.fragments/nfit.config: libnvdimm
#     and the dax drivers as modules, as tools/testing/nvdimm's
#     config_check.c demands) for the base tree and for the series
#     (build-kernel.sh [--base] nfit), and nfit_test and cxl_test from the
#     same tree's tools/testing/nvdimm and tools/testing/cxl
#     (build-nfit-test.sh);
#   - ndctl 81 with patches/ndctl/ and its tests, -Dtest=enabled
#     -Ddestructive=enabled -Dkeyutils=enabled (build-ndctl.sh --tests;
#     the suite is ndctl 81's with the fixes that patches/ndctl/ starts
#     with (test/pmem-ns, cxl enable-port -m), which base and series runs
#     share);
#   - an initramfs per kernel with that build at its own path, the test
#     plan ('meson introspect --tests'), the tools the tests use (jq, fio,
#     mkfs.xfs, parted, dmsetup, keyctl, trace-cmd, ...: the host's, from
#     harness/deps.sh), ndctl's contrib/nfit_test_depmod.conf and the
#     like lines for cxl_test's CXL drivers.
#
# Each run boots a guest (guest/tests/ndctl-suite) for the ndctl and dax
# suites, laid out as the maintainers' run_qemu lays it out, smaller:
# two 8 GiB NVDIMMs with 2 MiB
# label areas, 1 GiB-aligned (ACPI.NFIT, for the destructive tests: the
# binds that reach memmap_init_zone_device()), 12 GiB of RAM of which
# memmap=3G!6G,1G!9G makes two legacy e820 pmem regions (the DAX tests),
# and nfit_test's emulated buses; and one for the tests that load
# cxl_test (the cxl suite, daxctl-create.sh: see "The guests" below), the CXL topology emulated in the kernel (mocked ACPI
# CEDT and mailboxes over the guest's RAM: no QEMU CXL device), with 4 GiB
# of RAM in vm.sh --numa's nodes (cxl_test puts its memdevs on nodes 0
# and 1).  The two guests' outputs make the run's.  The destructive tests
# destroy the guests' NVDIMMs only: they are files this script gives each
# guest (vm.sh), nothing of the host's.
#
# Fails when a guest did not finish the suite; then ndctl-compare.sh prints
# the table test x run and fails on any difference from the base (and
# base's from --expect: a test failing or skipping on base is listed there
# with its reason).
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

H=$MZ_ROOT/harness
runs=base,off,on
suites=ndctl:ndctl,ndctl:dax,ndctl:cxl
only=
mult=
timeout=5400
expect=$H/peers/ndctl-expect.txt
summary=$MZ_RESULTS/ndctl-suite.json
logs=$MZ_LOGS/ndctl-suite
series_build=
while [ $# -gt 0 ]; do
	case "$1" in
	--runs|--suites|--only|--multiplier|--timeout|--expect|--summary|--logs|--series-build)
		mz_need_value "$1" $#
		case "$1" in
		--runs) runs=$2 ;;
		--suites) suites=$2 ;;
		--only) only=$2 ;;
		--multiplier) mult=$2 ;;
		--timeout) timeout=$2 ;;
		--expect) expect=$2 ;;
		--summary) summary=$2 ;;
		--logs) logs=$2 ;;
		--series-build) series_build=$2 ;;
		esac
		shift 2 ;;
	-h|--help) mz_help ;;
	*) mz_arg_error "unknown option '$1'" ;;
	esac
done
IFS=, read -r -a runlist <<<"$runs"
[ ${#runlist[@]} -gt 0 ] || mz_arg_error "--runs '': want base, off or on, comma-separated"
for r in "${runlist[@]}"; do
	mz_form --runs "$r" '^(base|off|on)$' 'base, off or on, comma-separated'
done
mz_form --suites "$suites" '^[a-z]+:[a-z]+(,[a-z]+:[a-z]+)*$' 'S,S like ndctl:ndctl,ndctl:dax'
[ -z "$only" ] || mz_form --only "$only" '^[A-Za-z0-9_.-]+(\+[A-Za-z0-9_.-]+)*$' 'test names joined by +'
[ -z "$mult" ] || mz_form --multiplier "$mult" '^[1-9][0-9]*$' 'a number, 1 or more'
mz_form --timeout "$timeout" '^[1-9][0-9]*$' 'seconds, 1 or more'
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
