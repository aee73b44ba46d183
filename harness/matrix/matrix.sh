#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# matrix.sh: run the memmap_init selftests in every combination of kernel
# variant and boot parameter, and summarize the KTAP results.
#
#   matrix.sh [--set check|debug] [--variants LIST] [--params LIST] [--full] [--jobs N]
#             [--timeout S] [--boot-timeout S] [--append TEXT]
#             [--summary FILE] [--logs DIR] [--ndctl ROOT|distro]
#             [--build DIR] [--guest-test NAME] [--add SRC:DST]
#
#   --set       the cells of harness/matrix/matrix-cells.txt to run without
#               --variants and --params: check (make check's, the
#               default) or debug (make check-debug's)
#   --variants  comma-separated Kconfig.fragments variants, each VARIANT or
#               VARIANT:C1+C2... to run it with those cells only
#               (default: the set's variants, harness/matrix/matrix-cells.txt)
#   --params    the cells (harness/matrix/matrix-cells.txt's CELL: none, off,
#               altmap, on, bogus, cxl, safe, numa, threads, distro) for the
#               variants without their own list (default: those that run
#               all or policy: none, off, altmap, on, bogus)
#   --full      every group of the target in every cell (default: see
#               "Which groups" below)
#   --jobs      guests run in parallel, one CPU each (default: nproc)
#   --timeout   per guest (default 1200 s)
#   --boot-timeout  per boot, until the test starts (vm.sh's default)
#   --append    more kernel command line for every cell (repeatable)
#   --summary   JSON summary (default $CHECK_SUMMARY, else
#               $MZ_RESULTS/check-summary.json): a list of
#               {variant, boot_param, group, pass, fail, skip,
#               unexpected_skip}
#   --logs      directory for the per-boot logs (default $MZ_LOGS/matrix;
#               emptied first, so it must be empty, missing or made by
#               matrix.sh: it holds a .mz-matrix-logs marker)
#   --ndctl     the ndctl the guests run: an install root of
#               build-ndctl.sh (ndctl with the companion series of
#               patches/ndctl/), or distro for this host's Debian ndctl
#               (default: build-ndctl.sh's, built first; with --build,
#               distro)
#   --build     boot this built kernel (build-kernel.sh output) for every
#               variant instead of building each: no selftests are built
#               or installed, so use it with --guest-test (the harness's
#               own tests do)
#   --guest-test  run guest test NAME (guest/tests/, or one --add brings)
#               instead of kselftest, with the arguments kselftest would
#               get; the safe cell runs it too instead of guard
#   --add       more files for the initramfs (initramfs.sh --add,
#               repeatable), e.g. tests/guest:/mz/tests for the harness's
#               test fixtures
#
# Each cell boots the variant with the boot parameter on 2 vCPUs (the race
# and streaming tests need two CPUs) and runs the installed kselftest
# target inside (guest/tests/kselftest), handing it the guest's NVDIMMs to
# destroy ("devs": MEMMAP_INIT_NAMESPACE, MEMMAP_INIT_LABEL_REGION and
# MEMMAP_INIT_SYSTEM_RAM, see memmap_lib.sh).  Its NVDIMMs start empty on
# every boot (raw NFIT namespaces map no pages), so the first bind of each
# memory type after boot is ndctl create-namespace's, which the tests check.
# The "safe" cell instead runs guest/tests/guard: user data on both
# NVDIMMs, the target without the variables and then with them while the
# data is mounted; the data must survive and the namespaces stay as they
# were (its checks are one more group, "guard").  The "numa" cell boots a
# guest shaped like a pmem or CXL host (vm.sh --numa: a node with CPUs 0-1,
# a node with CPUs 2-4 and the NVDIMMs, a memory-only node nearest to it;
# isolcpus=4 sets one CPU of the NVDIMMs' node apart) with a
# $MZ_NUMA_NVDIMM_SIZE NVDIMM, large enough for devdax align=1G, and runs the
# threads group (memmap_threads.sh) there: where the multithreaded init
# runs, on how many threads, and that its chunks keep 1 GiB folios whole.
# The "threads" cell runs the threads group alone in a guest whose CPUs
# are each a socket of their own (vm.sh --no-shared-llc, which the guest
# checks: no sched domain shares a last-level cache, as in a kernel
# without CONFIG_SCHED_MC), showing that where the helpers run does not
# depend on the scheduler's cache topology.
# The "distro" cell runs the ndctl and backend groups with the host's
# Debian ndctl (76.1 on Debian 12), as users who run the target with their
# distribution's ndctl do: the ndctl group, which needs create-namespace
# --memmap-streaming, skips saying so, and the rest works with it.
# The "cxl" cell boots QEMU 10 (mz_qemu_cxl in lib.sh; make qemu fetches
# it) with a persistent and a volatile CXL memory device; the guest makes
# a pmem and a ram region with ndctl's cxl tool, runs the namespace groups
# on the pmem region's namespace and the device-dax ones on the ram
# region's instance, and destroys both regions after.  Without QEMU 10
# the cell is skipped, saying why, and the run does not fail for it.
#
# Which groups: the boot parameter only sets the policy that namespaces
# without their own request follow, and each variant's "none" cell already
# runs the default policy (stream-y: altmap; stream-n has none), so the
# "none" cell runs every group and the upstream hmm-tests peer suite:
# with test_hmm's default request, which gives device memory the
# template as the off request would, and where the variant has the
# backend also with the on request (template+streaming); --full runs all
# three requests everywhere.  The off, altmap, on and bogus cells run the
# groups
# whose outcome depends on the parameter: controls (the policy, its source
# and the boot log) and backend (the backend every memory type gets from
# it), the latter with MEMMAP_INIT_POLICY_ONLY=1: only the binds whose
# backend the policy decides (first bind, request default), as the
# requests on and off and the one-CPU bind give the same
# backend under every parameter and run in the none cell.  --full runs
# every group, and every bind, everywhere.  A guest that stalls before
# its test starts (vm.sh exit 75: nothing ran) is booted once more; its
# log is kept as CELL.stall.log and the summary names the cell.  A
# cell fails when the guest fails (any KTAP failure, a kernel
# oops/WARN/BUG/KASAN/lockdep report, a hang: see vm.sh), when it ran
# no test at all, or when a test skipped that harness/matrix/matrix-skips.txt
# does not expect for that variant and boot parameter (it names the test
# and the reason the test gave).  A line reports each cell as it finishes (status, pass,
# fail and skip counts, seconds).  Interrupted or killed (INT, TERM), it
# stops its guests.  Console logs stay in $MZ_LOGS/matrix/.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

