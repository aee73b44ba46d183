# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# Helpers shared by the memmap_init selftests.  Sourced, never executed.
# Those of one kind of memory are in memmap_lib_KIND.sh, which this file
# sources at its end.
#
# What the tests may change.  By default nothing that existed before they
# started: no namespace, region, label or dax device, and no memory.  What
# is always safe runs by default: the controls that only read, the boot
# parameter checks, and device-private memory through test_hmm,
# whose memory is the test module's own.  The rest runs only on what the
# environment names, and skips saying which variable to set:
#
#   MEMMAP_INIT_NAMESPACE=namespaceX.Y  the pmem namespace the backend,
#       controls, data and threads tests reconfigure (ndctl
#       create-namespace -f -e) and rebind: ITS DATA IS DESTROYED.
#       It is refused (the tests skip) while in use: mounted, swapped on,
#       held or claimed, open or mapped by a process, or online as system
#       RAM.  Whatever happens, each test puts it back in the mode, map,
#       align, memmap_streaming request and enabled state it found.
#   MEMMAP_INIT_P2PDMA=DDDD:BB:DD.F     a PCI device with p2pdma memory
#       (p2pmem/ in sysfs: an NVMe controller's memory buffer, say) whose
#       driver the tests unbind and bind again, and whose p2pmem they
#       allocate and write: ITS BLOCK DEVICES GO AWAY WHILE IT IS UNBOUND.
#       Refused while any of them is mounted, held or open, or while any
#       of its p2pdma memory is allocated.
#   MEMMAP_INIT_HMEM=daxX.Y             a device-dax instance of soft-reserved
#       memory (dax_hmem: HBM, CXL), bound to device_dax, which the tests
#       rebind and write: ITS DATA IS DESTROYED.  Refused while mapped.
#   MEMMAP_INIT_CXL_DAX=daxX.Y          a device-dax instance of a CXL ram
#       region (dax_cxl: 'cxl create-region -t ram'), bound to device_dax,
#       which the tests rebind and write: ITS DATA IS DESTROYED.  Refused
#       while mapped.
#   MEMMAP_INIT_HMM_COHERENT=ADDR       the physical address of 512 MiB,
#       2 MiB-aligned, reserved and not System RAM, that test_hmm may use
#       as the memory of its two device-coherent devices (spm_addr_dev0
#       and spm_addr_dev1): WHATEVER IS THERE IS OVERWRITTEN.
#
# A value that is not of that form, or a namespace or device that does
# not exist, fails the test ("Bail out!") before anything is changed.
#
# What the tests look at:
#   the boot log                            the streaming policy
#   /sys/bus/nd/devices/NS/memmap_streaming the per-namespace request
#   test_hmm memmap_streaming=              the device-private request
#   memmap:memmap_init_zone_device          one trace event per memmap init,
#                                           naming the backend it used
# and what decides the backend, in order: CONFIG_MEMMAP_STREAMING=n
# (template; KASAN and KMSAN kernels cannot have it), the request (on: template+streaming, off:
# template) and, for "default", the policy (altmap, the default:
# template+streaming when the memmap lives in an altmap; on:
# template+streaming; off: template).
#
# The trace event and the pr_debug line also report how many threads ran
# the init (threads=T, "on T thread(s)") and the memory's node (nid=N,
# "of node N"): memmap_init_zone_device() splits a large range into
# chunks that the binding thread and its helpers take in turn, on the CPUs
# of the range's node, or of the nearest node with CPUs.  No knob steers
# it; the binding task's limits do: its allowed CPUs and the node's
# housekeeping CPUs (mi_threads_expected; mi_limited runs a bind under
# such a limit), and its cgroup's limits apply to its helpers.

MI_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../kselftest/ktap_helpers.sh
. "$MI_DIR/../kselftest/ktap_helpers.sh"

MI_WRITE=$MI_DIR/memmap_write
MI_PATTERN=$MI_DIR/dax_pattern
MI_EVENT=memmap/memmap_init_zone_device
# The base page size of the running kernel.
MI_PAGE_SIZE=$(getconf PAGESIZE 2>/dev/null ||
	awk '/^KernelPageSize:/ { print $2 * 1024; exit }' /proc/self/smaps)
# The PMD size, a devdax namespace's huge alignment: as THP reports it, else
# a page of 8-byte page table entries times the page size (x86-64, arm64,
# riscv64 and every other architecture with 8-byte entries at that level).
MI_PMD_SIZE=$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null ||
	echo $((MI_PAGE_SIZE * MI_PAGE_SIZE / 8)))

