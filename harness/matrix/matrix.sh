#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # mz_opt and mz_flag set the options' variables
# matrix.sh: run the memmap_init selftests in the matrix's cells, summarize the KTAP.
#
#   matrix.sh [options]                      (make matrix MATRIX_ARGS='...')
#   matrix.sh --variants VARIANT:CELL+CELL   one variant, only those cells
#
# The cells (boot parameter, guest, what runs) and each set's variants:
# harness/matrix/matrix-cells.txt; the skips a cell may have:
# harness/matrix/matrix-skips.txt.  With MZ_BUILD_KIND=upstream
# (check-upstream.sh) the kernels are MZ_UPSTREAM_SRC's.  What the cells
# run, what fails one and what the run prints: docs/matrix.md.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

# A guest's limit without --timeout (rerun_cmd leaves it out).
default_timeout=1200
# A --variants item: VARIANT or VARIANT:CELL+CELL.
spec_re='[A-Za-z0-9_-]+(:[a-z0-9_-]+(\+[a-z0-9_-]+)*)?'
mz_opt --set set check 'check|debug' '^(check|debug)$' \
	"the cells without --variants and --params: make check's or make check-debug's (matrix-cells.txt)"
mz_opt --variants variants '' LIST "^$spec_re(,$spec_re)*\$" \
	"Kconfig.fragments variants, comma-separated, each VARIANT or VARIANT:CELL+CELL (default: the set's)"
mz_opt --params params '' LIST '^[a-z0-9_-]+(,[a-z0-9_-]+)*$' \
	'the cells of the variants given without theirs, comma-separated (default: those that run all or policy)'
mz_flag --full full 'every group and every bind in every cell'
mz_opt --jobs jobs "$(nproc)" N '^[1-9][0-9]*$' 'guests run in parallel, one CPU each'
mz_opt --timeout timeout "$default_timeout" SECONDS '^[1-9][0-9]*$' "a guest's limit"
mz_opt --boot-timeout boot_timeout '' SECONDS '^[1-9][0-9]*$' "a boot's limit, until its test starts (default: vm.sh's)"
mz_opt --append 'appends[]' '' TEXT '^[^[:cntrl:]]+$' 'more kernel command line for every cell (repeatable)'
mz_opt --summary summary "$CHECK_SUMMARY" FILE '^.*[^/]$' 'the JSON summary, a row per variant, cell and group'
mz_opt --logs out "$MZ_LOGS/matrix" DIR . \
	'the per-boot logs; emptied first, so new, empty or one matrix.sh made'
mz_opt --ndctl ndctl '' 'ROOT|distro' . \
	"the guests' ndctl: an install root of build-ndctl.sh, or distro for Debian's (default: build-ndctl.sh's; with --build, distro)"
mz_opt --build prebuilt '' DIR . \
	'boot this build-kernel.sh output for every variant, no selftests built (for --guest-test)'
mz_opt --guest-test guest_test '' NAME '^[A-Za-z0-9_.-]+$' \
	'run this guest test (guest/tests/, or one --add brings) instead of kselftest, the safe cell too'
mz_opt --add 'adds[]' '' SRC:DST '^[^:]+:/.+$' 'more files for the initramfs, as initramfs.sh --add (repeatable)'
mz_parse "$@"
[ ${#MZ_OPERANDS[@]} -eq 0 ] || mz_arg_error "unexpected argument '${MZ_OPERANDS[0]}'"
ndctl_arg=$ndctl

# read_cells FILE: the cells, from matrix-cells.txt: cell_FIELD[CELL],
# cells (the names in the table's order), set_vlist[SET] (the variants of
# each set) and set_cells[SET:VARIANT] (their cells), default_params (the
# cells that run all or policy).
cells=()
declare -A cell_says=() cell_append=() cell_runs=() cell_vm=() cell_ndctl=() set_cells=()
declare -A set_vlist=([check]="" [debug]="")
default_params=
read_cells() {
	local c says app runs vm nd chk dbg extra s l v vs
	while IFS=$'\t' read -r c says app runs vm nd chk dbg extra; do
		case "$c" in ''|'#'*) continue ;; esac
		if [ -z "$dbg" ] || [ -n "$extra" ]; then
			die "$1: cell '$c' needs 8 tab-separated fields"
		fi
		case "$nd" in series|distro) ;; *) die "$1: cell '$c': NDCTL '$nd' is not series or distro" ;; esac
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
	done <"$1"
}
read_cells "$MZ_ROOT/harness/matrix/matrix-cells.txt"
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
[ -z "$prebuilt" ] || [ -f "$prebuilt/arch/x86/boot/bzImage" ] ||
	mz_arg_error "--build '$prebuilt': want a build-kernel.sh output directory (no arch/x86/boot/bzImage in it)"