variants=
params=
set=check
ndctl=
ndctl_arg=
jobs=$(nproc)
timeout=1200
full=0
boot_timeout=
appends=()
prebuilt=
guest_test=
adds=()
summary=$CHECK_SUMMARY
out=$MZ_LOGS/matrix
while [ $# -gt 0 ]; do
	case "$1" in
	--full) full=1; shift; continue ;;
	--set|--variants|--params|--jobs|--timeout|--boot-timeout|--append|--summary|--logs|--build|--guest-test|--add|--ndctl)
		mz_need_value "$1" $#
		case "$1" in
		--set) set=$2 ;;
		--ndctl) ndctl=$2 ndctl_arg=$2 ;;
		--build) prebuilt=$2 ;;
		--guest-test) guest_test=$2 ;;
		--add) adds+=(--add "$2") ;;
		--append) appends+=(--append "$2") ;;
		--boot-timeout) boot_timeout=$2 ;;
		--variants) variants=$2 ;;
		--params) params=$2 ;;
		--jobs) jobs=$2 ;;
		--timeout) timeout=$2 ;;
		--summary) summary=$2 ;;
		--logs) out=$2 ;;
		esac
		shift 2 ;;
	-h|--help) mz_help ;;
	*) mz_arg_error "unknown option '$1'" ;;
	esac
done

