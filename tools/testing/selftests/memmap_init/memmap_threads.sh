#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where and on how many threads memmap_init_zone_device() runs, and that
# the chunks it splits a range into never split a compound page.  Nothing
# steers the threads but the binding task's limits and the machine, so
# the tests bind under such limits (mi_limited in memmap_lib.sh) and
# check the trace event's threads and nid against mi_threads_expected.
#
# Every bind also records where the helpers ran (mi_trace_helpers: a user
# task's helper threads, a kernel thread's work items): only on
# housekeeping CPUs of the node that the task running the init may use.
#
# With the namespace (MEMMAP_INIT_NAMESPACE), reconfigured fsdax map=mem.
# libnvdimm binds a namespace in its own worker, not in the task that
# enables it, so that task's CPUs and nice value do not apply; the
# unbound workqueues' cpumask (/sys/devices/virtual/workqueue/cpumask),
# the control the admin guide names, does:
#   - with the unbound workqueues on the first CPU, a bind runs on one
#     thread and no helper;
#   - enabled from a task in a cpuset of the first CPU (a cgroup v2
#     cpuset; the task's affinity without one), the bind runs in a kernel
#     worker, with its helpers where that worker may run;
#   - without limits, a bind runs on at least one thread and never on
#     more than the node's housekeeping CPUs and the range allow (one
#     bind; whether a helper started before the calling thread took
#     every chunk is a diagnostic, not a result), and reports the
#     namespace's node, also when its helpers ran on the nearest node
#     with CPUs;
#   - devdax aligned to the PUD size (1G with 4 KiB pages): a bind on
#     several threads writes the same struct pages as one on one CPU
#     (test_modules/test_memmap_digest.ko), when the namespace holds
#     three such folios or more and its region offers the alignment:
#     chunk boundaries must fall on multiples of the folio, a boundary
#     inside one would write a tail as a head;
#   - devdax map=mem aligned to the PMD size (2M with 4 KiB pages), whose
#     folios' tails share vmemmap pages so that a chunk maps more pages
#     than it writes: several threads write the same struct pages as
#     one, when the namespace holds two such chunks.
# With device-private memory mapped by test_modules/test_memmap_pgmap.ko,
# whose memmap init runs in the task that writes the request:
#   - from a task with nice 10: its helpers are threads of its process,
#     at nice 10 (priority 130);
#   - from a SCHED_FIFO task: no helper, one thread;
#   - from a cgroup at its pids.max: no helper can be created, the bind
#     runs on one thread and the cgroup's pids.events counts the refusal;
#   - from a cgroup whose cpu.max is one and a half CPUs: no helper, one
#     thread (a task in the kernel is not throttled, so a second thread
#     would run beyond the quota);
#   - from a cgroup whose cpu.max is two CPUs: helpers run, and the
#     cgroup's cpu.stat usage covers the CPU time of the binding task and
#     its helpers (the trace, mi_trace_ns), less 1 ms: a helper outside
#     the cgroup would leave it short;
#   - while the last housekeeping CPU of the node goes offline and online
#     again, binds from a task allowed on it and on the first: helpers only
#     on those two CPUs, and the struct pages equal to a bind's on one CPU;
#   - memory of each online node, from a task allowed on the first CPU
#     only: one thread, and nid is that node, not the first CPU's;
#   - 4 GiB of pages of the node with the most housekeeping CPUs: several
#     threads write the same struct pages as one (4 GiB, 16 chunks: the
#     binding thread initializes 1 GiB of device-private pages in about
#     3 ms under TCG, before a helper on another vCPU may even start);
#   - 4 GiB of pages of each node, from a task in a cpuset of each node's
#     CPUs in turn, from one without limits and from one on an isolated
#     CPU: the helpers run only on the memory's node's housekeeping CPUs
#     in the cpuset (a task confined to one node gets no helper for
#     another node's memory, one on an isolated CPU none);
#   - the same node, from a task on its first housekeeping CPU and allowed
#     on the second, while another task keeps the second busy, first at
#     nice 0, then as a SCHED_FIFO task (which lets a nice-0 worker run
#     there only when the fair server does, 50 ms a second): three binds
#     each, none slower than twice a bind from the first CPU alone under
#     the same load, plus 20 ms, unless every helper that ran took chunks
#     (a SCHED_FIFO task may stop one in the middle of a chunk): a helper
#     that finds every chunk taken exits at once;
#   - 4 GiB of the same node from a child process, once
#     test_modules/test_memmap_hold.ko holds one of its helpers at the
#     start of a chunk, so that the bind cannot end first: the process
#     stopped (SIGSTOP), its cgroup frozen, the process killed (SIGKILL),
#     the helper attached by a tracer (PTRACE_ATTACH), and
#     (memmap_helper_ops) an exec from another thread of the binding
#     process: each reaches the held helper (the module says which let it
#     go), the stop and the freeze complete with no helper left, the
#     helper exits without stopping for its tracer, the exec completes,
#     and every bind writes the struct pages of a bind on one CPU;
#   - a request the module must refuse (a size of 0 or not a multiple of
#     the folio, an offset not a multiple of 2 MiB or past the folio, a
#     node that is not online, an order too large, sizes that overflow,
#     words that are not numbers, a line too long; a second mapping while
#     one exists) fails with its errno, and nothing is mapped or bound,
#     and the kernel reports nothing.
# Last, the kernel log of all these binds holds no report (MI_REPORTS).
#
# Every case runs on a machine of one node and 2 CPUs; the node cases
# need a NUMA machine: a node with two CPUs, one with three of which
# isolcpus= sets one apart, and a memory-only node nearest to the second,
# with a large NVDIMM on the second node.

# shellcheck disable=SC2317 # run indirectly: mi_cleanup_hook
# shellcheck source=memmap_lib.sh
. "$(dirname "$0")/memmap_lib.sh"

DIGEST_KO=$MI_DIR/test_modules/test_memmap_digest.ko
DIGEST=/sys/kernel/debug/test_memmap_digest
PGMAP_KO=$MI_DIR/test_modules/test_memmap_pgmap.ko
PGMAP=/sys/kernel/debug/test_memmap_pgmap
HOLD_KO=$MI_DIR/test_modules/test_memmap_hold.ko
HOLD=/sys/kernel/debug/test_memmap_hold
HELPER_OPS=$MI_DIR/memmap_helper_ops

mi_init
mi_trace_need
mi_trace_helpers_on || mi_skip_all "cannot trace where the helpers run"
mi_load_config ||
	mi_skip_all "kernel configuration unknown (no /proc/config.gz): no expected backend"
mi_debugfs || mi_skip_all "no debugfs at /sys/kernel/debug (CONFIG_DEBUG_FS)"
mi_devices
mi_cpus_init
ONE_CPU=$(mi_cpulist "$(cat /sys/devices/system/cpu/online)" | head -n 1)