IFS=, read -r -a vspecs <<<"$variants"
IFS=, read -r -a plist <<<"$params"
# check_param OPTION CELL: CELL is a cell of matrix-cells.txt.
check_param() {
	[ -n "${cell_runs[$2]+set}" ] ||
		mz_arg_error "$1 '$2': want a cell of harness/matrix/matrix-cells.txt ($(IFS=,; l="${cells[*]}"; echo "${l//,/, }"))"
}
for p in "${plist[@]}"; do check_param --params "$p"; done
# vlist: the variants; vparams[VARIANT]: its boot parameters, space-separated.
vlist=()
declare -A vparams=()
for spec in "${vspecs[@]}"; do
	v=${spec%%:*}
	[ -f "$MZ_ROOT/Kconfig.fragments/$v.config" ] ||
		mz_arg_error "--variants '$v': want a variant of Kconfig.fragments/"
	[ -z "${vparams[$v]+set}" ] || mz_arg_error "--variants '$v': given twice"
	if [ "$spec" != "$v" ]; then
		IFS=+ read -r -a ps <<<"${spec#*:}"
		for p in "${ps[@]}"; do check_param --variants "$p"; done
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
	[ -z "$why" ] ||
		mz_arg_error "--logs '$out' $why; matrix.sh empties that directory, so give it a new or empty one"
fi

H=$MZ_ROOT/harness
# Upstream's tree first, so that a missing or wrong MZ_UPSTREAM_SRC stops
# the run before anything is built (build-kernel.sh applies it too).
if [ "$MZ_BUILD_KIND" = upstream ] && [ -z "$prebuilt" ]; then
	tree=$("$H/series/upstream.sh" apply)
	info "kernels of $tree ($(git -C "$tree" log -1 --format='%h %s')); the selftests are Part 2's, built from the series tree"
fi
rm -rf "$out"
mkdir -p "$out" "$(dirname "$summary")"
echo "made by harness/matrix/matrix.sh, which empties this directory on its next run" >"$out/$marker"
start=$(date +%s)

# The ndctl of the guests: the companion series' (build-ndctl.sh) unless
# --ndctl says otherwise.
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
	opts=()
	for a in ${adds[@]+"${adds[@]}"}; do opts+=(--add "$a"); done
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
	[ "$timeout" = "$default_timeout" ] || c+=(--timeout "$timeout")
	[ -z "$boot_timeout" ] || c+=(--boot-timeout "$boot_timeout")
	for a in ${appends[@]+"${appends[@]}"}; do c+=(--append "$a"); done
	[ -z "$prebuilt" ] || c+=(--build "$prebuilt")
	[ -z "$guest_test" ] || c+=(--guest-test "$guest_test")
	[ -z "$ndctl_arg" ] || c+=(--ndctl "$ndctl_arg")
	for a in ${adds[@]+"${adds[@]}"}; do c+=(--add "$a"); done
	c+=(--logs "$MZ_LOGS/matrix-rerun")
	printf '%q ' "${c[@]}" | sed 's/ $//'
}

run_cell() {
	local v=$1 p=$2 cell=$1.$2 t0=$SECONDS vpid initrd=${initrds[$1]} w f a
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
	for a in ${appends[@]+"${appends[@]}"}; do args+=(--append "$a"); done
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