# The cells, from harness/matrix/matrix-cells.txt: cell_FIELD[CELL], the names in
# the table's order, and the variants and cells of each set.
cells_file=$MZ_ROOT/harness/matrix/matrix-cells.txt
cells=()
declare -A cell_says=() cell_append=() cell_runs=() cell_vm=() cell_ndctl=() set_cells=()
declare -A set_vlist=([check]="" [debug]="")
default_params=
while IFS=$'\t' read -r c says app runs vm nd chk dbg extra; do
	case "$c" in ''|'#'*) continue ;; esac
	if [ -z "$dbg" ] || [ -n "$extra" ]; then
		die "$cells_file: cell '$c' needs 8 tab-separated fields"
	fi
	case "$nd" in series|distro) ;; *) die "$cells_file: cell '$c': NDCTL '$nd' is not series or distro" ;; esac
	cells+=("$c")
	cell_says[$c]=$says cell_append[$c]=$app cell_runs[$c]=$runs cell_vm[$c]=$vm cell_ndctl[$c]=$nd
	case "$runs" in all|policy) default_params+=${default_params:+,}$c ;; esac
	for s in check debug; do
		if [ "$s" = check ]; then l=$chk; else l=$dbg; fi
		[ "$l" = - ] && continue
		IFS=, read -r -a vs <<<"$l"
		for v in "${vs[@]}"; do
			[[ " ${set_vlist[$s]} " == *" $v "* ]] || set_vlist[$s]+=" $v"
			set_cells[$s:$v]+=${set_cells[$s:$v]:+ }$c
		done
	done