# mi_size_name BYTES: BYTES as ndctl's --align takes it (4K, 2M, 512M, 1G).
mi_size_name() {
	local b=$1 u
	for u in K M G; do
		b=$((b / 1024))
		if [ $((b % 1024)) -ne 0 ] || [ "$u" = G ]; then
			echo "$b$u"
			return
		fi
	done
}
# The devdax alignments the tests use: the base page and the PMD.
MI_ALIGN_PAGE=$(mi_size_name "$MI_PAGE_SIZE")
MI_ALIGN_PMD=$(mi_size_name "$MI_PMD_SIZE")
# What the namespace attribute reads.
MI_NS_ATTR_RE='^(\[default\] on off|default \[on\] off|default on \[off\])$'
# Kernel log lines that report a problem: warnings, BUGs, oopses, panics,
# sanitizers and lockdep.
MI_REPORTS='BUG:|WARNING:|Oops|Kernel panic|KASAN|UBSAN|lockdep'
MI_REPORTS+='|possible circular locking|possible recursive locking'
# dump_page() of a struct page nothing initialized (CONFIG_DEBUG_VM).
MI_REPORTS+='|is uninitialized and poisoned'

# The memory types: name, ndctl create-namespace options, trace event type,
# whether the memmap lives in an altmap.
MI_NS_TYPES=(
	"fsdax map=dev|--mode=fsdax --map=dev|fs_dax|1"
	"fsdax map=mem|--mode=fsdax --map=mem|fs_dax|0"
	"devdax align=$MI_ALIGN_PAGE|--mode=devdax --map=dev --align=$MI_ALIGN_PAGE|generic|1"
	"devdax align=$MI_ALIGN_PMD|--mode=devdax --map=dev --align=$MI_ALIGN_PMD|generic|1"
	# Compound pages without an altmap: their tails share vmemmap pages,
	# so memmap_init_compound() initializes fewer tails than the order.
	"devdax map=mem align=$MI_ALIGN_PMD|--mode=devdax --map=mem --align=$MI_ALIGN_PMD|generic|0"
)
MI_REQUESTS=(default on off)

MI_TRACEFS=
MI_TRACE=
MI_TRACE_TYPE=
MI_NS=
MI_NS_ATTR=
MI_NS_SAVED=
MI_NS_INFOBLOCK=
MI_NS_UUID=
MI_NS_WAS_DISABLED=0
MI_HMM_USED=
MI_CONFIG=
MI_TMP=
MI_BIND_NS=0
MI_DYNDBG=
MI_NS_ANY_KERNEL=0
MI_DEVNUMS=()
MI_P2P=
MI_HMEM=
MI_CXL_DAX=
MI_COHERENT=

# ---------------------------------------------------------------- KTAP

# mi_skip_all REASON: nothing to test here.
mi_skip_all() {
	ktap_print_header
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

# mi_skip DESC REASON: one skipped result, with its reason.
mi_skip() {
	ktap_print_msg "$1: skipped: $2"
	ktap_test_skip "$1"
}

# mi_result DESC STATUS [WHY]: pass when STATUS is 0, else fail saying WHY.
mi_result() {
	if [ "$2" -eq 0 ]; then
		ktap_test_pass "$1"
	else
		[ -z "${3:-}" ] || ktap_print_msg "$1: $3"
		ktap_test_fail "$1"
	fi
}

# mi_finished: like ktap_finished, but a run that skipped everything exits
# with KSFT_SKIP.
mi_finished() {
	if [ "$KTAP_CNT_SKIP" -gt 0 ] && [ "$KTAP_CNT_SKIP" -eq "$KSFT_NUM_TESTS" ]; then
		ktap_print_totals
		exit "$KSFT_SKIP"
	fi
	ktap_finished
}

# mi_indent: kernel and tool output as KTAP diagnostics.
mi_indent() {
	sed 's/^/#   /'
}

# ---------------------------------------------------------------- setup

# mi_init: common checks and a scratch directory removed on exit.
mi_init() {
	[ "$(id -u)" -eq 0 ] || mi_skip_all "must be run as root"
	MI_TMP=$(mktemp -d /tmp/memmap_init.XXXXXX) || mi_skip_all "cannot make a scratch directory"
	trap mi_cleanup EXIT
	trap 'exit 130' INT TERM
	mi_env_check
}

# Scripts add their own cleanup by defining mi_cleanup_hook, which runs
# first.  The namespace goes back last (mi_ns_reset), also when the test
# failed or was interrupted; a test that cannot put it back fails.
mi_cleanup() {
	local rc=$?
	if declare -F mi_cleanup_hook >/dev/null; then mi_cleanup_hook; fi
	[ -z "$MI_HMM_USED" ] || mi_hmm_unload || rc=$KSFT_FAIL
	mi_p2p_restore || rc=$KSFT_FAIL
	mi_hmem_restore || rc=$KSFT_FAIL
	mi_wq_restore
	mi_cgroup_leave "$BASHPID"
	mi_prdebug_off
	if [ -n "$MI_TRACE" ] && [ -d "$MI_TRACE" ]; then
		echo 0 >"$MI_TRACE/events/$MI_EVENT/enable" 2>/dev/null
		rmdir "$MI_TRACE" 2>/dev/null
	fi
	mi_ns_reset || rc=$KSFT_FAIL
	[ -z "$MI_TMP" ] || rm -rf "$MI_TMP"
	exit "$rc"
}

# ---------------------------------------------------------------- config

# mi_load_config: read the kernel configuration; false when unknown.
mi_load_config() {
	[ -z "$MI_CONFIG" ] || return 0
	if [ -r /proc/config.gz ]; then
		MI_CONFIG=$(zcat /proc/config.gz 2>/dev/null)
	elif [ -r "/boot/config-$(uname -r)" ]; then
		MI_CONFIG=$(cat "/boot/config-$(uname -r)")
	fi
	[ -n "$MI_CONFIG" ]
}

# mi_config NAME: true when CONFIG_NAME is y or m.
mi_config() {
	grep -qE "^CONFIG_$1=[ym]$" <<<"$MI_CONFIG"
}

# mi_probe: what this kernel lets a test check.  Sets have_config (1 when
# /proc/config.gz was read), have_trace (1 when the memmap trace event is
# recorded; needs the configuration) and streaming (0 only when the kernel
# is known to lack CONFIG_MEMMAP_STREAMING).
mi_probe() {
	have_config=1
	mi_load_config || have_config=0
	have_trace=0
	[ "$have_config" = 0 ] || ! mi_trace_init || have_trace=1
	streaming=1
	[ "$have_config" = 0 ] || mi_config MEMMAP_STREAMING || streaming=0
}

# mi_default_policy: the policy without memmap_streaming=: altmap with
# CONFIG_MEMMAP_STREAMING, off (nothing streams) without it.
mi_default_policy() {
	if mi_config MEMMAP_STREAMING; then
		echo altmap
	else
		echo off
	fi
}

# mi_cmdline_values: the memmap_streaming= values on the command line, in
# order, one a line.  A bare "memmap_streaming" is not the parameter (the
# kernel hands it to init).
mi_cmdline_values() {
	local p
	local -a params
	read -r -a params </proc/cmdline
	for p in ${params[@]+"${params[@]}"}; do
		case "$p" in
		memmap_streaming=*) echo "${p#memmap_streaming=}" ;;
		esac
	done
}

