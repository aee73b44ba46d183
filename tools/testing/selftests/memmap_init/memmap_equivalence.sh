#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every backend, on one thread or on several, must write the same struct
# pages as the slow path on one thread.  For each memory type, bind it
# with the slow path forced (page_ref_set enabled) with the binding task
# and the unbound workqueues' workers on the first CPU (mi_limited wq= in
# memmap_lib.sh: one thread; a pmem namespace binds in libnvdimm's
# worker, not in the task that asks, so limiting that task would not
# do), and digest every struct page of the range the trace event reports
# with test_modules/test_memmap_digest.ko: that is the reference.  Then
# rebind four times, digest again and compare with the reference field
# by field: flags (section, node, zone), refcount, mapcount, pgmap,
# zone_device_data, compound head, folio order and every raw word.
#
#   template on 1 thread          request off, on one CPU
#   template on several threads   request off, no limit
#   template+streaming on several threads
#                                 request on, no limit
#   slow path on several threads  page_ref_set enabled, no limit
#
# padata cuts a range of two chunks or more (a chunk writes two sections'
# worth of struct pages, 65536 on x86-64, and is a whole compound page if
# larger; devdax map=mem's 2 MiB folios write 128 of their 512, so its
# chunk maps 1 GiB) into about four chunks per thread, on chunk-size
# boundaries: where an altmap offsets the start of the range (map=dev) the
# first chunk is a partial one, and no range of map=dev is a multiple of
# the chunk.  The messages show how each multithreaded bind was cut.
#
# A run "on several threads" binds once, without limits (with a 1 GiB
# namespace and 2 CPUs every namespace range here but devdax map=mem's may
# run on 2).  A helper that starts after the calling
# thread took every chunk is not counted (padata): whether one started in
# time is the scheduler's, not a promise of the kernel, so a bind that
# ran on one thread where more were possible is a diagnostic line, and
# its digests are compared all the same.  One that could only run on one
# thread here (a node with one housekeeping CPU, a range of less than two
# chunks: the 256 MiB of device-private memory test_hmm maps, a 1 GiB
# devdax map=mem namespace) skips with the reason.

# A digest that finds a struct page still holding the poison pattern fails
# whatever it is compared with: on a CONFIG_DEBUG_VM kernel memory hotplug
# poisons the memmap of every range it adds (page_init_poison()), so that
# page was never written by memmap init; a chunk that no thread
# initialized fails there.
#
# For the namespace, the first bind of each memory type, ndctl
# create-namespace's own with the request the namespace had and the
# knobs at their defaults, is digested too and compared with the same
# reference.  This group runs first in the target (see the Makefile), so
# that bind is the first of its memory type since boot.
#
# test_hmm hands its pages to a free list through zone_device_data right
# after mapping them; every load does the same, and the digest turns those
# links into offsets within the range, so its digests compare as well.
# Given MEMMAP_INIT_HMM_COHERENT, test_hmm also maps two device-coherent
# chunks, whose digests are compared the same way.
#
# p2pdma memory (MEMMAP_INIT_P2PDMA: its driver rebound) and device-dax of
# soft-reserved memory (MEMMAP_INIT_HMEM: rebound) and of a CXL ram
# region (MEMMAP_INIT_CXL_DAX: rebound) have no request of their own: the
# policy decides their backend, so instead of the template and streaming
# comparisons they get one on 1 thread and one on several threads with
# the policy's backend (boot with each memmap_streaming= policy to cover
# every backend).
#
# Last, the kernel log of all these binds must hold no report
# (MI_REPORTS: warnings, BUGs, lockdep, poisoned pages).

# shellcheck disable=SC2317 # run indirectly: mi_cleanup_hook, BIND, ns_type, ns_names
# shellcheck source=memmap_lib.sh
. "$(dirname "$0")/memmap_lib.sh"

DIGEST_KO=$MI_DIR/test_modules/test_memmap_digest.ko
DIGEST=/sys/kernel/debug/test_memmap_digest

mi_init
[ -f "$DIGEST_KO" ] || mi_skip_all "$DIGEST_KO not built (needs KDIR at build time)"
mi_trace_need
mi_load_config ||
	mi_skip_all "kernel configuration unknown (no /proc/config.gz): no expected backend"
mi_pageref_available ||
	mi_skip_all "no page_ref_set tracepoint (CONFIG_DEBUG_PAGE_REF): cannot force the slow path"
mi_devices
streaming=1
mi_config MEMMAP_STREAMING || streaming=0
mi_cpus_init
# The single-threaded binds run on the first online CPU.
ONE_CPU=$(mi_cpulist "$(cat /sys/devices/system/cpu/online)" | head -n 1)

