#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The backend memmap_init_zone_device() uses for each memory type and
# request, as its memmap:memmap_init_zone_device trace event reports it for
# that very bind, must be the one the precedence rules give (memmap_lib.sh):
#
#   fsdax map=dev, fsdax map=mem, devdax aligned to the base page and to
#   the PMD size (align=4K and 2M on x86-64), devdax map=mem at the PMD size
#     the first bind, by ndctl create-namespace -f -e: the request the
#     namespace had; then namespace request default, on, off
#   device-private (test_hmm), device-coherent (test_hmm given
#   MEMMAP_INIT_HMM_COHERENT)
#     module parameter default, on, off
#   p2pdma (MEMMAP_INIT_P2PDMA's driver rebound), device-dax of
#   soft-reserved memory (MEMMAP_INIT_HMEM rebound) and of a CXL ram
#   region (MEMMAP_INIT_CXL_DAX rebound)
#     no request of their own: the policy decides, so one bind with it
#
# and one more bind with the binding task and the unbound workqueues held
# to the first CPU (request on, or default without CONFIG_MEMMAP_STREAMING
# or a request of its own; mi_limited wq=): it must use its request's
# backend with every event reporting threads=1.
#
# Over those binds of each memory type, three more results: the pr_debug
# line of each bind (enabled with dynamic debug) names the pages, the
# backend, the threads and the node its trace event reports; each event's
# duration_ns is no longer than the enable or module load that contains it
# and at least an eighth of a nanosecond per page (no CPU writes a struct
# page that fast, even counting only the heads and unshared tails of
# compound pages, or on several threads; a duration in the wrong unit is
# off by a factor of 1000); and each event's threads and nid (the first
# bind's too) are what the binding task's limits, the node's housekeeping
# CPUs and the range allow (mi_threads_expected in memmap_lib.sh): 0
# threads for a call without pages; 1 for a range of less than two chunks
# (two sections' worth of struct pages, 65536 on x86-64, or the compound
# page if larger; four times the pages where 2 MiB folios' tails share
# vmemmap pages, mi_threads_chunk),
# one not starting at a compound page boundary, one CPU allowed, or a node
# with one housekeeping CPU; otherwise 1 up to
# the smallest of those limits (a helper that found every chunk taken is
# not counted); and the node of the namespace's memory, also when the
# helpers ran on the nearest node with CPUs (not checked for
# device-private memory, whose node is that of the CPU that loads
# test_hmm).
#
# With MEMMAP_INIT_POLICY_ONLY=1, only the binds whose backend the policy
# decides run: the first bind and request default of each memory type (or
# the policy's bind of the types without a request), with their pr_debug,
# duration and threads checks; the requests on and off and the one-CPU
# bind, which no boot parameter changes, are left out.  For runs that boot
# with each parameter and test the rest once.

# shellcheck disable=SC2317 # run indirectly: BIND, ns_type, ns_names
# shellcheck source=memmap_lib.sh
. "$(dirname "$0")/memmap_lib.sh"

mi_init
policy_only=0
case "${MEMMAP_INIT_POLICY_ONLY:-0}" in
0) ;;
1) policy_only=1 MI_REQUESTS=(default) ;;
*) mi_bail "MEMMAP_INIT_POLICY_ONLY='$MEMMAP_INIT_POLICY_ONLY' is not 0 or 1" ;;
esac
mi_trace_need
mi_load_config ||
	mi_skip_all "kernel configuration unknown (no /proc/config.gz): no expected backend"
mi_devices
streaming=1
mi_config MEMMAP_STREAMING || streaming=0

mi_cpus_init
have_prdebug=1
mi_prdebug_on || have_prdebug=0