done <"$cells_file"
case "$set" in
check|debug) ;;
*) mz_arg_error "--set '$set': want check or debug (harness/matrix/matrix-cells.txt's sets)" ;;
esac
if [ -z "$variants" ] && [ -z "$params" ]; then
	for v in ${set_vlist[$set]}; do
		c=${set_cells[$set:$v]}
		variants+=${variants:+,}$v:${c// /+}
	done
fi
: "${params:=$default_params}"
# Without --variants, every variant of the set.
if [ -z "$variants" ]; then
	read -r -a vs <<<"${set_vlist[$set]}"
	variants=$(IFS=,; echo "${vs[*]}")
fi
mz_form --jobs "$jobs" '^[1-9][0-9]*$' 'a number of guests, 1 or more'
mz_form --timeout "$timeout" '^[1-9][0-9]*$' 'seconds, 1 or more'
[ -z "$boot_timeout" ] || mz_form --boot-timeout "$boot_timeout" '^[1-9][0-9]*$' 'seconds, 1 or more'
[ -z "$prebuilt" ] || [ -f "$prebuilt/arch/x86/boot/bzImage" ] ||
	mz_arg_error "--build '$prebuilt': want a build-kernel.sh output directory (no arch/x86/boot/bzImage in it)"
[ -z "$guest_test" ] ||
	mz_form --guest-test "$guest_test" '^[A-Za-z0-9_.-]+$' 'a test name (a file under /mz/tests)'
IFS=, read -r -a vspecs <<<"$variants"
IFS=, read -r -a plist <<<"$params"
[ ${#vspecs[@]} -gt 0 ] || mz_arg_error "--variants '': want one variant or more"
[ ${#plist[@]} -gt 0 ] || mz_arg_error "--params '': want one cell or more"
check_param() {
	[ -n "${cell_runs[$1]+set}" ] ||
		mz_arg_error "--params '$1': want a cell of harness/matrix/matrix-cells.txt ($(IFS=,; l="${cells[*]}"; echo "${l//,/, }"))"
}
for p in "${plist[@]}"; do check_param "$p"; done
# vlist: the variants; vparams[VARIANT]: its boot parameters, space-separated.
vlist=()
declare -A vparams=()
for spec in "${vspecs[@]}"; do
	v=${spec%%:*}
	if [ -z "$v" ] || [ ! -f "$MZ_ROOT/Kconfig.fragments/$v.config" ]; then
		mz_arg_error "--variants '$v': want a variant of Kconfig.fragments/"
	fi
	[ -z "${vparams[$v]+set}" ] || mz_arg_error "--variants '$v': given twice"
	if [ "$spec" != "$v" ]; then
		[ -n "${spec#*:}" ] || mz_arg_error "--variants '$spec': want cells after ':'"
		IFS=+ read -r -a ps <<<"${spec#*:}"
		for p in "${ps[@]}"; do check_param "$p"; done
		vparams[$v]=${ps[*]}
	else
		vparams[$v]=${plist[*]}
	fi
	vlist+=("$v")
done
need_tool jq jq
[ -n "$ndctl" ] || { [ -z "$prebuilt" ] || ndctl=distro; }
if [ -n "$ndctl" ] && [ "$ndctl" != distro ] && [ ! -x "$ndctl/usr/bin/ndctl" ]; then
	mz_arg_error "--ndctl '$ndctl': want distro or an install root of harness/build/build-ndctl.sh (no usr/bin/ndctl in it)"
fi

# --logs is emptied: refuse anything that does not look like ours (a
# marker, or nothing but the per-cell files an older matrix.sh wrote).
marker=.mz-matrix-logs
if [ -e "$out" ] || [ -L "$out" ]; then
	why=
	if [ -L "$out" ] || [ ! -d "$out" ]; then
		why="is not a directory"
	elif [ ! -f "$out/$marker" ] && [ -n "$(find "$out" -mindepth 1 ! \( -type f \( -name '*.log' \
		-o -name '*.out' -o -name '*.err' -o -name '*.rc' \) \) -print -quit)" ]; then
		why="holds files matrix.sh did not write (no $marker in it)"
	fi
	if [ -n "$why" ]; then
		echo "${0##*/}: error: --logs $out $why; matrix.sh empties that directory, so give it a new or empty one" >&2
		exit 2
	fi
fi

H=$MZ_ROOT/harness
rm -rf "$out"
mkdir -p "$out" "$(dirname "$summary")"
echo "made by harness/matrix/matrix.sh, which empties this directory on its next run" >"$out/$marker"
start=$(date +%s)

# The ndctl of the guests: the companion series' (build-ndctl.sh, seconds
# when built) unless --ndctl says otherwise.
if [ -z "$ndctl" ]; then
	ndctl=$("$H/build/build-ndctl.sh") || die "building ndctl with patches/ndctl/ failed"
fi
ndctl_opt=()
[ "$ndctl" = distro ] || ndctl_opt=(--ndctl "$ndctl")

# Build every variant first (one kernel build at a time), with its
# selftests and initramfs (a second one with Debian's ndctl for a distro
# cell).
declare -A builds=() initrds=() distro_initrds=()
for v in "${vlist[@]}"; do
	initrd=$MZ_INITRAMFS/matrix-$v.cpio.gz
	opts=(${adds[@]+"${adds[@]}"})
	if [ -n "$prebuilt" ]; then
		b=$prebuilt
	else
		b=$("$H/build/build-kernel.sh" "$v") || die "building variant $v failed"
		st=$MZ_SELFTESTS/$v
		"$H/build/build-selftests.sh" "$b" "$st" >/dev/null ||
			die "building the selftests for $v failed"
		opts=(--add "$st:/mz/kselftest" "${opts[@]}")
	fi
	"$H/vm/initramfs.sh" ${ndctl_opt[@]+"${ndctl_opt[@]}"} "${opts[@]}" "$b" "$initrd" >/dev/null ||
		die "making the initramfs for $v failed"
	if [[ " $(for c in ${vparams[$v]}; do echo "${cell_ndctl[$c]}"; done) " == *distro* ]]; then
		distro_initrds[$v]=$MZ_INITRAMFS/matrix-$v-distro.cpio.gz
		"$H/vm/initramfs.sh" "${opts[@]}" "$b" "${distro_initrds[$v]}" >/dev/null ||
			die "making the initramfs with Debian's ndctl for $v failed"
	fi
	builds[$v]=$b
	initrds[$v]=$initrd
done

# The QEMU of the cells with CXL memory, when one runs (cxl_qemu), or why
# there is none (cxl_why: those cells are skipped, but for the guard's,
# which runs without its CXL memory: the NVDIMMs' guard is not lost).
cxl_qemu='' cxl_why=''
for v in "${vlist[@]}"; do
	for c in ${vparams[$v]}; do
		[[ " ${cell_vm[$c]} " == *" cxl "* ]] || continue
		if [ -z "$cxl_qemu$cxl_why" ] && ! cxl_qemu=$(mz_qemu_cxl); then
			cxl_why=$cxl_qemu cxl_qemu=
		fi
	done
done
[ -z "$cxl_qemu" ] || info "CXL cells boot $(MZ_QEMU=$cxl_qemu mz_qemu_version) ($cxl_qemu)"
[ -z "$cxl_why" ] ||
	warn "the CXL cells are skipped, and the guard runs without CXL memory: $cxl_why"

# The accelerator, settled once per kernel (not by every cell at once).
declare -A accels=()
for v in "${vlist[@]}"; do
	accels[$v]=$("$H/vm/kvm-probe.sh" --accel "$MZ_ACCEL" "${builds[$v]}" "${initrds[$v]}") ||
		die "settling the accelerator for $v failed"
done

ncells=0
for v in "${vlist[@]}"; do
	read -r -a ps <<<"${vparams[$v]}"
	ncells=$((ncells + ${#ps[@]}))
done

# variant_setting VARIANT SYMBOL: CONFIG_SYMBOL's value in the .config of
# the kernel the variant's cells boot, n when it is not set.
variant_setting() {
	awk -v s="CONFIG_$2" 'index($0, s "=") == 1 { v = substr($0, length(s) + 2) }
		END { print (v == "" ? "n" : v) }' "${builds[$1]}/.config"
}

# variant_traits VARIANT: what matrix-skips.txt keys on, from the .config
# of the kernel the variant's cells boot.
variant_traits() {
	local t='*'
	if [ "$(variant_setting "$1" MEMMAP_STREAMING)" = y ]; then
		t+=' backend'
	else
		t+=' no-backend'
	fi
	if [ "$(variant_setting "$1" NUMA)" = y ]; then t+=' numa'; else t+=' no-numa'; fi
	echo "$t"
}

# expected_skip TRAITS PARAM GROUP TEST WHY: the reason matrix-skips.txt
# gives for this skip of TEST, which the test explained with WHY; false
# when it expects no such skip.
expected_skip() {
	local traits=" $1 " p=$2 g=$3 d=$4 w=$5 when wp wg re why
	while IFS=$'\t' read -r when wp wg re why; do
		case "$when" in ''|'#'*) continue ;; esac
		[[ "$traits" == *" $when "* ]] || continue
		case "$wp" in
		'*') ;;
		'!'*) [ "$p" != "${wp#!}" ] || continue ;;
		*) [ "$p" = "$wp" ] || continue ;;
		esac
		[ "$wg" = '*' ] || [ "$wg" = "$g" ] || continue
		case "$re" in
		why:*) [[ "$w" =~ ${re#why:} ]] || continue ;;
		*) [[ "$d" =~ $re ]] || continue ;;
		esac
		echo "$why"
		return 0
	done <"$H/matrix/matrix-skips.txt"
	return 1
}

# classify_skips VARIANT PARAM: one line per skip in the cell's output,
# "E<US>REASON" when matrix-skips.txt expects it (its reason), else
# "U<US>GROUP<US>TEST<US>WHY" (US: the ASCII unit separator, so that an
# empty TEST survives 'read'; WHY: the reason the test gave).
classify_skips() {
	local traits g d why r
	traits=$(variant_traits "$1")
	while IFS=$'\037' read -r g d why; do
		if r=$(expected_skip "$traits" "$2" "$g" "$d" "$why"); then
			printf 'E\037%s\n' "$r"
		else
			printf 'U\037%s\037%s\037%s\n' "$g" "$d" "$why"
		fi
	done < <(awk -v list=skips -f "$H/matrix/ktap-count.awk" "$out/$1.$2.out" 2>/dev/null || true)
}
# unexpected_skips VARIANT PARAM: "GROUP<US>TEST<US>WHY" for every skip
# matrix-skips.txt does not expect.
unexpected_skips() {
	classify_skips "$1" "$2" | sed -n 's/^U\o037//p'
}
# expected_reasons VARIANT PARAM: the reason of every expected skip.
expected_reasons() {
	classify_skips "$1" "$2" | sed -n 's/^E\o037//p'
}
# pname CELL: a cell, for people (matrix-cells.txt's SAYS).
pname() {
	echo "${cell_says[$1]}"
}
# cell_done VARIANT PARAM RC SECONDS: the progress line of a finished cell.
cell_done() {
	local v=$1 p=$2 rc=$3 g a b c np=0 nf=0 ns=0 nu status=ok
	while read -r g a b c; do
		np=$((np + a)) nf=$((nf + b)) ns=$((ns + c))
	done < <(awk -f "$H/matrix/ktap-count.awk" "$out/$v.$p.out" 2>/dev/null || true)
	nu=$(unexpected_skips "$v" "$p" | grep -c . || true)
	if [ "$rc" -ne 0 ]; then
		status="FAIL (guest exit $rc)"
	elif [ "$nf" -gt 0 ] || [ "$nu" -gt 0 ]; then
		status=FAIL
	elif [ $((np + nf + ns)) -eq 0 ]; then
		status="FAIL (no test ran)"
	fi
	local again=
	[ ! -e "$out/$v.$p.stall.log" ] || again=" (booted twice: the first boot stalled)"
	info "  [$(find "$out" -name '*.rc' | wc -l)/$ncells] $v with $(pname "$p"): $status, $np passed, $nf failed, $ns skipped ($nu unexpected), $4 s$again"
}

# rerun_cmd VARIANT PARAM: the command that runs that cell alone.
rerun_cmd() {
	local c=(harness/matrix/matrix.sh --variants "$1:$2") a
	[ "$full" = 0 ] || c+=(--full)
	[ "$timeout" = 1200 ] || c+=(--timeout "$timeout")
	[ -z "$boot_timeout" ] || c+=(--boot-timeout "$boot_timeout")
	for a in ${appends[@]+"${appends[@]}"}; do
		[ "$a" = --append ] || c+=(--append "$a")
	done
	[ -z "$prebuilt" ] || c+=(--build "$prebuilt")
	[ -z "$guest_test" ] || c+=(--guest-test "$guest_test")
	[ -z "$ndctl_arg" ] || c+=(--ndctl "$ndctl_arg")
	for a in ${adds[@]+"${adds[@]}"}; do
		[ "$a" = --add ] || c+=(--add "$a")
	done
	c+=(--logs "$MZ_LOGS/matrix-rerun")
	printf '%q ' "${c[@]}" | sed 's/ $//'
}

run_cell() {
	local v=$1 p=$2 cell=$1.$2 t0=$SECONDS vpid initrd=${initrds[$1]} w f
	# The second, labelled NVDIMM is for memmap_lifetime.sh.
	local args=(--accel "${accels[$v]}" --timeout "$timeout" --smp 2 --label-nvdimm "$MZ_NVDIMM_SIZE"
		--log "$out/$cell.log")
	local test=${guest_test:-kselftest} targs=(memmap_init devs) files cxl=0 llc=0 exclude
	local -a qenv=()
	for w in ${cell_vm[$p]}; do
		case "$w" in
		-) ;;
		zone-devices) args+=("${MZ_ZONE_DEVICES[@]}") ;;
		cxl)
			if [ -n "$cxl_why" ] && [ "${cell_runs[$p]}" = guard ]; then
				echo "$cxl_why" >"$out/$cell.nocxl"
				continue
			fi
			cxl=1 qenv=("MZ_QEMU=$cxl_qemu")
			args+=(--cxl-pmem "$MZ_CXL_PMEM_SIZE" --cxl-ram "$MZ_CXL_RAM_SIZE") ;;
		\$MZ_*) w=${w#\$}; args+=("${!w}") ;;
		# The guest checks that it got what it asked for.
		--no-shared-llc) llc=1; args+=("$w") ;;
		*) args+=("$w") ;;
		esac
	done
	[ "${cell_append[$p]}" = - ] || args+=(--append "${cell_append[$p]}")
	[ "${cell_ndctl[$p]}" = series ] || initrd=${distro_initrds[$v]}
	case "${cell_runs[$p]}" in
	all)
		if [ "$full" = 1 ]; then
			targs+=(hmm)
		elif [[ "$(variant_traits "$v")" == *" backend"* ]]; then
			targs+=(MEMMAP_INIT_HMM=default+on)
		else
			targs+=(MEMMAP_INIT_HMM=default)
		fi
		# A guest under TCG leaves out the timed hmm-tests cases.
		exclude=$(mz_hmm_exclude "${accels[$v]}")
		[ -z "$exclude" ] || targs+=("MEMMAP_INIT_HMM_EXCLUDE=${exclude//,/+}") ;;
	policy)
		[ "$full" = 1 ] ||
			targs=(memmap_init:memmap_controls.sh memmap_init:memmap_backend.sh devs
				MEMMAP_INIT_POLICY_ONLY=1) ;;
	guard) test=${guest_test:-guard}; targs=() ;;
	*)
		IFS=+ read -r -a files <<<"${cell_runs[$p]}"
		targs=()
		for f in "${files[@]}"; do targs+=("memmap_init:$f"); done
		targs+=(devs) ;;
	esac
	[ "$cxl" = 0 ] || targs+=(cxl)
	[ "$llc" = 0 ] || targs+=(no-shared-llc)
	if [ "$cxl" = 1 ] && [ -n "$cxl_why" ]; then
		echo "$cxl_why" >"$out/$cell.skip"
		echo 0 >"$out/$cell.rc"
		info "  [$(find "$out" -name '*.rc' | wc -l)/$ncells] $v with $(pname "$p"): SKIP ($cxl_why)"
		return 0
	fi
	args+=(${appends[@]+"${appends[@]}"})
	[ -z "$boot_timeout" ] || args+=(--boot-timeout "$boot_timeout")
	local rc try
	for try in 1 2; do
		rc=0
		env ${qenv[@]+"${qenv[@]}"} MZ_VM_DIR="$MZ_VM_FILES/$cell" "$H/vm/vm.sh" "${args[@]}" \
			"${builds[$v]}" "$initrd" -- "$test" ${targs[@]+"${targs[@]}"} \
			>"$out/$cell.out" 2>"$out/$cell.err" &
		vpid=$!
		# matrix.sh's stop_cells: vm.sh stops its QEMU on TERM.
		trap 'kill -TERM "$vpid" 2>/dev/null; wait "$vpid"; exit 143' TERM
		wait "$vpid" || rc=$?
		trap - TERM
		# 75: the guest stalled before its test started; boot it once more.
		if [ "$rc" -ne 75 ] || [ "$try" = 2 ]; then break; fi
		mv "$out/$cell.log" "$out/$cell.stall.log"
		[ ! -e "$out/$cell.test.log" ] || mv "$out/$cell.test.log" "$out/$cell.stall.test.log"
		mv "$out/$cell.err" "$out/$cell.stall.err"
		warn "  $v with $(pname "$p"): the guest stalled before its test started; booting it again (log: $out/$cell.stall.log)"
	done
	echo "$rc" >"$out/$cell.rc"
	cell_done "$v" "$p" "$rc" $((SECONDS - t0))
}