loaded=0
mi_cleanup_hook() {
	[ "$loaded" = 0 ] || rmmod test_memmap_digest 2>/dev/null
}

if [ ! -e "$DIGEST" ]; then
	mi_debugfs
	insmod "$DIGEST_KO" 2>"$MI_TMP/insmod.out" ||
		mi_skip_all "cannot load $DIGEST_KO: $(cat "$MI_TMP/insmod.out")"
	loaded=1
fi
[ -e "$DIGEST" ] || mi_skip_all "$DIGEST missing (debugfs not mounted?)"

ktap_print_header
# Per namespace type the first bind and the four comparisons; the four of
# device-private and device-coherent memory; three for p2pdma,
# soft-reserved and CXL ram device-dax; the log.
ktap_set_plan $((${#MI_NS_TYPES[@]} * 5 + 2 * 4 + 3 * 3 + 1))
read -r policy _ < <(mi_expected_policy)
REF="the slow path on 1 thread"
ktap_print_msg "$MI_CPUS online CPU(s); housekeeping CPUs by node:" \
	"$(for n in "${!MI_NODE_HK[@]}"; do printf ' %s:%s' "$n" "${MI_NODE_HK[$n]}"; done)"
mi_kmsg_mark "equivalence start"

# What the comparisons of one memory type are called.
T1_DESC="template on 1 thread"
TN_DESC="template on several threads"
SN_DESC="template+streaming on several threads"
SLOWN_DESC="slow path on several threads"
DESCS=("$T1_DESC" "$TN_DESC" "$SN_DESC" "$SLOWN_DESC")
FIRST_DESC="first bind, by create-namespace -f -e"

# The pages of one compound page of the memory type under test, the node
# of its memory, the reference digest and why there is none, why a
# comparison is skipped.
compound=1
node=-
ref=$MI_TMP/ref
ref_why=
skip_why=
# 1 while testing a memory type without a request of its own.
reqless=0

# check_threads SPEC EVENTS: every event ran on the threads SPEC asks for:
# 1, or "several" (2 or more, and no more than mi_threads_expected
# allows); prints how each multithreaded range was cut.  Returns 1 when
# one did not, 2 (skip_why set) when one could only run on one thread
# here.  One that ran on one thread but could have run on several (no
# helper started in time) is a diagnostic: the scheduler decides it.
check_threads() {
	local spec=$1 events=$2 e t nr start altmap hi why chunks size first rc=0
	while IFS= read -r e; do
		[ -n "$e" ] || continue
		read -r t altmap nr start < <(mi_fields "$e" threads altmap nr_pages start_pfn)
		if ! [[ "$t" =~ ^[0-9]+$ ]]; then
			ktap_print_msg "no threads in the event: $e"
			rc=1
		elif [ "$spec" = 1 ]; then
			if [ "$t" -ne 1 ]; then
				ktap_print_msg "$nr pages from PFN $start ran on $t threads" \
					"on one CPU"
				rc=1
			fi
		elif ! read -r _ hi _ why < <(mi_threads_expected "$nr" $((start)) \
			"$compound" "$altmap" "$node" ""); then
			ktap_print_msg "no expectation for $nr pages from PFN $start"
			rc=1
		elif [ "$t" -gt "$hi" ]; then
			ktap_print_msg "$nr pages from PFN $start ran on $t threads," \
				"at most $hi possible ($why)"
			rc=1
		elif [ "$t" -ge 2 ]; then
			read -r chunks size first < <(mi_threads_chunks "$nr" "$start" \
				"$compound" "$altmap" "$t")
			ktap_print_msg "$nr pages from PFN $start ran on $t threads: $chunks" \
				"chunks of up to $size pages, the first of $first"
		elif [ "$hi" -lt 2 ]; then
			skip_why="$nr pages from PFN $start can only run on one"
			skip_why+=" thread: $why"
			[ "$rc" -ne 0 ] || rc=2
		else
			# Whether a helper starts before the binding thread
			# has taken every chunk is the scheduler's, not the
			# kernel's promise: a diagnostic, and the digests are
			# compared all the same.
			ktap_print_msg "$nr pages from PFN $start ran on $t thread(s)," \
				"up to $hi possible ($why): no helper started in time"
		fi
	done <<<"$events"
	return "$rc"
}

# digests OUT THREADS REQUEST TYPE ALTMAP COUNT BIND...: bind with REQUEST
# (THREADS 1: on one CPU, mi_limited wq=), check the backend and,
# unless THREADS is empty, the threads (check_threads), and write the
# digests of the ranges the events report to OUT.  Returns 2 when
# check_threads does, 3 when it fails.
digests() {
	local out=$1 threads=$2 req=$3 type=$4 altmap=$5 count=$6 lim=
	local want events poisoned rc=0
	shift 6
	[ "$threads" != 1 ] || lim="wq=$ONE_CPU"
	want=$(mi_expected_backend "$req" "$altmap")
	mi_limited "$lim" "$@" "$req" || return 1
	events=$(mi_trace_wait "${count#-}")
	mi_check_events "$events" "$count" "$type" "$altmap" "$want" >"$MI_TMP/events" || {
		cat "$MI_TMP/events"
		ktap_print_msg "the $want backend did not run"
		return 1
	}
	[ -z "$threads" ] || check_threads "$threads" "$events" || rc=$?
	[ "$rc" -ne 1 ] || rc=3
	[ "$rc" -eq 0 ] || return "$rc"
	mi_digest "$DIGEST" "$events" "$out" || return 1
	mi_digest_complete "$events" "$out" || return 1
	# No page left poisoned: on a CONFIG_DEBUG_VM kernel memory hotplug
	# poisons the memmap it adds, so a page memmap init skipped still is.
	poisoned=$(awk '$1 == "poisoned" { n += $2 }
		$1 == "first_poisoned_pfn" && $2 != "none" && f == "" { f = $2 }
		END { if (n) printf "%d struct page(s), the first at PFN %s", n, f }' "$out")
	if [ -n "$poisoned" ]; then
		ktap_print_msg "after a $want bind $poisoned still hold the poison" \
			"pattern: never written"
		return 1
	fi
	# Sanity: every page read, every pgmap the one of the range.
	if awk '$1 == "nr_pages" { nr = $2 } $1 == "pages" && $2 != nr { bad = 1 }
		$1 == "pgmap_mismatch" && $2 != 0 { bad = 1 } END { exit !bad }' "$out"; then
		ktap_print_msg "bad digest after a $want bind:"
		mi_indent <"$out"
		return 1
	fi
}

# compare DESC REF OUT: the digests match; otherwise name what differs.
compare() {
	local desc=$1 ref=$2 out=$3
	if cmp -s "$ref" "$out"; then
		ktap_print_msg "$desc: $(awk '$1 == "pages" { r++; n += $2 }
			$1 == "raw" { d = d " " $2 }
			END { printf "%d range(s), %d pages, raw digest(s)%s", r, n, d }' "$out")"
		ktap_test_pass "$desc"
		return
	fi
	ktap_print_msg "$desc: digests differ ($REF | this bind):"
	paste -d'|' "$ref" "$out" | awk -F'|' '$1 != $2' | mi_indent
	ktap_test_fail "$desc"
}

# variant DESC OUT THREADS REQUEST TYPE ALTMAP COUNT BIND...: one
# comparison with the reference: bind, digest into OUT (digests), compare.
variant() {
	local desc=$1 out=$2 rc
	shift 2
	if [ -n "$ref_why" ]; then
		mi_result "$desc" 1 "$ref_why"
		return
	fi
	skip_why=
	digests "$out" "$@"
	rc=$?
	if [ "$rc" -eq 2 ]; then
		mi_skip "$desc" "$skip_why"
	elif [ "$rc" -eq 3 ]; then
		mi_result "$desc" 1 "the bind did not run on the threads asked for"
	elif [ "$rc" -ne 0 ]; then
		mi_result "$desc" 1 "no digest"
	else
		compare "$desc" "$ref" "$out"
	fi
}

# equivalence NAME TYPE ALTMAP COUNT BIND...: the reference, then the four
# comparisons with it (DESCS).  With first_req set, the digest of the
# first bind is in $MI_TMP/first (when first_rc is 0) and is compared as
# well.
equivalence() {
	local name=$1 slow_req=on desc want
	shift
	[ "$streaming" = 1 ] && [ "$reqless" = 0 ] || slow_req=default
	# The reference: the slow path on one thread.
	ref_why=
	if ! mi_pageref_on; then
		ref_why="cannot enable page_ref_set"
	elif ! digests "$ref" 1 "$slow_req" "$@"; then
		ref_why="no digest of $REF"
	fi
	mi_pageref_off
	if [ -n "$first_req" ]; then
		desc="$name: $FIRST_DESC, request $first_req: digest matches $REF"
		if [ -n "$ref_why" ]; then
			mi_result "$desc" 1 "$ref_why"
		elif [ "$first_rc" -ne 0 ]; then
			mi_result "$desc" 1 "no digest of the first bind"
		else
			compare "$desc" "$ref" "$MI_TMP/first"
		fi
	fi

	if [ "$reqless" = 1 ]; then
		want=$(mi_expected_backend default 0)
		desc="no request of its own, policy $policy"
		variant "$name: $want on 1 thread ($desc): digest matches $REF" \
			"$MI_TMP/t1" 1 default "$@"
		variant "$name: $want on several threads ($desc): digest matches $REF" \
			"$MI_TMP/tn" several default "$@"
	else
		variant "$name: $T1_DESC: digest matches $REF" "$MI_TMP/t1" 1 off "$@"
		variant "$name: $TN_DESC: digest matches $REF" "$MI_TMP/tn" several off "$@"

		desc="$name: $SN_DESC: digest matches $REF"
		if [ -z "$ref_why" ] && [ "$streaming" = 0 ]; then
			mi_skip "$desc" "kernel built without CONFIG_MEMMAP_STREAMING"
		else
			variant "$desc" "$MI_TMP/sn" several on "$@"
		fi
	fi

	desc="$name: $SLOWN_DESC: digest matches $REF"
	if [ -z "$ref_why" ] && ! mi_pageref_on; then
		mi_result "$desc" 1 "cannot enable page_ref_set"
	else
		variant "$desc" "$MI_TMP/slown" several "$slow_req" "$@"
	fi
	mi_pageref_off
}

# ns_names: the tests of one namespace type.
ns_names() {
	local d
	for d in "$FIRST_DESC" "${DESCS[@]}"; do
		echo "$name: $d: digest matches $REF"
	done
}

# ns_type: the namespace type mi_ns_types configured.  Its first bind
# (create-namespace's, with the request req) already happened: digest
# what it left, then the rebinds.
ns_type() {
	first_req=$req
	first_rc=0
	digests "$MI_TMP/first" "" "$req" "$type" "$altmap" 1 true || first_rc=1
	equivalence "$name" "$type" "$altmap" 1 mi_ns_rebind
}
first_req=
first_rc=0
mi_ns_types ns_type ns_names
first_req=

name="device-private (test_hmm)"
if [ "$have_hmm" = 0 ]; then
	for d in "${DESCS[@]}"; do
		mi_skip "$name: $d: digest matches $REF" "$MI_HMM_WHY"
	done
else
	compound=1
	node=-
	equivalence "$name" private 0 -1 mi_hmm_load
	mi_hmm_unload
fi

name="device-coherent (test_hmm)"
if [ "$have_coherent" = 0 ]; then
	for d in "${DESCS[@]}"; do
		mi_skip "$name: $d: digest matches $REF" "$MI_COHERENT_WHY"
	done
else
	compound=1
	node=-
	MI_TRACE_TYPE=coherent
	equivalence "$name" coherent 0 2 mi_coherent_load
	MI_TRACE_TYPE=
	mi_hmm_unload
fi

# reqless_skip NAME WHY: the three results of a memory type without a
# request of its own that cannot run here.
reqless_skip() {
	mi_skip "$1: the policy's backend on 1 thread: digest matches $REF" "$2"
	mi_skip "$1: the policy's backend on several threads: digest matches $REF" "$2"
	mi_skip "$1: $SLOWN_DESC: digest matches $REF" "$2"
}

reqless=1
if [ "$have_p2p" = 0 ]; then
	reqless_skip "p2pdma" "$MI_P2P_WHY"
else
	compound=1
	node=$(cat "/sys/bus/pci/devices/$MI_P2P/numa_node" 2>/dev/null)
	[[ "$node" =~ ^[0-9]+$ ]] || node=-
	equivalence "p2pdma ($MI_P2P)" pci_p2pdma 0 1 mi_p2p_rebind
fi
if [ "$have_hmem" = 0 ]; then
	reqless_skip "soft-reserved devdax" "$MI_HMEM_WHY"
else
	compound=$(($(cat "/sys/bus/dax/devices/$MI_HMEM/align") / MI_PAGE_SIZE))
	node=-
	equivalence "soft-reserved devdax ($MI_HMEM)" generic 0 1 mi_hmem_rebind
fi
if [ "$have_cxl_dax" = 0 ]; then
	reqless_skip "CXL ram devdax" "$MI_CXL_DAX_WHY"
else
	compound=$(($(cat "/sys/bus/dax/devices/$MI_CXL_DAX/align") / MI_PAGE_SIZE))
	node=-
	equivalence "CXL ram devdax ($MI_CXL_DAX)" generic 0 1 mi_cxl_dax_rebind
fi
reqless=0

# Every bind above, multithreaded ones included, left a clean log: no
# warning, lockdep report or poisoned page (CONFIG_DEBUG_VM).
mi_log_clean "equivalence start" "kernel log clean after the binds"

mi_finished