loaded=
hog=
offline=
frozen=
sigcg=
mi_cleanup_hook() {
	[ -z "$frozen" ] || echo 0 2>/dev/null >"$frozen/cgroup.freeze"
	if [ -n "$hog" ]; then
		kill "$hog" 2>/dev/null
		kill -CONT "$hog" 2>/dev/null
		# pv_hotplug's toggler (a killable shell): its last write must
		# end before the CPU is put back.
		[ -z "$offline" ] || wait "$hog" 2>/dev/null
	fi
	[ -z "$sigcg" ] || rmdir "$sigcg" 2>/dev/null
	[ -z "$offline" ] || echo 1 2>/dev/null >"$offline"
	[ ! -w "$HOLD" ] || echo disarm >"$HOLD" 2>/dev/null
	[ ! -w "$PGMAP" ] || echo unmap >"$PGMAP" 2>/dev/null
	for m in $loaded; do rmmod "$m" 2>/dev/null; done
}
# load NAME KO FILE: load the test module unless FILE exists; false, with
# why set, when it cannot be.
load() {
	[ ! -e "$3" ] || return 0
	if [ ! -f "$2" ]; then
		why="$2 not built (needs KDIR at build time)"
		return 1
	fi
	if ! insmod "$2" 2>"$MI_TMP/insmod.out"; then
		why="cannot load $2: $(cat "$MI_TMP/insmod.out")"
		return 1
	fi
	loaded+=" $1"
	[ -e "$3" ] || { why="$3 missing after loading $2"; return 1; }
}
why=
have_digest=1
load test_memmap_digest "$DIGEST_KO" "$DIGEST" || have_digest=0
digest_why=$why
why=
have_pgmap=1
load test_memmap_pgmap "$PGMAP_KO" "$PGMAP" || have_pgmap=0
pgmap_why=$why
why=
have_hold=1
load test_memmap_hold "$HOLD_KO" "$HOLD" || have_hold=0
hold_why=$why
if [ "$have_pgmap" = 1 ] && ! mi_config DEVICE_PRIVATE; then
	have_pgmap=0
	pgmap_why="kernel built without CONFIG_DEVICE_PRIVATE"
fi

NS_ONE="fsdax map=mem: with the unbound workqueues on one CPU a bind runs on one thread"
NS_MANY="fsdax map=mem: a bind runs on the threads its node allows, nid its node"
# The PUD size: a page of 8-byte entries above the PMD.
PUD_SIZE=$((MI_PMD_SIZE * MI_PAGE_SIZE / 8))
ALIGN_PUD=$(mi_size_name "$PUD_SIZE")
NS_1G="devdax align=$ALIGN_PUD: several threads write the same struct pages as one"
NS_MEM2M="devdax map=mem align=$MI_ALIGN_PMD: several threads write the same struct pages as one"
PV_NICE="device-private from a task with nice 10: its helpers run at nice 10"
PV_RT="device-private from a SCHED_FIFO task: one thread, no helper"
PV_PIDS="device-private from a cgroup at its pids.max: one thread, the helpers refused"
PV_CPUMAX1="device-private from a cgroup of cpu.max 1.5 CPUs: one thread, no helper"
PV_CPUMAX="device-private from a cgroup of cpu.max two CPUs: its usage covers every thread"
PV_HOTPLUG="device-private while a CPU goes offline and online: helpers where allowed, same pages"
PV_NODES="device-private of each node, from the first CPU: one thread, nid that node"
PV_SMALL="device-private, 4 GiB of pages: several threads write the same struct pages as one"
PV_BAD="test_memmap_pgmap refuses a bad request and maps nothing"
PV_PLACE="device-private of each node, from a cpuset of each node: helpers only there"
PV_WAIT="device-private with a busy CPU: the bind waits for no helper that has not started"
PV_STOP="device-private, its task stopped mid-bind: it stops, no helper left, same pages"
PV_FREEZE="device-private, its cgroup frozen mid-bind: it freezes, no helper left, same pages"
PV_KILL="device-private, its task killed mid-bind: it dies, same pages"
PV_PTRACE="device-private, a helper ptrace-attached mid-bind: it exits unstopped, same pages"
PV_EXEC="device-private, an exec from another thread mid-bind: it waits, same pages"
NS_ASYNC="fsdax map=mem enabled from a cpuset: helpers only where the binding kworker may run"
LOG="kernel log clean after the binds"

ktap_print_header
ktap_set_plan 22
ktap_print_msg "$MI_CPUS online CPU(s); housekeeping CPUs by node:" \
	"$(for n in "${!MI_NODE_HK[@]}"; do printf ' %s:%s' "$n" "${MI_NODE_HK[$n]}"; done)"
if ! mi_threads_known; then
	for t in "$NS_ONE" "$NS_MANY" "$NS_1G" "$NS_MEM2M" "$PV_NICE" "$PV_RT" "$PV_PIDS" \
		"$PV_CPUMAX1" "$PV_CPUMAX" "$PV_HOTPLUG" "$PV_NODES" "$PV_SMALL" "$PV_BAD" \
		"$PV_PLACE" "$PV_WAIT" "$PV_STOP" "$PV_FREEZE" "$PV_KILL" "$PV_PTRACE" "$PV_EXEC" \
		"$NS_ASYNC" "$LOG"; do
		mi_skip "$t" "$(mi_threads_known_why)"
	done
	mi_finished
fi
mi_kmsg_mark "threads start"

# bound LIMIT BIND...: run BIND from a task under LIMIT with an empty trace
# buffer; events holds the events it caused.
bound() {
	local lim=$1
	shift
	mi_trace_clear
	mi_limited "$lim" "$@" || return 1
	events=$(mi_trace_wait 1)
	[ -n "$events" ] || { ktap_print_msg "no memmap_init_zone_device event"; return 1; }
	# The task that ran the init: the trace line's comm-pid.
	task=$(sed -n 's/^ *\(.*[^ ]\) *\[[0-9]*\] .* memmap_init_zone_device: .*/\1/p' \
		"$MI_TRACE/trace" | head -n 1)
	helpers=$(mi_trace_helpers)
	ktap_print_msg "event (${task:-task unknown}): ${events//$'\n'/; event: }" \
		"helpers on CPU(s): $(helper_cpus | tr '\n' ' ')"
}

# helper_cpus: the CPUs the helpers of the last bind ran on, one a line.
helper_cpus() {
	[ -z "$helpers" ] || cut -d' ' -f2 <<<"$helpers" | sort -un
}

# placed NODE LIMIT: the helpers of the last bind ran only on CPUs where
# a task under LIMIT may run helpers for memory of NODE; prints what is
# wrong.
placed() {
	local ok c want
	ok=$(mi_helper_cpus_allowed "$(mi_cpu_node "$1")" "$2" | tr '\n' ' ')
	for c in $(helper_cpus); do
		[[ " $ok" == *" $c "* ]] ||
			want+=" $c"
	done
	if [ -n "$want" ]; then
		ktap_print_msg "helper(s) on CPU(s)$want, outside the allowed ${ok:-(none)}"
		return 1
	fi
}


# expect LIMIT: the events are what mi_threads_expected allows for a task
# under LIMIT (compound and node set by the caller); prints what is not.
expect() {
	local bad
	bad=$(mi_threads_check "$events" "$compound" "$node" "$1")
	[ -z "$bad" ] || { ktap_print_msg "$bad"; return 1; }
}

# most: the most threads any event reports.
most() {
	local e t m=0
	while IFS= read -r e; do
		t=$(mi_field "$e" threads)
		[[ "$t" =~ ^[0-9]+$ ]] && [ "$t" -gt "$m" ] && m=$t
	done <<<"$events"
	echo "$m"
}