# Interrupted, killed or failing: stop the cells still running, and with
# them their vm.sh and QEMU.
stop_cells() {
	local pids
	pids=$(jobs -p)
	[ -n "$pids" ] || return 0
	warn "stopping $(wc -w <<<"$pids") running cell(s) and their guests"
	# shellcheck disable=SC2086 # one PID per word
	kill -TERM $pids 2>/dev/null || true
	wait || true
}
trap stop_cells EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

info "running $ncells cells (${#vlist[@]} variants), $jobs guests at a time (logs: $out)"
running=0
for v in "${vlist[@]}"; do
	read -r -a ps <<<"${vparams[$v]}"
	for p in "${ps[@]}"; do
		if [ "$running" -ge "$jobs" ]; then
			wait -n || true
			running=$((running - 1))
		fi
		info "  start $v with $(pname "$p")"
		run_cell "$v" "$p" &
		running=$((running + 1))
	done
done
wait || true

# Summarize.
bad=0
rows=()
failed=()
skipped=()
declare -A expected=()
# skip_row V P GROUP WHAT FILE: the table's row, the JSON row and the
# "Cells skipped" line of a part of cell V.P that did not run (GROUP:
# "(cell)" for all of it, "(CXL)" for its CXL memory), with FILE's text
# as the reason; WHAT follows the cell's name in that line.
skip_row() {
	local why
	why=$(cat "$5")
	printf '%-14s %-8s %-12s %5s %5s %5s %5s  %s\n' "$1" "$2" "$3" "" "" "" "" "SKIP ($why)"
	rows+=("$(jq -cn --arg v "$1" --arg p "$2" --arg g "$3" --arg w "$why" \
		'{variant: $v, boot_param: $p, group: $g, pass: 0, fail: 0,
		  skip: 1, unexpected_skip: 0, why: $w}')")
	skipped+=("  $1 with $(pname "$2")$4: $why")
}
printf '\n%-14s %-8s %-12s %5s %5s %5s %5s  %s\n' variant param group pass fail skip unexp status
for v in "${vlist[@]}"; do
	read -r -a ps <<<"${vparams[$v]}"
	for p in "${ps[@]}"; do
		cell=$v.$p
		if [ -f "$out/$cell.skip" ]; then
			skip_row "$v" "$p" "(cell)" "" "$out/$cell.skip"
			continue
		fi
		[ ! -f "$out/$cell.nocxl" ] ||
			skip_row "$v" "$p" "(CXL)" ", its CXL memory" "$out/$cell.nocxl"
		rc=$(cat "$out/$cell.rc" 2>/dev/null || echo 1)
		mapfile -t counts < <(awk -f "$H/matrix/ktap-count.awk" "$out/$cell.out" 2>/dev/null)
		mapfile -t unexp < <(unexpected_skips "$v" "$p")
		total=0
		status=ok
		for c in "${counts[@]}"; do
			read -r g np nf ns <<<"$c"
			nu=0
			for u in ${unexp[@]+"${unexp[@]}"}; do
				[ "${u%%$'\037'*}" != "$g" ] || nu=$((nu + 1))
			done
			total=$((total + np + nf + ns))
			rows+=("$(jq -cn --arg v "$v" --arg p "$p" --arg g "$g" \
				--argjson np "$np" --argjson nf "$nf" --argjson ns "$ns" --argjson nu "$nu" \
				'{variant: $v, boot_param: $p, group: $g, pass: $np, fail: $nf,
				  skip: $ns, unexpected_skip: $nu}')")
			[ "$nf" -eq 0 ] && [ "$nu" -eq 0 ] || status=FAIL
			printf '%-14s %-8s %-12s %5d %5d %5d %5d\n' "$v" "$p" "$g" "$np" "$nf" "$ns" "$nu"
		done
		while IFS= read -r why; do
			[ -z "$why" ] || expected[$why]=$((${expected[$why]:-0} + 1))
		done < <(expected_reasons "$v" "$p")
		notes=()
		for u in ${unexp[@]+"${unexp[@]}"}; do
			IFS=$'\037' read -r g d why <<<"$u"
			notes+=("unexpected skip in $g: ${d:-the whole group} (${why:-no reason given})")
		done
		[ ${#notes[@]} -eq 0 ] || printf '  %s\n' "${notes[@]}"
		if [ "$rc" -ne 0 ]; then
			status="FAIL (guest exit $rc: $(tail -n 1 "$out/$cell.err" 2>/dev/null))"
		elif [ "$total" -eq 0 ]; then
			status="FAIL (no test ran)"
		fi
		printf '%-14s %-8s %-12s %5s %5s %5s %5s  %s\n' "$v" "$p" "(cell)" "" "" "" "" "$status"
		[ "$status" = ok ] && continue
		bad=$((bad + 1))
		failed+=("  $v ${p/none/(no parameter)}: $status")
		while IFS= read -r l; do
			failed+=("      $l")
		done < <(grep -E '^(# )*not ok ' "$out/$cell.out" 2>/dev/null | head -n 8)
		for l in ${notes[@]+"${notes[@]}"}; do
			failed+=("      $l")
		done
		failed+=("      rerun: $(rerun_cmd "$v" "$p")")
	done
done
stalls=()
for f in "$out"/*.stall.log; do
	[ -e "$f" ] || continue
	c=${f##*/}
	c=${c%.stall.log}
	stalls+=("  ${c%%.*} with $(pname "${c#*.}"): $f")
done
if [ ${#stalls[@]} -gt 0 ]; then
	printf '\nGuests that stalled before their test started and were booted again:\n'
	printf '%s\n' "${stalls[@]}"
fi
if [ ${#skipped[@]} -gt 0 ]; then
	printf '\nCells skipped (they need what this host lacks; the run does not fail for them):\n'
	printf '%s\n' "${skipped[@]}"
fi
if [ ${#expected[@]} -gt 0 ]; then
	printf '\nExpected skips (harness/matrix/matrix-skips.txt), all cells:\n'
	for why in "${!expected[@]}"; do
		printf '%6d  %s\n' "${expected[$why]}" "$why"
	done | sort -k2
fi
# Last, so that a log's tail says what failed.
if [ "$bad" -gt 0 ]; then
	printf '\nFailed cells (console logs and KTAP in %s):\n' "$out"
	printf '%s\n' "${failed[@]}"
fi
printf '%s\n' "${rows[@]}" | jq -s . >"$summary"
info "summary: $summary; $ncells cells, $bad failed, $(mz_since "$start") s"
[ "$bad" -eq 0 ]