# mi_expected_policy: "POLICY SOURCE": what the kernel must have chosen
# from the command line and its configuration (needs mi_load_config).
mi_expected_policy() {
	local v policy source=default

	policy=$(mi_default_policy)
	if mi_config MEMMAP_STREAMING; then
		while IFS= read -r v; do
			case "$v" in
			off|altmap|on) policy=$v source="memmap_streaming=" ;;
			esac
		done < <(mi_cmdline_values)
	else
		source="CONFIG_MEMMAP_STREAMING=n"
	fi
	echo "$policy $source"
}

# mi_bracketed FILE: the bracketed word of a "a [b] c" attribute.
mi_bracketed() {
	sed -n 's/.*\[\([a-z]*\)\].*/\1/p' "$1" 2>/dev/null
}

# mi_expected_backend REQUEST ALTMAP: the backend a bind must use now.
mi_expected_backend() {
	local req=$1 altmap=$2 policy

	if ! mi_config MEMMAP_STREAMING; then
		echo template
	else
		case "$req" in
		on) echo template+streaming ;;
		off) echo template ;;
		*)
			read -r policy _ < <(mi_expected_policy)
			case "$policy" in
			on) echo template+streaming ;;
			altmap)
				if [ "$altmap" = 1 ]; then
					echo template+streaming
				else
					echo template
				fi ;;
			*) echo template ;;
			esac ;;
		esac
	fi
}

# ---------------------------------------------------------------- tracing

# mi_trace_init: a trace instance recording memmap_init_zone_device only.
# Returns false (with MI_TRACE_WHY set) when that is impossible.
mi_trace_init() {
	local d
	MI_TRACE_WHY=
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		if [ -d "$d/instances" ]; then MI_TRACEFS=$d; break; fi
	done
	if [ -z "$MI_TRACEFS" ]; then
		mkdir -p /sys/kernel/tracing 2>/dev/null
		if mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
			MI_TRACEFS=/sys/kernel/tracing
		else
			MI_TRACE_WHY="no tracefs"
			return 1
		fi
	fi
	if [ ! -d "$MI_TRACEFS/events/$MI_EVENT" ]; then
		MI_TRACE_WHY="no $MI_EVENT trace event"
		return 1
	fi
	MI_TRACE=$MI_TRACEFS/instances/memmap_init.$$
	if ! mkdir "$MI_TRACE" 2>/dev/null ||
		! echo 1 >"$MI_TRACE/events/$MI_EVENT/enable"; then
		MI_TRACE_WHY="cannot make trace instance $MI_TRACE"
		MI_TRACE=
		return 1
	fi
}