# possible: "MOST WHY": the most threads mi_threads_expected allows for
# the events to a task without limits, and its reason.
possible() {
	local e nr start altmap hi w m=0 why=
	while IFS= read -r e; do
		read -r nr start altmap < <(mi_fields "$e" nr_pages start_pfn altmap)
		read -r _ hi _ w < <(mi_threads_expected "$nr" $((start)) "$compound" \
			"$altmap" "$node" "")
		[ "$hi" -le "$m" ] || m=$hi why=$w
		[ -n "$why" ] || why=$w
	done <<<"$events"
	echo "$m $why"
}

# digest OUT: the digests of the events' ranges into OUT.
digest() {
	mi_digest "$DIGEST" "$events" "$1" || return 1
	mi_digest_complete "$events" "$1" || return 1
	if awk '$1 == "poisoned" && $2 != 0 { bad = 1 } END { exit !bad }' "$1"; then
		ktap_print_msg "struct pages still poisoned: never written"
		return 1
	fi
}

# same_as_one DESC UNBIND BIND...: bind on one CPU (wq=) and digest
# (the reference), then once without limits, digest and compare.  Skips
# when the range can only run on one thread here.
same_as_one() {
	local desc=$1 unbind=$2 n p
	shift 2
	if [ "$have_digest" = 0 ]; then
		mi_skip "$desc" "$digest_why"
		return
	fi
	if ! bound "wq=$ONE_CPU" "$@" || ! expect "wq=$ONE_CPU" ||
		! digest "$MI_TMP/ref"; then
		"$unbind"
		mi_result "$desc" 1 "no reference from a bind on one CPU"
		return
	fi
	"$unbind"
	if ! bound "" "$@" || ! expect ""; then
		"$unbind"
		mi_result "$desc" 1 "the bind without limits failed"
		return
	fi
	n=$(most)
	read -r p why < <(possible)
	if [ "$p" -lt 2 ]; then
		"$unbind"
		mi_skip "$desc" "the range can only run on one thread here: $why"
		return
	fi
	# One bind: whether a helper started before the binding thread took
	# every chunk is the scheduler's to decide, not a promise of the
	# kernel; the struct pages must match either way.
	[ "$n" -ge 2 ] ||
		ktap_print_msg "$desc: ran on $n thread(s), $p possible:" \
			"no helper started in time"
	if ! digest "$MI_TMP/many"; then
		"$unbind"
		mi_result "$desc" 1 "no digest of the bind on $n threads"
		return
	fi
	"$unbind"
	if cmp -s "$MI_TMP/ref" "$MI_TMP/many"; then
		ktap_print_msg "$desc: $n threads, digests match"
		ktap_test_pass "$desc"
	else
		ktap_print_msg "$desc: digests differ (one CPU | $n threads):"
		paste -d'|' "$MI_TMP/ref" "$MI_TMP/many" | awk -F'|' '$1 != $2' | mi_indent
		ktap_test_fail "$desc"
	fi
}

# --- the namespace ----------------------------------------------------------

ns_unbind() { mi_ns_disable; }
ns_bind() { mi_ns_enable; }

# ns_align_ok BYTES: the region of the namespace can make a device-dax of
# that alignment (its dax seed's supported_alignments).
ns_align_ok() {
	local r seed
	r=$(dirname "$(readlink -f "/sys/bus/nd/devices/$MI_NS")")
	seed=$(cat "$r/dax_seed" 2>/dev/null) || return 1
	grep -qw -- "$1" "/sys/bus/nd/devices/$seed/supported_alignments" 2>/dev/null
}

if [ "$have_ns" = 0 ]; then
	for t in "$NS_ONE" "$NS_MANY" "$NS_ASYNC" "$NS_1G" "$NS_MEM2M"; do
		mi_skip "$t" "$MI_NS_WHY"
	done
elif ! mi_ns_reconfig --mode=fsdax --map=mem; then
	for t in "$NS_ONE" "$NS_MANY" "$NS_ASYNC" "$NS_1G" "$NS_MEM2M"; do
		mi_result "$t" 1 "cannot configure $MI_NS as fsdax map=mem"
	done