ktap_print_header
# Per namespace type: the first bind, the requests, the one-CPU bind
# (unless policy_only) and three checks over the binds; per test_hmm type
# (device-private, device-coherent) the same without a first bind;
# p2pdma, soft-reserved and CXL ram device-dax: the policy's bind and the
# same four or three more.
nreq=${#MI_REQUESTS[@]}
nmore=$((3 + 1 - policy_only))
ktap_set_plan $((${#MI_NS_TYPES[@]} * (1 + nreq + nmore) + 2 * (nreq + nmore) + 3 * (1 + nmore)))
read -r policy source < <(mi_expected_policy)
ktap_print_msg "policy $policy ($source)"
ktap_print_msg "$MI_CPUS online CPU(s); housekeeping CPUs by node:" \
	"$(for n in "${!MI_NODE_HK[@]}"; do printf ' %s:%s' "$n" "${MI_NODE_HK[$n]}"; done)"
# The single-threaded binds run on the first online CPU.
ONE_CPU=$(mi_cpulist "$(cat /sys/devices/system/cpu/online)" | head -n 1)

# The results of one memory type, for those that cannot run.
THREADS1_DESC="bound on one CPU: its request's backend, every event threads=1"
if [ "$policy_only" = 1 ]; then
	REQ_LABELS=("request default")
	ktap_print_msg "MEMMAP_INIT_POLICY_ONLY=1: only the binds whose backend the policy decides"
else
	REQ_LABELS=("request default" "request on" "request off" "$THREADS1_DESC")
fi
PRDEBUG_DESC="every bind: the pr_debug line names the pages, backend, threads and node of its event"
DURATION_DESC="every bind: duration_ns is at least nr_pages/8 and within the enable or load"
THREADS_DESC="every bind: threads and nid are what the task, the node's CPUs and the range allow"
REQ_LABELS+=("$PRDEBUG_DESC" "$DURATION_DESC" "$THREADS_DESC")
NS_FIRST="first bind, by create-namespace -f -e"

# What the binds of one memory type got wrong, for the last three results,
# the pages of its compound pages and the node of its memory.
prdebug_bad=
duration_bad=
threads_bad=
nbinds=0
compound=1
node=-
# 1 while testing a memory type without a request of its own.
reqless=0

# check NAME REQUEST TYPE ALTMAP COUNT BIND...: run BIND (which binds with
# REQUEST), then check the events it caused.
check() {
	local name=$1 req=$2 type=$3 altmap=$4 count=$5 want desc events
	shift 5
	want=$(mi_expected_backend "$req" "$altmap")
	desc="$name, request $req: backend $want"
	[ "$reqless" = 0 ] ||
		desc="$name, no request of its own, policy $policy: backend $want"
	if [ "$req" = on ] && [ "$streaming" = 0 ]; then
		mi_skip "$desc" "kernel built without CONFIG_MEMMAP_STREAMING"
		return
	fi
	mi_kmsg_mark "bind $name $req"
	if ! "$@" "$req"; then
		mi_result "$desc" 1 "binding failed"
		return
	fi
	events=$(mi_trace_wait "${count#-}")
	mi_check_events "$events" "$count" "$type" "$altmap" "$want"
	mi_result "$desc" $?
	bind_details "$req" "$events" "$(mi_prdebug_lines "bind $name $req")" ""
}

# bind_threads LABEL EVENTS LIMIT: note the events of one bind, by a task
# under LIMIT (mi_limited), whose threads or node mi_threads_expected does
# not allow.
bind_threads() {
	local bad
	bad=$(mi_threads_check "$2" "$compound" "$node" "$3")
	[ -z "$bad" ] || threads_bad+=" $1:$bad"
}

# bind_details REQUEST EVENTS PRDEBUG LIMIT: note what the pr_debug lines,
# the durations and the threads of one bind got wrong.  The pr_debug
# lines, which do not name the memory type, are compared with every event
# of the bind (MI_TRACE_TYPE may have left some out of EVENTS).
bind_details() {
	local req=$1 events=$2 prdebug=$3 traced e d n
	nbinds=$((nbinds + 1))
	bind_threads "request $req" "$events" "$4"
	traced=$(MI_TRACE_TYPE='' mi_trace_events | while IFS= read -r e; do
			[ -z "$e" ] || echo "$(mi_field "$e" nr_pages) $(mi_field "$e" backend)" \
				"$(mi_field "$e" threads) $(mi_field "$e" nid)"
		done | sort)
	if [ "$prdebug" != "$traced" ]; then
		prdebug_bad+=" request $req: pr_debug '${prdebug//$'\n'/, }',"
		prdebug_bad+=" traced '${traced//$'\n'/, }';"
	fi
	while IFS= read -r e; do
		[ -n "$e" ] || continue
		d=$(mi_field "$e" duration_ns)
		n=$(mi_field "$e" nr_pages)
		if ! [[ "$d" =~ ^[0-9]+$ ]] || ! [[ "$n" =~ ^[0-9]+$ ]] ||
			[ "$d" -eq 0 ] || [ $((d * 8)) -lt "$n" ] ||
			[ "$d" -gt "$MI_BIND_NS" ]; then
			duration_bad+=" request $req: duration_ns=$d for $n pages,"
			duration_bad+=" the bind's enable took $MI_BIND_NS ns;"
		fi
	done <<<"$events"
}

# details NAME: the three results over the binds of one memory type.
details() {
	local name=$1
	if [ "$nbinds" -eq 0 ]; then
		mi_result "$name, $PRDEBUG_DESC" 1 "no bind ran"
		mi_result "$name, $DURATION_DESC" 1 "no bind ran"
		mi_result "$name, $THREADS_DESC" 1 "no bind ran"
	else
		if [ "$have_prdebug" = 0 ]; then
			mi_skip "$name, $PRDEBUG_DESC" "$MI_PRDEBUG_WHY"
		else
			[ -z "$prdebug_bad" ]
			mi_result "$name, $PRDEBUG_DESC" $? "$prdebug_bad"
		fi
		[ -z "$duration_bad" ]
		mi_result "$name, $DURATION_DESC" $? "$duration_bad"
		[ -z "$threads_bad" ]
		mi_result "$name, $THREADS_DESC" $? "$threads_bad"
	fi
	prdebug_bad=
	duration_bad=
	threads_bad=
	nbinds=0
}

# one_thread NAME TYPE ALTMAP COUNT BIND...: bound with the binding task
# and the unbound workqueues on the first CPU, the bind (request on, or
# default without the streaming backend) uses the backend its request
# gives, on one thread.
one_thread() {
	local name=$1 type=$2 altmap=$3 count=$4 req=on desc="$1, $THREADS1_DESC"
	local mark="one-CPU bind of $1" want events e why="" ok=0
	shift 4
	[ "$streaming" = 1 ] && [ "$reqless" = 0 ] || req=default
	want=$(mi_expected_backend "$req" "$altmap")
	ktap_print_msg "$desc: request $req, backend $want, CPU $ONE_CPU"
	mi_kmsg_mark "$mark"
	if mi_limited "wq=$ONE_CPU" "$@" "$req"; then
		events=$(mi_trace_wait "${count#-}")
		mi_check_events "$events" "$count" "$type" "$altmap" "$want" || ok=1
		while IFS= read -r e; do
			[ -n "$e" ] || continue
			[ "$(mi_field "$e" threads)" = 1 ] && continue
			why+=" threads=$(mi_field "$e" threads)"
			why+=" for $(mi_field "$e" nr_pages) pages;"
			ok=1
		done <<<"$events"
		bind_details "$req, one CPU" "$events" "$(mi_prdebug_lines "$mark")" \
			"wq=$ONE_CPU"
	else
		why="binding failed"
		ok=1
	fi
	mi_result "$desc" $ok "$why"
}

# ns_names: the tests of one namespace type.
ns_names() {
	local l
	for l in "$NS_FIRST" "${REQ_LABELS[@]}"; do
		echo "$name, $l"
	done
}

# ns_type: the tests of the namespace type mi_ns_types configured; its
# first bind was create-namespace's own, with the request req.
ns_type() {
	want=$(mi_expected_backend "$req" "$altmap")
	events=$(mi_trace_wait 1)
	mi_check_events "$events" -1 "$type" "$altmap" "$want"
	mi_result "$name, $NS_FIRST (request $req): backend $want" $?
	bind_threads "first bind" "$events" ""
	for req in "${MI_REQUESTS[@]}"; do
		check "$name" "$req" "$type" "$altmap" 1 mi_ns_rebind
	done
	if [ "$policy_only" = 0 ]; then
		one_thread "$name" "$type" "$altmap" 1 mi_ns_rebind
	fi
	details "$name"
}
mi_ns_types ns_type ns_names

# test_hmm maps one device-private chunk per mirror device at load.
name="device-private (test_hmm)"
if [ "$have_hmm" = 0 ]; then
	for req in "${REQ_LABELS[@]}"; do
		mi_skip "$name, $req" "$MI_HMM_WHY"
	done
else
	compound=1
	node=-
	for req in "${MI_REQUESTS[@]}"; do
		check "$name" "$req" private 0 -1 mi_hmm_load
	done
	if [ "$policy_only" = 0 ]; then
		one_thread "$name" private 0 -1 mi_hmm_load
	fi
	details "$name"
	mi_hmm_unload
fi

# skip_type NAME WHY REQUESTS...: the results of a memory type that cannot
# run here: those of REQUESTS, then the five that follow them.
skip_type() {
	local name=$1 why=$2 l
	shift 2
	for l in "$@" "${REQ_LABELS[@]:${#MI_REQUESTS[@]}}"; do
		mi_skip "$name, $l" "$why"
	done
}

# Given the range, test_hmm maps two device-coherent chunks as well, one
# per coherent device, besides the device-private ones: only the
# coherent events count here.
name="device-coherent (test_hmm)"
if [ "$have_coherent" = 0 ]; then
	skip_type "$name" "$MI_COHERENT_WHY" "${REQ_LABELS[@]:0:${#MI_REQUESTS[@]}}"
else
	compound=1
	node=-
	MI_TRACE_TYPE=coherent
	for req in "${MI_REQUESTS[@]}"; do
		check "$name" "$req" coherent 0 2 mi_coherent_load
	done
	if [ "$policy_only" = 0 ]; then
		one_thread "$name" coherent 0 2 mi_coherent_load
	fi
	details "$name"
	MI_TRACE_TYPE=
	mi_hmm_unload
fi

# p2pdma memory, soft-reserved and CXL ram device-dax have no request of
# their own: their memmaps live in DRAM, where the policy's "altmap" never
# streams and "on" always does.
reqless=1
name="p2pdma"
if [ "$have_p2p" = 0 ]; then
	skip_type "p2pdma" "$MI_P2P_WHY" "no request of its own"
else
	ktap_print_msg "p2pdma: $MI_P2P"
	compound=1
	node=$(cat "/sys/bus/pci/devices/$MI_P2P/numa_node" 2>/dev/null)
	[[ "$node" =~ ^[0-9]+$ ]] || node=-
	check "$name" default pci_p2pdma 0 1 mi_p2p_rebind
	if [ "$policy_only" = 0 ]; then
		one_thread "$name" pci_p2pdma 0 1 mi_p2p_rebind
	fi
	details "$name"
fi

name="soft-reserved devdax"
if [ "$have_hmem" = 0 ]; then
	skip_type "soft-reserved devdax" "$MI_HMEM_WHY" "no request of its own"
else
	ktap_print_msg "soft-reserved devdax: $MI_HMEM"
	compound=$(($(cat "/sys/bus/dax/devices/$MI_HMEM/align") / MI_PAGE_SIZE))
	node=-
	check "$name" default generic 0 1 mi_hmem_rebind
	if [ "$policy_only" = 0 ]; then
		one_thread "$name" generic 0 1 mi_hmem_rebind
	fi
	details "$name"
fi

name="CXL ram devdax"
if [ "$have_cxl_dax" = 0 ]; then
	skip_type "CXL ram devdax" "$MI_CXL_DAX_WHY" "no request of its own"
else
	ktap_print_msg "CXL ram devdax: $MI_CXL_DAX"
	compound=$(($(cat "/sys/bus/dax/devices/$MI_CXL_DAX/align") / MI_PAGE_SIZE))
	node=-
	check "$name" default generic 0 1 mi_cxl_dax_rebind
	if [ "$policy_only" = 0 ]; then
		one_thread "$name" generic 0 1 mi_cxl_dax_rebind
	fi
	details "$name"
fi
reqless=0

mi_finished