# mi_has_streaming_abi: the kernel has the memmap_streaming attribute of
# namespaces or test_hmm's memmap_streaming parameter, which came with the
# event.  (A function's name in /proc/kallsyms is gone once LTO inlines it.)
mi_has_streaming_abi() {
	local a
	for a in /sys/bus/nd/devices/namespace*/memmap_streaming; do
		[ -e "$a" ] && return 0
	done
	modinfo -p test_hmm 2>/dev/null | grep -q '^memmap_streaming:'
}

# mi_trace_need: mi_trace_init, or end the test.  A kernel without the
# memmap_streaming ABI has no event either: the test is skipped as a
# whole.  A kernel with it must have the event, or the observability that
# came with it is broken: one failed result.
mi_trace_need() {
	mi_trace_init && return 0
	if ! mi_has_streaming_abi; then
		mi_skip_all "$MI_TRACE_WHY: kernel without streaming memmap init"
	fi
	ktap_print_header
	ktap_set_plan 1
	ktap_test_fail "the kernel has the memmap_streaming ABI but $MI_TRACE_WHY"
	ktap_finished
}

mi_trace_clear() {
	: >"$MI_TRACE/trace"
}

# mi_trace_events: the recorded events, "start_pfn=... duration_ns=...
# threads=..." a line; with MI_TRACE_TYPE set, only the events of that
# type (test_hmm given device-coherent memory maps device-private memory
# in the same load).
mi_trace_events() {
	sed -n 's/.* memmap_init_zone_device: //p' "$MI_TRACE/trace" |
		awk -v t="$MI_TRACE_TYPE" 't == "" || index($0, " type=" t " ")'
}

# mi_trace_wait N: wait up to 10 s for N events; prints them.
mi_trace_wait() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(mi_trace_events | wc -l)" -lt "$1" ] || break
		sleep 0.1
	done
	mi_trace_events
}

# mi_trace_helpers_on: record where the multithreaded init's helpers run
# too, for mi_trace_helpers, and what they cost, for mi_trace_ns: the
# switches to and from a user task's helpers (threads named memmap_init)
# and the runtime the scheduler charges them, and the work items of a
# kernel thread's; false, saying why, when the trace instance cannot.
MI_HELPER_TASK=memmap_init
MI_HELPER_WORK=zone_device_memmap_work
MI_SWITCH_EVENT=sched/sched_switch
MI_RUNTIME_EVENT=sched/sched_stat_runtime
MI_WQ_EVENTS="workqueue/workqueue_execute_start workqueue/workqueue_execute_end"
mi_trace_helpers_on() {
	local e
	# One clock for all CPUs: mi_trace_ns takes a helper's events on one
	# CPU as before or after the markers written on another.
	if ! echo global 2>/dev/null >"$MI_TRACE/trace_clock"; then
		ktap_print_msg "cannot set the global trace clock in $MI_TRACE"
		return 1
	fi
	if ! mi_trace_follow ""; then
		ktap_print_msg "cannot filter $MI_SWITCH_EVENT and $MI_RUNTIME_EVENT in $MI_TRACE"
		return 1
	fi
	for e in $MI_SWITCH_EVENT $MI_RUNTIME_EVENT $MI_WQ_EVENTS; do
		echo 1 2>/dev/null >"$MI_TRACE/events/$e/enable" && continue
		ktap_print_msg "cannot enable $e in $MI_TRACE"
		return 1
	done
}

# mi_trace_follow PID: record the switches and the runtime of the helpers
# and, if PID is not empty, of task PID; false when a filter is refused.
mi_trace_follow() {
	local s="prev_comm == \"$MI_HELPER_TASK\" || next_comm == \"$MI_HELPER_TASK\""
	local r="comm == \"$MI_HELPER_TASK\""
	if [ -n "$1" ]; then
		s+=" || prev_pid == $1 || next_pid == $1"
		r+=" || pid == $1"
	fi
	echo "$s" 2>/dev/null >"$MI_TRACE/events/$MI_SWITCH_EVENT/filter" &&
		echo "$r" 2>/dev/null >"$MI_TRACE/events/$MI_RUNTIME_EVENT/filter"
}