else
	compound=1
	node=$(mi_ns_node)
	ktap_print_msg "$MI_NS: memory of node $node"
	# Where libnvdimm's kworker, and so its helpers, may run.
	wq=$(mi_cpumask_list "$(cat "$MI_WQ_CPUMASK" 2>/dev/null)")

	mi_ns_disable
	ok=0
	if ! bound "wq=$ONE_CPU" ns_bind || ! expect "wq=$ONE_CPU" ||
		[ "$(most)" != 1 ] || ! placed "$node" "wq=$ONE_CPU"; then
		ok=1
	fi
	mi_result "$NS_ONE" $ok

	mi_ns_disable
	ok=1 n=0 p=0 why=
	if bound "" ns_bind && expect "" && placed "$node" "cpu=$wq"; then
		n=$(most)
		read -r p why < <(possible)
		# At least one thread, never more than the CPUs the bind may
		# use; whether a helper started in time is a diagnostic.
		[ "$n" -ge 1 ] && [ "$n" -le "$p" ] && ok=0
		[ "$n" -ge 2 ] || [ "$p" -lt 2 ] ||
			ktap_print_msg "$NS_MANY: ran on $n thread(s)," \
				"up to $p possible: no helper started in time"
	fi
	if [ "$ok" = 0 ] && [ "$p" -lt 2 ]; then
		mi_skip "$NS_MANY" "the range can only run on one thread here: $why"
	else
		mi_result "$NS_MANY" $ok "ran on $n thread(s), $p possible"
	fi

	# The administrator's cpuset does not reach libnvdimm's worker: the
	# helpers run where that worker may, as without limits.
	mi_ns_disable
	lim=cpuset=$ONE_CPU
	mi_cpuset_usable >/dev/null || lim=cpu=$ONE_CPU
	ok=1
	if bound "$lim" ns_bind; then
		ktap_print_msg "$NS_ASYNC: enabled under $lim, ran in ${task:-?}"
		case "$task" in
		kworker/*) want=cpu=$wq ;;
		*) want=$lim ;;
		esac
		expect "${want/cpuset=/cpu=}" && placed "$node" "${want/cpuset=/cpu=}" && ok=0
	fi
	mi_result "$NS_ASYNC" $ok

	# Three PUD folios need the namespace to hold four: the data starts
	# at the first PUD boundary after the memmap.
	# From sysfs: ndctl list leaves out a namespace a failed test left
	# disabled.
	size=$(cat "/sys/bus/nd/devices/$MI_NS/size" 2>/dev/null)
	if [ "${size:-0}" -lt $((4 * PUD_SIZE)) ]; then
		why="$MI_NS holds ${size:-0} bytes; three $ALIGN_PUD folios need a namespace"
		mi_skip "$NS_1G" "$why of $((4 * PUD_SIZE >> 30)) GiB or more"
	elif ! ns_align_ok "$PUD_SIZE"; then
		why="the region of $MI_NS offers no devdax alignment of $ALIGN_PUD"
		mi_skip "$NS_1G" "$why (supported_alignments)"
	elif ! mi_ns_reconfig --mode=devdax --map=dev --align="$ALIGN_PUD"; then
		mi_result "$NS_1G" 1 "cannot configure $MI_NS as devdax align=$ALIGN_PUD"
	else
		compound=$((PUD_SIZE / MI_PAGE_SIZE))
		mi_ns_disable
		same_as_one "$NS_1G" mi_ns_disable ns_bind
	fi

	# Two chunks of PMD folios whose tails share vmemmap pages (2 GiB
	# with 4 KiB pages: mi_threads_chunk), and map=mem puts no memmap in
	# front.
	compound=$((MI_PMD_SIZE / MI_PAGE_SIZE))
	read -r chunk _ < <(mi_threads_chunk "$compound" 0)
	if [ "${size:-0}" -le $((2 * chunk * MI_PAGE_SIZE)) ]; then
		why="$MI_NS holds ${size:-0} bytes; two chunks of $chunk pages need"
		mi_skip "$NS_MEM2M" "$why more than $(mi_size_name $((2 * chunk * MI_PAGE_SIZE)))"
	elif ! ns_align_ok "$MI_PMD_SIZE"; then
		why="the region of $MI_NS offers no devdax alignment of $MI_ALIGN_PMD"
		mi_skip "$NS_MEM2M" "$why (supported_alignments)"
	elif ! mi_ns_reconfig --mode=devdax --map=mem --align="$MI_ALIGN_PMD"; then
		why="cannot configure $MI_NS as devdax map=mem"
		mi_result "$NS_MEM2M" 1 "$why align=$MI_ALIGN_PMD"
	else
		mi_ns_disable
		same_as_one "$NS_MEM2M" mi_ns_disable ns_bind
	fi
	mi_ns_reset
fi

# --- device-private memory of any shape -----------------------------------

# pv_map SIZE_MB NID ORDER OFFSET_MB: map device-private memory.
pv_map() {
	echo "$1 $2 $3 $4" >"$PGMAP" 2>"$MI_TMP/pgmap.err" || {
		ktap_print_msg "mapping '$1 $2 $3 $4' failed: $(cat "$MI_TMP/pgmap.err")"
		return 1
	}
}
pv_unmap() { echo unmap >"$PGMAP"; }

# pv_refused ERRNO REQUEST: writing REQUEST fails with ERRNO (its strerror
# text), and the mapping the file reads back is still $want (pv_bad's);
# prints what went wrong.
pv_refused() {
	local errno=$1 req=$2 err now
	if echo "$req" 2>"$MI_TMP/pgmap.err" >"$PGMAP"; then
		ktap_print_msg "'$req' was accepted"
		return 1
	fi
	err=$(cat "$MI_TMP/pgmap.err")
	now=$(cat "$PGMAP")
	if [[ "$err" != *"$errno"* ]]; then
		ktap_print_msg "'$req' failed with '$err', not '$errno'"
		return 1
	fi
	if [ "$now" != "$want" ]; then
		ktap_print_msg "after '$req' the module reads '$now', not '$want'"
		return 1
	fi
}

# pv_bad: every bad request fails with its errno and maps nothing: no
# memmap init runs, the mapping (none, or the one already there) stays,
# and the kernel reports nothing (a request that reached memory hotplug
# before failing would WARN there).
pv_bad() {
	local n ok=0 r max=0 long reports want
	for n in $(mi_nodes); do [ "$n" -le "$max" ] || max=$n; done
	long=$(printf '%080d' 2)
	mi_trace_clear
	mi_kmsg_mark "bad pgmap requests"
	want=none
	for r in "0 $node 0 0" "3 $node 9 0" "4 $node 9 1" "4 $node 9 2" \
		"2 $((max + 1)) 0 0" "2 -1 0 0" "2 $node 4096 0" \
		"17592186044416 $node 0 0" "18446744073709551615 $node 0 0" \
		"2 $node 9 18446744073709551614" "two $node 0 0" "2 $node 0" \
		"$long $node 0 0" "unmapped"; do
		pv_refused "Invalid argument" "$r" || ok=1
	done
	if pv_map 2 "$node" 0 0; then
		want=$(cat "$PGMAP")
		pv_refused "Device or resource busy" "2 $node 0 0" || ok=1
		pv_unmap
		mi_trace_wait 1 >/dev/null
	else
		ok=1
	fi
	# Only the good mapping may have run memmap init.
	n=$(grep -c 'memmap_init_zone_device:' "$MI_TRACE/trace")
	if [ "${n:-0}" -ne 1 ]; then
		ktap_print_msg "$n memmap inits ran, want 1 (the good mapping's)"
		ok=1
	fi
	[ "$(cat "$PGMAP")" = none ] || { ktap_print_msg "still mapped after unmap"; ok=1; }
	reports=$(mi_dmesg_since "bad pgmap requests" | grep -E "$MI_REPORTS")
	if [ -n "$reports" ]; then
		ktap_print_msg "the kernel log has: $(head -n 3 <<<"$reports")"
		ok=1
	fi
	mi_result "$PV_BAD" $ok
}

# pv_place: memory of each node, bound from a cpuset of each node's CPUs,
# from a task without limits (the task's affinity where there is no cgroup
# v2 cpuset controller) and from a task on an isolated CPU (isolcpus=),
# which gets no helper.
pv_place() {
	local n k lim cpus ok=0 kind=cpuset iso
	if ! mi_cpuset_usable >/dev/null; then
		kind=cpu
		ktap_print_msg "$PV_PLACE: no cgroup v2 cpuset controller: taskset instead"
	fi
	compound=1
	iso=$(mi_cpulist "$(cat /sys/devices/system/cpu/isolated 2>/dev/null)" | head -n 1)
	for n in $(mi_nodes); do
		node=$n
		for k in - $(mi_nodes) ${iso:+iso}; do
			lim=
			if [ "$k" = iso ]; then
				lim=cpu=$iso
			elif [ "$k" != - ]; then
				cpus=$(cat "/sys/devices/system/node/node$k/cpulist" 2>/dev/null)
				[ -n "$cpus" ] || continue
				lim=$kind=$cpus
			fi
			if bound "$lim" pv_map 4096 "$n" 0 0 && expect "${lim/cpuset=/cpu=}" &&
				placed "$n" "${lim/cpuset=/cpu=}"; then
				:
			else
				ktap_print_msg "memory of node $n, bound under '${lim:-no limit}'"
				ok=1
			fi
			pv_unmap
		done
	done
	mi_result "$PV_PLACE" $ok
}

# hogged KIND B: start a task that keeps CPU B busy, at nice 0 (KIND
# other) or as SCHED_FIFO (fifo), for at most a minute; sets hog.  False,
# saying why, when it does not run so within a second.
hogged() {
	local run=(taskset -c "$2") want=0 i st
	[ "$1" = other ] || run+=(chrt -f 1) want=1
	# shellcheck disable=SC2016 # the loop's own $SECONDS
	"${run[@]}" bash -c 'while [ "$SECONDS" -lt 60 ]; do :; done' &
	hog=$!
	# Its CPU and scheduling policy (fields 39 and 41 of stat), once the
	# loop runs.
	for ((i = 0; i < 20; i++)); do
		st=$(mi_stat "$hog")
		read -r -a st <<<"$st"
		[ "${st[36]:-}" = "$2" ] && [ "${st[38]:-}" = "$want" ] && return 0
		sleep 0.05
	done
	ktap_print_msg "cannot keep CPU $2 busy with a $1 task"
	return 1
}

# pv_wait: binds from CPU A, allowed on B too, while B is busy, against a
# bind from A alone under the same load (D1).  A bind that takes more than
# twice D1 plus 20 ms must owe it to helpers that ran chunks, never to one
# that ran none (the bind waited for a helper with nothing to do); with a
# nice-0 task on B no bind may take that long at all.  With a SCHED_FIFO
# task on B a helper runs there only when the fair server lets it, 50 ms
# a second, and one it stops in the middle of a chunk holds the bind until
# its next turn or until A is free to take it: a chunk taken is not given
# back, which the admin guide says.
pv_wait() {
	local a b kind d1 t1 t2 th nh self ok=0 cn i bound
	cn=$(mi_cpu_node "$node")
	read -r a b _ <<<"${MI_NODE_HK_CPUS[$cn]:-}"
	if [ -z "$b" ]; then
		mi_skip "$PV_WAIT" "node $cn has fewer than two housekeeping CPUs"
		return
	fi
	if ! command -v chrt >/dev/null; then
		mi_skip "$PV_WAIT" "no chrt command (util-linux)"
		return
	fi
	self=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$BASHPID/status")
	compound=1
	for kind in other fifo; do
		d1=
		if ! hogged "$kind" "$b"; then
			ok=1
			kill "$hog" 2>/dev/null
			continue
		fi
		# This shell starts on A, and stays there: B is busy.
		taskset -pc "$a" "$BASHPID" >/dev/null
		if bound "cpu=$a" pv_map 4096 "$node" 0 0 && expect "cpu=$a"; then
			d1=$(mi_field "$events" duration_ns)
			t1=$(most)
		fi
		pv_unmap
		if [ -z "$d1" ]; then
			ktap_print_msg "CPU $b busy ($kind): no bind from CPU $a alone"
			ok=1
		else
			bound=$((2 * d1 + 20000000))
			ktap_print_msg "CPU $b busy ($kind): from CPU $a alone" \
				"$((d1 / 1000)) us on $t1 thread(s); bound $((bound / 1000)) us"
		fi
		for i in 1 2 3; do
			if [ -n "$d1" ] && bound "cpu=$a,$b" pv_map 4096 "$node" 0 0 &&
				expect "cpu=$a,$b" && placed "$node" "cpu=$a,$b"; then
				t2=$(mi_field "$events" duration_ns)
				th=$(most)
				nh=$(cut -d' ' -f1 <<<"$helpers" | sort -u | grep -c .)
				if [ "$t2" -gt "$bound" ] &&
					{ [ "$kind" = other ] || [ "$nh" -ge "$th" ]; }; then
					ktap_print_msg "CPU $b busy ($kind), bind $i:" \
						"$((t2 / 1000)) us, over the bound, on $th" \
						"thread(s) with $nh helper(s) run: it waited"
					ok=1
				fi
			elif [ -n "$d1" ]; then
				ok=1
			fi
			pv_unmap
		done
		kill "$hog" 2>/dev/null
		wait "$hog" 2>/dev/null
		hog=
		taskset -pc "$self" "$BASHPID" >/dev/null
	done
	mi_result "$PV_WAIT" $ok
}

# pv_nice: from a task with nice 10, every helper of a bind that has room
# for two threads is a thread at priority 130 (nice 10), as the task.
pv_nice() {
	local p bad
	if ! bound nice=10 pv_map 4096 "$node" 0 0 || ! expect nice=10; then
		pv_unmap
		mi_result "$PV_NICE" 1
		return
	fi
	pv_unmap
	read -r p why < <(possible)
	if [ "$p" -lt 2 ]; then
		mi_skip "$PV_NICE" "the range can only run on one thread here: $why"
		return
	fi
	bad=$(awk '$1 !~ /^task:/ || $3 != 130' <<<"$helpers")
	if [ -z "$helpers" ]; then
		mi_result "$PV_NICE" 1 "no helper thread for a bind with room for $p"
	else
		mi_result "$PV_NICE" "$([ -z "$bad" ]; echo $?)" \
			"helpers not threads at priority 130: $(tr '\n' ';' <<<"$bad")"
	fi
}

# pv_limited DESC LIMIT WHY BIND: map 4 GiB of device-private memory of
# $node with BIND (pv_map or a function around it) from a task under
# LIMIT, unmap it, and set p and why to the most threads the range allows
# a task without limits (possible).  False once DESC is reported: failed
# with WHY when the bind failed, skipped when the range allows one thread.
pv_limited() {
	if ! bound "$2" "$4" 4096 "$node" 0 0; then
		pv_unmap
		mi_result "$1" 1 "$3"
		return 1
	fi
	pv_unmap
	read -r p why < <(possible)
	if [ "$p" -lt 2 ]; then
		mi_skip "$1" "the range can only run on one thread here: $why"
		return 1
	fi
}

# pv_alone TEST LIMIT FROM: a bind from a task under LIMIT (FROM, as the
# failure names it), for a range with room for several threads, runs on
# its own thread: no helper thread starts.
pv_alone() {
	local p why lost
	pv_limited "$1" "$2" "no bind $3" pv_map || return
	lost=$(mi_trace_lost)
	if [ "$lost" != 0 ]; then
		mi_result "$1" 1 "the trace lost $lost events: a helper may have run unseen"
	elif [ -n "$helpers" ]; then
		mi_result "$1" 1 "helper(s) ran: $(tr '\n' ';' <<<"$helpers")"
	else
		expect "$2"
		mi_result "$1" $?
	fi
}

# pv_rt: a real-time task's bind runs on its own thread.
pv_rt() {
	if ! command -v chrt >/dev/null; then
		mi_skip "$PV_RT" "no chrt command (util-linux)"
		return
	fi
	pv_alone "$PV_RT" fifo=1 "from a SCHED_FIFO task"
}

# pv_map_refused ARGS...: pv_map from the cgroup mi_limited pids.max= made,
# and set refused to the forks its pids.max refused meanwhile
# (pids.events).  Nothing here may fork: the cgroup has room for no task.
pv_map_refused() {
	local before=0 after=0 k v
	while read -r k v; do [ "$k" != max ] || before=$v; done <"$MI_CGROUP_DIR/pids.events"
	pv_map "$@" || return 1
	while read -r k v; do [ "$k" != max ] || after=$v; done <"$MI_CGROUP_DIR/pids.events"
	refused=$((after - before))
}

# pv_pids: a cgroup at its pids.max cannot hold a helper: the bind runs on
# one thread and still succeeds, and the cgroup counts the refusal.
pv_pids() {
	local p refused=
	if ! mi_cgroup_usable pids >/dev/null; then
		mi_skip "$PV_PIDS" "no cgroup v2 pids controller (CONFIG_CGROUP_PIDS)"
		return
	fi
	read -r _ p _ why < <(mi_threads_expected 1048576 0 1 0 "$node" "")
	if [ "$p" -lt 2 ]; then
		mi_skip "$PV_PIDS" "the range can only run on one thread here: $why"
		return
	fi
	if ! bound pids.max=current pv_map_refused 4096 "$node" 0 0; then
		mi_result "$PV_PIDS" 1 "the bind failed in a cgroup at its pids.max"
		return
	fi
	pv_unmap
	if [ "$(most)" != 1 ] || [ "${refused:-0}" -lt 1 ]; then
		mi_result "$PV_PIDS" 1 "threads=$(most), $refused helper(s) refused by pids.max"
	else
		mi_result "$PV_PIDS" 0
	fi
}

# cg_usage: set used to the usage_usec of the cgroup mi_limited made,
# without a fork, which the cgroup would be charged for.
cg_usage() {
	local k v
	while read -r k v; do [ "$k" != usage_usec ] || used=$v; done <"$MI_CGROUP_DIR/cpu.stat"
}

# pv_map_usage ARGS...: pv_map from the cgroup mi_limited cpu.max= made,
# between the trace markers mi_trace_ns reads, on the CPUs its helpers
# may use ($usage_cpus); set usage to the cgroup's CPU time meanwhile, in
# nanoseconds.  Nothing between the two readings forks.  The scheduler
# charges a running task at each tick and when it sleeps; times (the
# builtin: getrusage()) charges this shell too, before the first reading
# and before the end marker, so that the cgroup and the trace count the
# same charges of it.
pv_map_usage() {
	local u0 u1 rc=0 cpus used=0
	cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$BASHPID/status")
	taskset -pc "$usage_cpus" "$BASHPID" >/dev/null || return 1
	if ! mi_trace_follow "$BASHPID"; then
		ktap_print_msg "cannot trace the runtime of task $BASHPID"
		taskset -pc "$cpus" "$BASHPID" >/dev/null
		return 1
	fi
	times >/dev/null
	cg_usage
	u0=$used
	echo mi_window_start >"$MI_TRACE/trace_marker"
	pv_map "$@" || rc=1
	times >/dev/null
	echo mi_window_end >"$MI_TRACE/trace_marker"
	cg_usage
	u1=$used
	mi_trace_follow "" || rc=1
	taskset -pc "$cpus" "$BASHPID" >/dev/null
	usage=$(((u1 - u0) * 1000))
	return "$rc"
}

# cpu_max_why: why a test of cpu.max cannot run here; nothing when it can.
# The kernel caps a bind's threads by the fair class's bandwidth control:
# without CONFIG_CFS_BANDWIDTH, cpu.max may still exist (for sched_ext)
# but caps nothing.
cpu_max_why() {
	if ! mi_cgroup_usable cpu >/dev/null; then
		echo "no cgroup v2 cpu controller"
	elif ! mi_config CFS_BANDWIDTH; then
		echo "kernel built without CONFIG_CFS_BANDWIDTH"
	fi
}

# pv_cpumax1: from a cgroup whose cpu.max is one and a half CPUs, a bind
# with room for several threads runs on one: a task in the kernel is
# throttled only when it returns to user space, so a second thread would
# run beyond the quota.
pv_cpumax1() {
	local why
	why=$(cpu_max_why)
	if [ -n "$why" ]; then
		mi_skip "$PV_CPUMAX1" "$why"
		return
	fi
	pv_alone "$PV_CPUMAX1" "cpu.max=150000 100000" "from a cgroup of cpu.max 1.5 CPUs"
}

# pv_cpumax: from a cgroup whose cpu.max is two CPUs, on the CPUs its
# helpers may use, a bind with room for two threads runs helpers, no more
# than that (expect), and the cgroup is charged the CPU time the binding
# task and its helpers spent (mi_trace_ns), less 1 ms: both add up the
# same charges of the scheduler (pv_map_usage), the cgroup in
# microseconds.  A helper outside the cgroup, such as a work item, leaves
# it charged that much less.
pv_cpumax() {
	local usage='' own threads work lost usage_cpus p why self=$BASHPID
	why=$(cpu_max_why)
	if [ -n "$why" ]; then
		mi_skip "$PV_CPUMAX" "$why"
		return
	fi
	usage_cpus=$(mi_helper_cpus_allowed "$(mi_cpu_node "$node")" "" | paste -sd,)
	pv_limited "$PV_CPUMAX" "cpu.max=200000 100000" \
		"the bind failed in a cgroup of cpu.max two CPUs" pv_map_usage || return
	# $BASHPID inside $(...) would be the subshell's.
	read -r own threads work < <(mi_trace_ns "$self")
	lost=$(mi_trace_lost)
	ktap_print_msg "$PV_CPUMAX: threads=$(most); the task ran $((own / 1000)) us," \
		"helper threads $((threads / 1000)) us, helper work items" \
		"$((work / 1000)) us; the cgroup was charged $((usage / 1000)) us"
	if [ "$lost" != 0 ]; then
		mi_result "$PV_CPUMAX" 1 "the trace lost $lost events: the times are incomplete"
	elif [ -z "$helpers" ] || [ $((threads + work)) -le 0 ]; then
		mi_result "$PV_CPUMAX" 1 "no helper ran for a bind with room for $p threads"
	elif [ $((threads + work)) -le 1000000 ]; then
		# The 1 ms below would hide a helper outside the cgroup.
		mi_skip "$PV_CPUMAX" "the helpers ran 1 ms or less, within the tolerance"
	elif [ "$own" -le 0 ]; then
		mi_result "$PV_CPUMAX" 1 "no runtime of the binding task traced"
	elif ! expect "cpu.max=200000 100000"; then
		mi_result "$PV_CPUMAX" 1 "more threads than the cgroup's cpu.max allows CPUs"
	else
		[ "$usage" -ge $((own + threads + work - 1000000)) ]
		mi_result "$PV_CPUMAX" $? "the cgroup was charged less than that, less 1 ms"
	fi
}

# pv_hotplug: binds of 4 GiB from a task allowed on the node's first and
# last housekeeping CPUs while the last goes offline and online in a loop:
# the helpers run only on those two, and the struct pages are those of a
# bind on one CPU.  The memory is of a node whose housekeeping CPUs do not
# include the first online CPU, where there is one: a task whose allowed
# CPUs have all gone offline is moved to its cpuset's first online CPU
# (select_fallback_rq()), so that a helper bound to the CPU going offline
# then runs outside the two.
pv_hotplug() {
	local cn a b ok=0 i toggler f c out first n node=$node
	read -r first </sys/devices/system/cpu/online
	first=${first%%[-,]*}
	for n in "${!MI_NODE_HK_CPUS[@]}"; do
		read -r a b _ <<<"${MI_NODE_HK_CPUS[$n]}"
		if [ -n "$b" ] && [[ " ${MI_NODE_HK_CPUS[$n]} " != *" $first "* ]]; then
			node=$n
			break
		fi
	done
	cn=$(mi_cpu_node "$node")
	read -r a _ <<<"${MI_NODE_HK_CPUS[$cn]:-}"
	b=${MI_NODE_HK_CPUS[$cn]##* }
	f=/sys/devices/system/cpu/cpu$b/online
	if [ "$have_digest" = 0 ]; then
		mi_skip "$PV_HOTPLUG" "$digest_why"
		return
	fi
	if [ -z "$a" ] || [ "$a" = "$b" ] || [ ! -w "$f" ]; then
		mi_skip "$PV_HOTPLUG" "node $cn has no second housekeeping CPU that can go offline"
		return
	fi
	# A CPU is the machine's: only with leave to take one offline.
	if [ "${MEMMAP_INIT_CPU_HOTPLUG:-0}" != 1 ]; then
		mi_skip "$PV_HOTPLUG" \
			"set MEMMAP_INIT_CPU_HOTPLUG=1 to let it take CPU $b offline and online"
		return
	fi
	ktap_print_msg "$PV_HOTPLUG: memory of node $node, from CPUs $a and $b;" \
		"the first online CPU is $first"
	compound=1
	if ! bound "cpu=$a" pv_map 4096 "$node" 0 0 || ! digest "$MI_TMP/ref"; then
		pv_unmap
		mi_result "$PV_HOTPLUG" 1 "no reference from a bind on CPU $a"
		return
	fi
	pv_unmap
	# shellcheck disable=SC2016 # the loop's own variables
	# It counts the offlines that succeeded, in $MI_TMP/offlines.
	: >"$MI_TMP/offlines"
	bash -c 'for ((i = 0; i < 400; i++)); do
		echo 0 >"$1" 2>/dev/null && echo >>"$2"; echo 1 >"$1" 2>/dev/null
		done' _ "$f" "$MI_TMP/offlines" &
	toggler=$!
	hog=$toggler
	offline=$f
	for ((i = 1; i <= 6; i++)); do
		out=
		if bound "cpu=$a,$b" pv_map 4096 "$node" 0 0; then
			for c in $(helper_cpus); do
				[ "$c" = "$a" ] || [ "$c" = "$b" ] || out+=" $c"
			done
			[ -z "$out" ] || ktap_print_msg "bind $i: helper(s) on CPU(s)$out"
			if [ -n "$out" ] || ! digest "$MI_TMP/many" ||
				! cmp -s "$MI_TMP/ref" "$MI_TMP/many"; then
				ktap_print_msg "bind $i while CPU $b goes offline and online: wrong"
				ok=1
			fi
		else
			ok=1
		fi
		pv_unmap
	done
	kill "$toggler" 2>/dev/null
	wait "$toggler" 2>/dev/null
	hog=
	echo 1 2>/dev/null >"$f"
	offline=
	n=$(grep -c '' "$MI_TMP/offlines")
	ktap_print_msg "$PV_HOTPLUG: CPU $b went offline $n times during the binds"
	if [ "$ok" = 0 ] && [ "$n" = 0 ]; then
		mi_skip "$PV_HOTPLUG" "CPU $b never went offline: nothing tested"
	else
		mi_result "$PV_HOTPLUG" $ok
	fi
}

# wait_for WHAT CMD...: run CMD until it is true, for 30 to 31 s (a stop
# or a freeze that never completes is what this is here to catch);
# prints WHAT when it timed out.
wait_for() {
	local what=$1 end=$((SECONDS + 30))
	shift
	while [ "$SECONDS" -le "$end" ]; do
		"$@" && return 0
		sleep 0.01
	done
	ktap_print_msg "after 30 s: $what"
	return 1
}

# pstate PID: the state letter of PID's stat; Z when gone.
pstate() {
	local s
	s=$(mi_stat "$1")
	s=${s:-Z}
	echo "${s%% *}"
}
stopped() { [ "$(pstate "$1")" = T ]; }
gone() { [ "$(pstate "$1")" = Z ]; }
cg_frozen() { grep -qx 'frozen 1' "$1/cgroup.events"; }
# one_task PID: PID has no thread but its own (a helper between its
# exit_signals() and its release is still listed: poll it).
one_task() {
	local t=("/proc/$1"/task/*)
	[ "${#t[@]}" = 1 ]
}

# held PID: test_memmap_hold holds a helper of process PID; false when
# it holds another's or PID has ended.
held() {
	local st tid ev
	if ! read -r st tid ev <"$HOLD"; then
		ktap_print_msg "cannot read $HOLD"
		return 2
	fi
	[ "$st" = held ] && [ -d "/proc/$1/task/$tid" ] && return 0
	if [ "$st" = armed ]; then
		[ "$(pstate "$1")" != Z ] && return 1
		ktap_print_msg "process $1 ended with no helper held"
	else
		ktap_print_msg "test_memmap_hold: $st $tid $ev: no helper of $1 held"
	fi
	# Not worth waiting for.
	return 2
}

# held_wait PID: wait until test_memmap_hold holds a helper of PID.
held_wait() {
	local end=$((SECONDS + 30)) r
	while [ "$SECONDS" -le "$end" ]; do
		held "$1"
		r=$?
		[ "$r" = 1 ] || return "$r"
		sleep 0.01
	done
	ktap_print_msg "after 30 s: no helper of $1 held"
	return 1
}

# pv_signaled HOW: arm test_memmap_hold, bind 4 GiB of $node's memory
# from a child process that then sleeps, wait until the module holds one
# of its helpers at the start of a chunk, mark the trace, then HOW:
# "stop" (SIGSTOP: it stops, with no helper left, then SIGCONT),
# "freeze" (its own cgroup's cgroup.freeze: frozen, no helper left, then
# thawed) or "kill" (SIGKILL: it dies).  HOW "ptrace" and "exec" bind
# through memmap_helper_ops instead, which marks the trace once the module
# holds a helper of the binding process, then attaches to that helper
# with PTRACE_ATTACH (it must exit without stopping for its tracer) or
# execs from another thread of the binding process (the exec waits for
# the bind).  HOW must be what let the helper go, and the bind must end
# with its event, after the mark; the mapping is left for the caller's
# digest.  Returns 1, saying why, on a failure, and 2 when it tested
# nothing (no cgroup to freeze).
pv_signaled() {
	local r
	pv_signaled_run "$1"
	r=$?
	# Armed still when it failed early; a held helper ends its hold
	# when the cleanup kills its process, or at the module's timeout.
	echo disarm 2>/dev/null >"$HOLD"
	return "$r"
}

pv_signaled_run() {
	local how=$1 pid rc=0 st cg='' mark ev out want tid
	mi_trace_clear
	if ! echo arm >"$HOLD"; then
		ktap_print_msg "$how: cannot arm test_memmap_hold"
		return 1
	fi
	if [ "$how" = exec ] || [ "$how" = ptrace ]; then
		# -e or -p; what it prints when all went well.
		want="exec ok"
		[ "$how" = exec ] || want=exited
		"$HELPER_OPS" "-${how:0:1}" "$PGMAP" "4096 $node 0 0" \
			"$MI_TRACE/trace_marker" "$HOLD" >"$MI_TMP/ops.out" 2>&1 &
		pid=$!
		hog=$pid
		wait_for "process $pid does not end" gone "$pid" || return 1
		wait "$pid"
		st=$?
		hog=
		out=$(cat "$MI_TMP/ops.out")
		ktap_print_msg "$how: exit $st: $out"
		[ "$st" = 0 ] && [ "$out" = "$want" ] || rc=1
	else
		pv_signal_child "$how" || return
	fi
	read -r st tid out <"$HOLD"
	ktap_print_msg "$how: test_memmap_hold: $st $tid $out"
	if [ "$st $out" != "released $how" ]; then
		ktap_print_msg "$how: the held helper was not let go by the $how"
		rc=1
	fi
	events=$(mi_trace_wait 1)
	if [ -z "$events" ]; then
		ktap_print_msg "$how: no memmap_init_zone_device event"
		return 1
	fi
	ktap_print_msg "$how: event: $events"
	# The mark and the event, in the trace's (global clock) order.
	mark=$(grep -n 'mi_signal' "$MI_TRACE/trace" | head -n 1 | cut -d: -f1)
	ev=$(grep -n 'memmap_init_zone_device: ' "$MI_TRACE/trace" | head -n 1 | cut -d: -f1)
	if [ -z "$mark" ] || [ "$(mi_trace_lost)" != 0 ]; then
		ktap_print_msg "$how: the trace lost events or has no mark"
		return 1
	fi
	if [ "${ev:-0}" -lt "$mark" ]; then
		ktap_print_msg "$how: the bind ended before the mark"
		return 1
	fi
	return "$rc"
}

# pv_signal_child HOW: pv_signaled's child process, for stop, freeze and
# kill; sets rc to 1 on a failure, returns 2 when there is no cgroup to
# freeze, 1 when no helper is held or the child does not die.
pv_signal_child() {
	local how=$1
	if [ "$how" = freeze ]; then
		cg=$(mi_cgroup2)/memmap_init.$$.freeze
		if ! mkdir "$cg" 2>/dev/null || [ ! -e "$cg/cgroup.freeze" ]; then
			rmdir "$cg" 2>/dev/null
			ktap_print_msg "freeze: cannot make a cgroup with cgroup.freeze ($cg)"
			return 2
		fi
		sigcg=$cg
	fi
	# shellcheck disable=SC2016 # the child's own arguments
	bash -c '[ -z "$3" ] || echo "$BASHPID" >"$3/cgroup.procs" || exit 3
		echo "$1" 2>/dev/null >"$2" || exit 1
		exec sleep 3600' _ "4096 $node 0 0" "$PGMAP" "$cg" &
	pid=$!
	hog=$pid
	if ! held_wait "$pid"; then
		kill -KILL "$pid" 2>/dev/null
		wait_for "process $pid does not die" gone "$pid" || return 1
		wait "$pid"
		st=$?
		hog=
		ktap_print_msg "$how: no helper held (the child's exit $st)"
		return 1
	fi
	echo "mi_signal $how" >"$MI_TRACE/trace_marker"
	case "$how" in
	stop)
		kill -STOP "$pid"
		wait_for "process $pid not stopped" stopped "$pid" &&
			wait_for "a helper of $pid left while stopped" one_task "$pid" ||
			rc=1
		kill -CONT "$pid" ;;
	freeze)
		frozen=$cg
		echo 1 >"$cg/cgroup.freeze"
		wait_for "cgroup $cg not frozen" cg_frozen "$cg" &&
			wait_for "a helper of $pid left while frozen" one_task "$pid" ||
			rc=1
		echo 0 >"$cg/cgroup.freeze"
		frozen= ;;
	esac
	# The stopped or frozen child sleeps now: it dies here too.
	kill -KILL "$pid" 2>/dev/null
	if ! wait_for "process $pid does not die" gone "$pid"; then
		# Unkillable: leave it to the cleanup, and the pgmap with it.
		return 1
	fi
	wait "$pid"
	st=$?
	hog=
	if [ -n "$cg" ]; then rmdir "$cg" && sigcg=; fi
	[ "$st" = 137 ] || { ktap_print_msg "$how: the child's exit $st, not 137"; rc=1; }
}

# pv_signal HOW DESC: a stop, a freeze or a fatal signal of the binding
# process while its helpers run waits for the bind, which writes the
# struct pages a bind on one CPU writes: a helper never stops or dies
# mid-chunk.  (A helper that took signals would park a stop or a freeze
# forever, its caller waiting for it; with SIGKILL it would leave its
# chunk unwritten.)
pv_signal() {
	local how=$1 desc=$2 r
	pv_signaled "$how"
	r=$?
	if [ "$r" = 2 ]; then
		pv_unmap
		mi_skip "$desc" "no cgroup to freeze (see above)"
		return
	fi
	if [ "$r" = 0 ]; then
		if ! digest "$MI_TMP/sig"; then
			r=1
		elif ! cmp -s "$MI_TMP/ref" "$MI_TMP/sig"; then
			ktap_print_msg "$how: digests differ from the bind on one CPU"
			r=1
		fi
	fi
	[ -z "$hog" ] && pv_unmap
	mi_result "$desc" "$r"
}

pv_signals() {
	local t how why='' ts=("$PV_STOP" "$PV_FREEZE" "$PV_KILL" "$PV_PTRACE" "$PV_EXEC")
	if [ "$have_digest" = 0 ]; then
		why=$digest_why
	elif [ "$have_hold" = 0 ]; then
		why=$hold_why
	elif ! mi_cgroup2 >/dev/null; then
		why="no cgroup v2 hierarchy"
	elif [ ! -x "$HELPER_OPS" ]; then
		why="$HELPER_OPS is not built"
	fi
	if [ -n "$why" ]; then
		for t in "${ts[@]}"; do mi_skip "$t" "$why"; done
		return
	fi
	compound=1
	if ! bound "cpu=$ONE_CPU" pv_map 4096 "$node" 0 0 || ! digest "$MI_TMP/ref"; then
		pv_unmap
		for t in "${ts[@]}"; do
			mi_result "$t" 1 "no reference from a bind on CPU $ONE_CPU"
		done
		return
	fi
	pv_unmap
	read -r p why < <(possible)
	if [ "$p" -lt 2 ]; then
		for t in "${ts[@]}"; do
			mi_skip "$t" "the range can only run on one thread here: $why"
		done
		return
	fi
	for how in stop freeze kill ptrace exec; do
		t=${ts[0]}
		ts=("${ts[@]:1}")
		if [ -n "$hog" ]; then
			mi_result "$t" 1 "an earlier bind's process does not die"
		else
			pv_signal "$how" "$t"
		fi
	done
}

if [ "$have_pgmap" = 0 ]; then
	for t in "$PV_NICE" "$PV_RT" "$PV_PIDS" "$PV_CPUMAX1" "$PV_CPUMAX" "$PV_HOTPLUG" \
		"$PV_NODES" "$PV_SMALL" "$PV_PLACE" "$PV_WAIT" "$PV_STOP" "$PV_FREEZE" "$PV_KILL" \
		"$PV_PTRACE" "$PV_EXEC" "$PV_BAD"; do
		mi_skip "$t" "$pgmap_why"
	done
else
	# Memory of the first CPU's node: the threads then run where they
	# would for any task.
	node=0
	for n in $(mi_nodes); do
		if [ -e "/sys/devices/system/node/node$n/cpu$ONE_CPU" ]; then node=$n; fi
	done
	compound=1

	pv_nice
	pv_rt
	pv_pids
	pv_cpumax1
	pv_cpumax

	ok=0
	for n in $(mi_nodes); do
		node=$n
		if bound "cpu=$ONE_CPU" pv_map 1024 "$n" 0 0 && expect "cpu=$ONE_CPU" &&
			[ "$(most)" = 1 ]; then
			ktap_print_msg "node $n: nid=$(mi_field "$events" nid)," \
				"want $n"
		else
			ok=1
		fi
		pv_unmap
	done
	mi_result "$PV_NODES" $ok

	# Memory of the node with the most housekeeping CPUs.
	node=0
	for n in "${!MI_NODE_HK[@]}"; do
		[ "${MI_NODE_HK[$n]}" -le "${MI_NODE_HK[$node]:-0}" ] || node=$n
	done
	same_as_one "$PV_SMALL" pv_unmap pv_map 4096 "$node" 0 0
	pv_wait
	pv_hotplug
	pv_signals

	pv_place
	pv_bad
fi

mi_log_clean "threads start" "$LOG"

mi_finished