# mi_trace_lost: the events the trace instance overwrote or dropped since
# it was cleared, summed over CPUs.
mi_trace_lost() {
	local f line n=0
	for f in "$MI_TRACE"/per_cpu/cpu*/stats; do
		while IFS= read -r line; do
			case "$line" in
			"overrun: "*|"dropped events: "*) n=$((n + ${line##* })) ;;
			esac
		done <"$f"
	done
	echo "$n"
}

# mi_trace_helpers: every helper that ran since the trace was cleared
# (mi_trace_helpers_on), on which CPU and at which priority: "task:PID CPU
# PRIO" for a user task's helper, once for each CPU it ran on, and
# "work:ADDRESS CPU -" for a kernel thread's.
mi_trace_helpers() {
	awk -v task="$MI_HELPER_TASK" -v work="$MI_HELPER_WORK" '
	match($0, /\[[0-9]+\]/) { cpu = substr($0, RSTART + 1, RLENGTH - 2) + 0 }
	/ sched_switch: / && index($0, "prev_comm=" task " ") {
		pid = $0; sub(/.* prev_pid=/, "", pid); sub(/ .*/, "", pid)
		prio = $0; sub(/.* prev_prio=/, "", prio); sub(/ .*/, "", prio)
		print "task:" pid, cpu, prio
	}
	/ workqueue_execute_start: / && $NF == work {
		w = $0; sub(/.* work struct /, "", w); sub(/:.*/, "", w)
		print "work:" w, cpu, "-"
	}' "$MI_TRACE/trace" | sort -u
}

# mi_trace_ns PID: "TASK THREADS WORK", the CPU time in nanoseconds that
# task PID, the helper threads and the helper work items spent between the
# trace markers mi_window_start and mi_window_end, which PID writes
# (mi_trace_follow PID).  A task's is the runtime the scheduler charged it
# (sched_stat_runtime: each event is one charge to its cgroup's cpu.stat);
# a work item's, the time from its start to its end on its CPU.  Work
# items include padata's multithreaded jobs' (padata_mt_helper), which the
# kernel's other multithreaded inits use: whatever kind of helper a kernel
# uses is counted.
mi_trace_ns() {
	awk -v pid="$1" -v task="$MI_HELPER_TASK" -v works="$MI_HELPER_WORK padata_mt_helper" '
	BEGIN { split(works, w); for (i in w) helper[w[i]] = 1 }
	function ts(   t) { t = $0; sub(/: [a-z_]+: .*/, "", t); sub(/.* /, "", t); return t * 1e9 }
	match($0, /\[[0-9]+\]/) { cpu = substr($0, RSTART + 1, RLENGTH - 2) + 0 }
	/tracing_mark_write: mi_window_start/ { open = 1; next }
	/tracing_mark_write: mi_window_end/ { open = 0; next }
	!open { next }
	/ sched_stat_runtime: / {
		p = $0; sub(/.* pid=/, "", p); sub(/ .*/, "", p)
		r = $0; sub(/.* runtime=/, "", r); sub(/ .*/, "", r)
		if (index($0, " comm=" task " pid=")) threads += r
		else if (p == pid) own += r
	}
	/ workqueue_execute_start: / && ($NF in helper) { ws[cpu] = ts() }
	/ workqueue_execute_end: / && (cpu in ws) { work += ts() - ws[cpu]; delete ws[cpu] }
	END { printf "%.0f %.0f %.0f\n", own, threads, work }' "$MI_TRACE/trace"
}

# mi_field EVENT NAME: one field of an event line.
mi_field() {
	sed -n "s/.* $2=\\([^ ]*\\).*/\\1/p" <<<" $1"
}

# mi_fields EVENT NAME...: the fields NAME... of an event line, on one line
# in that order, "-" for each one the event lacks.
mi_fields() {
	local e=$1 name v out=()
	shift
	for name; do
		v=$(mi_field "$e" "$name")
		out+=("${v:--}")
	done
	echo "${out[*]}"
}

# mi_digest DIGEST EVENTS OUT: the digests test_memmap_digest (its debugfs
# file DIGEST) gives of the ranges EVENTS report, in PFN order, into OUT.
# False, saying why, when one fails.
mi_digest() {
	local e start nr
	: >"$3"
	while IFS= read -r e; do
		read -r start nr < <(mi_fields "$e" start_pfn nr_pages)
		if ! echo "$start $nr" >"$1" 2>"$MI_TMP/digest.err"; then
			ktap_print_msg "digest of $start+$nr failed: $(cat "$MI_TMP/digest.err")"
			return 1
		fi
		cat "$1" >>"$3"
	done < <(sort -t= -k2 <<<"$2")
}

# mi_digest_complete EVENTS OUT: OUT (mi_digest's) holds one digest for
# each range EVENTS report, of as many pages in all.  False, saying what
# differs, when not.
mi_digest_complete() {
	local e nr n=0 sum=0 dn dsum
	while IFS= read -r e; do
		[ -n "$e" ] || continue
		nr=$(mi_field "$e" nr_pages)
		n=$((n + 1)) sum=$((sum + nr))
	done <<<"$1"
	read -r dn dsum < <(awk '$1 == "nr_pages" { n++; s += $2 }
		END { print n + 0, s + 0 }' "$2")
	[ "$dn $dsum" = "$n $sum" ] && return 0
	ktap_print_msg "digests of $dn range(s) and $dsum pages for events of $n and $sum"
	return 1
}

# mi_check_events EVENTS COUNT TYPE ALTMAP BACKEND: every event matches,
# and there are COUNT of them (at least -COUNT when negative).  Prints
# what is wrong; false then.
mi_check_events() {
	local events=$1 count=$2 type=$3 altmap=$4 backend=$5 n e ok=0
	n=$(grep -c . <<<"$events")
	if [ "$count" -lt 0 ] && [ "$n" -lt $((-count)) ]; then
		ktap_print_msg "expected at least $((-count)) events, got $n"
		ok=1
	elif [ "$count" -ge 0 ] && [ "$n" -ne "$count" ]; then
		ktap_print_msg "expected $count memmap_init_zone_device event(s), got $n"
		ok=1
	fi
	while IFS= read -r e; do
		[ -n "$e" ] || continue
		ktap_print_msg "event: $e"
		if [ "$(mi_field "$e" type)" != "$type" ] ||
			[ "$(mi_field "$e" altmap)" != "$altmap" ] ||
			[ "$(mi_field "$e" backend)" != "$backend" ]; then
			ktap_print_msg "expected type=$type altmap=$altmap backend=$backend"
			ok=1
		fi
	done <<<"$events"
	return $ok
}

# ---------------------------------------------------------------- what the run names

# mi_bail REASON: the run was given something it cannot use: a KTAP
# "Bail out!" with REASON, and a failed group.  Nothing has been changed.
mi_bail() {
	ktap_print_header
	echo "Bail out! $*"
	exit "$KSFT_FAIL"
}

# mi_env_check: the MEMMAP_INIT_* variables hold what they may (see the
# header); bails out otherwise.
mi_env_check() {
	local ns=${MEMMAP_INIT_NAMESPACE:-} v
	if [ -n "$ns" ] && ! [[ "$ns" =~ ^namespace[0-9]+\.[0-9]+$ ]]; then
		mi_bail "MEMMAP_INIT_NAMESPACE='$ns' is not a namespace name" \
			"such as namespace0.0 (see 'ndctl list -N')"
	fi
	v=${MEMMAP_INIT_P2PDMA:-}
	if [ -n "$v" ] && ! [[ "$v" =~ ^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$ ]]; then
		mi_bail "MEMMAP_INIT_P2PDMA='$v' is not a PCI device name" \
			"such as 0000:00:03.0 (see /sys/bus/pci/devices)"
	fi
	for v in MEMMAP_INIT_HMEM MEMMAP_INIT_CXL_DAX; do
		if [ -n "${!v:-}" ] && ! [[ "${!v}" =~ ^dax[0-9]+\.[0-9]+$ ]]; then
			mi_bail "$v='${!v}' is not a device-dax name" \
				"such as dax0.0 (see 'daxctl list')"
		fi
	done
	v=${MEMMAP_INIT_HMM_COHERENT:-}
	if [ -n "$v" ] && ! [[ "$v" =~ ^0x[0-9a-fA-F]+$ ]]; then
		mi_bail "MEMMAP_INIT_HMM_COHERENT='$v' is not a physical address" \
			"such as 0x120000000"
	fi
}

# mi_join: the lines of stdin on one line, separated by "; ".
mi_join() {
	awk 'NR > 1 { printf "; " } { printf "%s", $0 }'
}

# mi_hexdev MAJ:MIN: the device number as stat's %t:%T prints it.
mi_hexdev() {
	printf '%x:%x' "${1%%:*}" "${1#*:}"
}

# mi_blk_users BLK: what uses block device BLK (pmem0, nvme0n1) or a
# partition of it: mounted, held by another block device or claimed (an
# exclusive open fails); one finding a line.  Adds its device numbers to
# MI_DEVNUMS for mi_open_users.
mi_blk_users() {
	local blk=$1 b d h dev
	for b in "/sys/class/block/$blk" "/sys/class/block/$blk/$blk"*; do
		[ -r "$b/dev" ] || continue
		d=${b##*/}
		dev=$(cat "$b/dev")
		MI_DEVNUMS+=("$d block $(mi_hexdev "$dev")")
		awk -v dev="$dev" -v d="$d" \
			'$3 == dev { print "/dev/" d " is mounted on " $5 }' \
			/proc/self/mountinfo
		for h in "$b"/holders/*; do
			[ ! -e "$h" ] || echo "/dev/$d is held by ${h##*/}"
		done
	done
	if [ ! -b "/dev/$blk" ]; then
		echo "/dev/$blk is missing: cannot check who holds it"
	elif [ ! -x "$MI_WRITE" ]; then
		echo "$MI_WRITE is not built: cannot check who holds /dev/$blk"
	else
		b=$("$MI_WRITE" -x "/dev/$blk")
		[ "$b" = ok ] || echo "/dev/$blk cannot be claimed exclusively ($b)"
	fi
}

# mi_dax_users DAX: what uses device-dax instance DAX: online as system RAM
# (kmem), mapped by a process; one finding a line.  Adds its device number
# to MI_DEVNUMS for mi_open_users.
mi_dax_users() {
	local dax=$1 d
	d=/sys/bus/dax/devices/$dax
	[ ! -r "$d/dev" ] || MI_DEVNUMS+=("$dax character $(mi_hexdev "$(cat "$d/dev")")")
	d=$(readlink "$d/driver" 2>/dev/null)
	[ "${d##*/}" != kmem ] || echo "$dax is online as system RAM (kmem)"
	grep -l " /dev/$dax\$" /proc/[0-9]*/maps 2>/dev/null |
		sed "s|^/proc/\([0-9]*\)/maps|/dev/$dax is mapped by process \1|"
}

# mi_open_users: the processes that have a device of MI_DEVNUMS ("NAME
# block|character MAJ:MIN" in hex) open, whatever the device node's name,
# and the swap devices among them; one finding a line.
mi_open_users() {
	local d b j hex
	[ ${#MI_DEVNUMS[@]} -gt 0 ] || return 0
	for d in "${MI_DEVNUMS[@]}"; do
		read -r b j hex <<<"$d"
		# find batches the stat calls: one command line of every
		# open file of the machine can exceed ARG_MAX.
		find /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 \
			-exec stat -L -c "%t:%T %F %n" {} + 2>/dev/null |
			awk -v hex="$hex" -v t="$j" -v d="$b" '
				$1 == hex && $2 == t && split($NF, p, "/") {
					print "/dev/" d " is open in process " p[3]
				}'
	done
	# Swap, by the device number of each swap device (a kernel without
	# CONFIG_SWAP has no /proc/swaps, and no swap).
	while read -r b _; do
		[ -b "$b" ] || continue
		hex=$(stat -L -c %t:%T "$b")
		for d in "${MI_DEVNUMS[@]}"; do
			[ "${d##* }" != "$hex" ] || echo "/dev/${d%% *} is in use as swap"
		done
	done < <([ ! -r /proc/swaps ] || tail -n +2 /proc/swaps)
}

# mi_run TOOL ARGS...: run TOOL (ndctl, daxctl) quietly, showing its
# output on failure.
mi_run() {
	if ! "$@" >"$MI_TMP/$1.out" 2>&1; then
		ktap_print_msg "'$*' failed:"
		mi_indent <"$MI_TMP/$1.out"
		return 1
	fi
}

# mi_now_ns: wall-clock time in nanoseconds (microsecond resolution).
mi_now_ns() {
	local t=${EPOCHREALTIME/./}
	echo $((10#$t * 1000))
}

# ---------------------------------------------------------------- the memory a test binds

# mi_drv_rebind DRIVER DEV: unbind DEV from DRIVER (its sysfs directory)
# and bind it again, with an empty trace buffer; MI_BIND_NS is how long
# the bind took.  False, saying why, when either write fails.
mi_drv_rebind() {
	local drv=$1 dev=$2 out t0
	out=$("$MI_WRITE" "$drv/unbind" "$dev")
	if [ "$out" != ok ]; then
		ktap_print_msg "unbinding $dev from ${drv##*/}: $out"
		return 1
	fi
	[ -z "$MI_TRACE" ] || mi_trace_clear
	t0=$(mi_now_ns)
	out=$("$MI_WRITE" "$drv/bind" "$dev")
	MI_BIND_NS=$(($(mi_now_ns) - t0))
	if [ "$out" != ok ]; then
		ktap_print_msg "binding $dev to ${drv##*/}: $out"
		return 1
	fi
}

# mi_drv_restore DRIVER DEV: bind DEV (of bus directory BUS/devices) to
# DRIVER again if a test left it unbound (mi_cleanup does); false when
# that fails.
mi_drv_restore() {
	local drv=$1 dev=$2
	[ ! -e "$(dirname "$(dirname "$drv")")/devices/$dev/driver" ] || return 0
	if [ "$("$MI_WRITE" "$drv/bind" "$dev")" != ok ]; then
		ktap_print_msg "cannot bind $dev to ${drv##*/} again"
		return 1
	fi
}

# mi_devices: the memory a test may bind.  Sets have_ns (1 when
# MEMMAP_INIT_NAMESPACE names a namespace it may reconfigure: mi_ns_init,
# else MI_NS_WHY says why not) and have_hmm (1 when test_hmm can be
# loaded with a request: mi_hmm_init, else MI_HMM_WHY), have_p2p,
# have_hmem, have_cxl_dax and have_coherent (mi_p2p_init, mi_hmem_init,
# mi_cxl_dax_init and mi_coherent_init, else MI_P2P_WHY, MI_HMEM_WHY,
# MI_CXL_DAX_WHY, MI_COHERENT_WHY).
mi_devices() {
	have_ns=1
	mi_ns_init || have_ns=0
	have_hmm=1
	mi_hmm_init || have_hmm=0
	have_p2p=1
	mi_p2p_init || have_p2p=0
	have_hmem=1
	mi_hmem_init || have_hmem=0
	have_cxl_dax=1
	mi_cxl_dax_init || have_cxl_dax=0
	have_coherent=1
	mi_coherent_init || have_coherent=0
}

# mi_ns_types BODY NAMES: for each memory type of MI_NS_TYPES, set name,
# opts, type, altmap, compound (the pages of its compound pages), node
# (the namespace's node, mi_ns_node) and req (the namespace's request,
# which create-namespace's own bind follows),
# reconfigure the namespace to that type and run BODY.  NAMES prints the
# names of the tests BODY reports for the type in "name": they skip
# without a namespace (have_ns=0, MI_NS_WHY) and fail when the namespace
# cannot be configured.  Then puts the namespace back (mi_ns_reset).
mi_ns_types() {
	local body=$1 names=$2 t n
	for t in "${MI_NS_TYPES[@]}"; do
		IFS='|' read -r name opts type altmap <<<"$t"
		if [ "$have_ns" = 0 ]; then
			while IFS= read -r n; do
				mi_skip "$n" "$MI_NS_WHY"
			done < <("$names")
			continue
		fi
		compound=$(mi_compound_pages "$opts")
		node=$(mi_ns_node)
		req=$(mi_ns_request)
		mi_trace_clear
		# shellcheck disable=SC2086 # opts holds several options
		if ! mi_ns_reconfig $opts; then
			while IFS= read -r n; do
				mi_result "$n" 1 "cannot configure $MI_NS: $opts"
			done < <("$names")
			continue
		fi
		"$body"
	done
	[ "$have_ns" = 0 ] || mi_ns_reset
}

# ---------------------------------------------------------------- dmesg

# mi_prdebug_on: print memmap_init_zone_device()'s pr_debug line (dynamic
# debug).  False, with MI_PRDEBUG_WHY set, when that is impossible.
mi_prdebug_on() {
	local c
	MI_PRDEBUG_WHY=
	for c in /proc/dynamic_debug/control /sys/kernel/debug/dynamic_debug/control; do
		if [ -w "$c" ]; then MI_DYNDBG=$c; break; fi
	done
	if [ -z "$MI_DYNDBG" ]; then
		MI_PRDEBUG_WHY="no dynamic debug control (CONFIG_DYNAMIC_DEBUG)"
		return 1
	fi
	if ! echo 'func memmap_init_zone_device +p' >"$MI_DYNDBG" 2>/dev/null; then
		MI_PRDEBUG_WHY="dynamic debug has no pr_debug in memmap_init_zone_device()"
		MI_DYNDBG=
		return 1
	fi
}

mi_prdebug_off() {
	[ -z "$MI_DYNDBG" ] || echo 'func memmap_init_zone_device -p' >"$MI_DYNDBG" 2>/dev/null
	MI_DYNDBG=
}

# mi_prdebug_lines TEXT: "NR_PAGES BACKEND THREADS NID" of each pr_debug
# line since the marker TEXT, sorted.  The line reads
# "memmap_init_zone_device initialised N pages in Mms (BACKEND) on T
# thread(s) of node NID"; a line without them is not counted.
mi_prdebug_lines() {
	mi_dmesg_since "$1" |
		sed -n -e 's/.*memmap_init_zone_device initialised //' \
			-e 's/ pages in [0-9]*ms (\([a-z+]*\)) on \([0-9]*\) thread(s)/ \1 \2/' \
			-e 's/ of node \([0-9-]*\)$/ \1/' \
			-e '/^[0-9]* [a-z+]* [0-9]* [0-9-]*$/p' |
		sort
}

# mi_kmsg_mark TEXT: put a marker in the kernel log.
mi_kmsg_mark() {
	echo "memmap_init: $*" >/dev/kmsg 2>/dev/null
}

# mi_log_clean MARK DESC: one result, DESC, that the kernel log since
# mi_kmsg_mark MARK holds no report (MI_REPORTS: warnings, BUGs, lockdep,
# poisoned pages).
mi_log_clean() {
	local reports
	reports=$(mi_dmesg_since "$1" | grep -E "$MI_REPORTS")
	[ -z "$reports" ]
	mi_result "$2" $? "the kernel log has: $(head -n 5 <<<"$reports")"
}

# mi_dmesg_since TEXT: the kernel log after the last marker TEXT.
mi_dmesg_since() {
	dmesg | awk -v m="memmap_init: $1" '
		index($0, m) { buf = ""; next }
		{ buf = buf $0 "\n" }
		END { printf "%s", buf }'
}

# ---------------------------------------------------------------- kinds of memory

# The helpers of each kind of memory.
# shellcheck source=memmap_lib_nvdimm.sh
. "$MI_DIR/memmap_lib_nvdimm.sh"
# shellcheck source=memmap_lib_hmm.sh
. "$MI_DIR/memmap_lib_hmm.sh"
# shellcheck source=memmap_lib_p2pdma.sh
. "$MI_DIR/memmap_lib_p2pdma.sh"
# shellcheck source=memmap_lib_hmem.sh
. "$MI_DIR/memmap_lib_hmem.sh"
# shellcheck source=memmap_lib_threads.sh
. "$MI_DIR/memmap_lib_threads.sh"
