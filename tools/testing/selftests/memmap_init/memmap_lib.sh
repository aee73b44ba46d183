# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# Helpers shared by the memmap_init selftests.  Sourced, never executed.
#
# What the tests may change.  By default nothing that existed before they
# started: no namespace, region, label or dax device, and no memory.  What
# is always safe runs by default: the controls that only read, the boot
# parameter checks, and device-private memory through test_hmm,
# whose memory is the test module's own.  The rest runs only on what the
# environment names, and skips saying which variable to set:
#
#   MEMMAP_INIT_NAMESPACE=namespaceX.Y  the pmem namespace the equivalence,
#       backend, controls, data, races and daxctl tests reconfigure
#       (ndctl create-namespace -f -e) and rebind: ITS DATA IS DESTROYED.
#       It is refused (the tests skip) while in use: mounted, swapped on,
#       held or claimed, open or mapped by a process, or online as system
#       RAM.  Whatever happens, each test puts it back in the mode, map,
#       align, memmap_streaming request and enabled state it found.
#   MEMMAP_INIT_SYSTEM_RAM=1            the daxctl test may also online
#       that namespace's memory as system RAM (daxctl reconfigure-device
#       --mode=system-ram) and offline it again.
#   MEMMAP_INIT_CPU_HOTPLUG=1           the races test may also take the
#       last online CPU offline and back online, over and over, while it
#       rebinds that namespace (a CPU of this machine goes away for a
#       moment, each time: not for a machine that runs other work).
#   MEMMAP_INIT_LABEL_REGION=regionN    a region of one NVDIMM with a label
#       area, whose labels the lifetime test re-initializes: EVERY
#       NAMESPACE IN IT IS DESTROYED.  Refused while any is in use, and
#       when it holds MEMMAP_INIT_NAMESPACE.
#   MEMMAP_INIT_HMM=1                   the hmm-tests peer suite, which
#       only takes long (or a list of requests: default,on,off).
#   MEMMAP_INIT_P2PDMA=DDDD:BB:DD.F     a PCI device with p2pdma memory
#       (p2pmem/ in sysfs: an NVMe controller's memory buffer, say) whose
#       driver the tests unbind and bind again, and whose p2pmem they
#       allocate and write: ITS BLOCK DEVICES GO AWAY WHILE IT IS UNBOUND.
#       Refused while any of them is mounted, held or open, or while any
#       of its p2pdma memory is allocated.
#   MEMMAP_INIT_HMEM=daxX.Y             a device-dax instance of soft-reserved
#       memory (dax_hmem: HBM, CXL), bound to device_dax, which the tests
#       rebind and write: ITS DATA IS DESTROYED.  Refused while mapped.
#   MEMMAP_INIT_HMM_COHERENT=ADDR       the physical address of 512 MiB,
#       2 MiB-aligned, reserved and not System RAM, that test_hmm may use
#       as the memory of its two device-coherent devices (spm_addr_dev0
#       and spm_addr_dev1): WHATEVER IS THERE IS OVERWRITTEN.
#
# A value that is not of that form, or a namespace or region that does
# not exist, fails the test ("Bail out!") before anything is changed.
#
# What the tests look at:
#   the boot log                            the streaming policy
#   /sys/bus/nd/devices/NS/memmap_streaming the per-namespace request
#   test_hmm memmap_streaming=              the device-private request
#   memmap:memmap_init_zone_device          one trace event per memmap init,
#                                           naming the backend it used
# and what decides the backend, in order: an enabled page_ref_set
# tracepoint (slow), CONFIG_MEMMAP_STREAMING=n (template; KASAN and KMSAN
# kernels cannot have it), the request (on: template+streaming, off:
# template) and, for "default", the policy (altmap, the default:
# template+streaming when the memmap lives in an altmap; on:
# template+streaming; off: template).
#
# The trace event and the pr_debug line also report how many threads ran
# the init (threads=T, "on T thread(s)") and the node whose CPUs ran the
# helpers (nid=N): memmap_init_zone_device() splits a large range into
# chunks that padata hands to threads on the CPUs of the range's node, or
# of the nearest node with CPUs.  No knob steers it; the binding task's
# limits do: its allowed CPUs, its nice value, and the node's housekeeping
# CPUs (mi_threads_expected; mi_limited runs a bind under such a limit).

MI_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../kselftest/ktap_helpers.sh
. "$MI_DIR/../kselftest/ktap_helpers.sh"

MI_WRITE=$MI_DIR/memmap_write
MI_PATTERN=$MI_DIR/dax_pattern
MI_EVENT=memmap/memmap_init_zone_device
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
	"devdax align=4K|--mode=devdax --map=dev --align=4K|generic|1"
	"devdax align=2M|--mode=devdax --map=dev --align=2M|generic|1"
	# Compound pages without an altmap: their tails share vmemmap pages,
	# so memmap_init_compound() initializes fewer tails than the order.
	"devdax map=mem align=2M|--mode=devdax --map=mem --align=2M|generic|0"
)
MI_REQUESTS=(default on off)

MI_TRACEFS=
MI_TRACE=
MI_TRACE_TYPE=
MI_PAGEREF=
MI_NS=
MI_NS_ATTR=
MI_NS_SAVED=
MI_NS_WAS_DISABLED=0
MI_HMM_USED=
MI_CONFIG=
MI_TMP=
MI_BIND_NS=0
MI_DYNDBG=
MI_NS_ANY_KERNEL=0
MI_LR=
MI_LR_NMEM=
MI_DEVNUMS=()
MI_P2P=
MI_HMEM=
MI_COHERENT=

# Multithreaded init.  x86-64 has 4 KiB pages, 128 MiB sections
# (PAGES_PER_SECTION) and 64-byte struct pages; chunks write at least two
# sections' worth of struct pages.  Where the tails of compound pages share
# vmemmap pages (no altmap, more than two vmemmap pages of struct pages a
# compound page: vmemmap_can_optimize()), memmap init writes two vmemmap
# pages of each: 128.  Kernels whose struct page is not 64 bytes (KMSAN)
# share none, and have only the slow path on one thread anyway.  A range
# starting in a boot section (compound_nr_pages()'s early_section()) would
# share none either: no guest has one.
MI_PAGE_SIZE=4096
MI_SECTION_PAGES=32768
MI_SHARED_WRITTEN=128
# The online CPUs and, per node, its online CPUs and its online
# housekeeping CPUs (mi_cpus_init).
MI_CPUS=
declare -A MI_NODE_ONLINE=() MI_NODE_HK=() MI_NODE_HK_CPUS=()
# The unbound workqueues' cpumask, and what it was before mi_limited wq=
# changed it, until it puts it back (mi_cleanup does if the test is
# interrupted in between).
MI_WQ_CPUMASK=/sys/devices/virtual/workqueue/cpumask
MI_WQ_SAVED=
# mi_limited cpuset=: the cgroup made for it, the cgroup the shell came
# from, and whether the root's subtree had the cpuset controller before.
MI_CPUSET_DIR=
MI_CPUSET_FROM=
MI_CPUSET_ENABLED=

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
	[ -z "$MI_HMM_USED" ] || mi_hmm_unload
	mi_p2p_restore || rc=$KSFT_FAIL
	mi_hmem_restore || rc=$KSFT_FAIL
	mi_wq_restore
	mi_cpuset_leave "$BASHPID"
	mi_pageref_off
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
# MI_PAGEREF is set while page_ref_set is enabled.
mi_expected_backend() {
	local req=$1 altmap=$2 policy

	if [ -n "$MI_PAGEREF" ]; then
		echo slow
	elif ! mi_config MEMMAP_STREAMING; then
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

# mi_trace_need: mi_trace_init, or end the test.  A kernel without the
# series has no event and no streaming: the test is skipped as a whole.  A
# kernel with it (pgmap_memmap_streaming() in /proc/kallsyms) must have the
# event, or this series' observability is broken: one failed result.
mi_trace_need() {
	mi_trace_init && return 0
	if ! grep -qw pgmap_memmap_streaming /proc/kallsyms 2>/dev/null; then
		mi_skip_all "$MI_TRACE_WHY: kernel without streaming memmap init"
	fi
	ktap_print_header
	ktap_set_plan 1
	ktap_test_fail "the kernel has pgmap_memmap_streaming() but $MI_TRACE_WHY"
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

# mi_trace_helpers_on: record where workqueue work items run too, for
# mi_trace_helpers; false, saying why, when the trace instance cannot.
MI_WQ_EVENT=workqueue/workqueue_execute_start
mi_trace_helpers_on() {
	echo 1 2>/dev/null >"$MI_TRACE/events/$MI_WQ_EVENT/enable" && return 0
	ktap_print_msg "cannot enable $MI_WQ_EVENT in $MI_TRACE"
	return 1
}

# mi_trace_helpers: the CPU of every padata helper that ran since the trace
# was cleared (mi_trace_helpers_on), one a line: the multithreaded
# memmap init's helpers, the only padata jobs after boot.
mi_trace_helpers() {
	local re='.*\[0*\([0-9][0-9]*\)\] .* workqueue_execute_start: '
	sed -n "s/$re.* function padata_mt_helper\$/\\1/p" "$MI_TRACE/trace"
}

# mi_field EVENT NAME: one field of an event line.
mi_field() {
	sed -n "s/.* $2=\\([^ ]*\\).*/\\1/p" <<<" $1"
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

# mi_pageref_on: enable the page_ref_set tracepoint, which forces the slow
# path, in an instance of its own that does not record: the tracepoint is
# what matters, and one event per page would flood a buffer.
mi_pageref_available() {
	[ -n "$MI_TRACEFS" ] && [ -d "$MI_TRACEFS/events/page_ref/page_ref_set" ]
}

mi_pageref_on() {
	local d=$MI_TRACEFS/instances/memmap_init_pageref.$$
	mkdir -p "$d" && echo 0 >"$d/tracing_on" &&
		echo 1 >"$d/events/page_ref/page_ref_set/enable" || return 1
	MI_PAGEREF=$d
}

mi_pageref_off() {
	[ -n "$MI_PAGEREF" ] || return 0
	echo 0 >"$MI_PAGEREF/events/page_ref/page_ref_set/enable" 2>/dev/null
	rmdir "$MI_PAGEREF" 2>/dev/null
	MI_PAGEREF=
}

# ---------------------------------------------------------------- namespaces

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
	local ns=${MEMMAP_INIT_NAMESPACE:-} r=${MEMMAP_INIT_LABEL_REGION:-} v
	if [ -n "$ns" ] && ! [[ "$ns" =~ ^namespace[0-9]+\.[0-9]+$ ]]; then
		mi_bail "MEMMAP_INIT_NAMESPACE='$ns' is not a namespace name" \
			"such as namespace0.0 (see 'ndctl list -N')"
	fi
	if [ -n "$r" ] && ! [[ "$r" =~ ^region[0-9]+$ ]]; then
		mi_bail "MEMMAP_INIT_LABEL_REGION='$r' is not a region name" \
			"such as region1 (see 'ndctl list -R')"
	fi
	case "${MEMMAP_INIT_SYSTEM_RAM:-0}" in
	0|1) ;;
	*) mi_bail "MEMMAP_INIT_SYSTEM_RAM='$MEMMAP_INIT_SYSTEM_RAM' is not 0 or 1" ;;
	esac
	case "${MEMMAP_INIT_CPU_HOTPLUG:-0}" in
	0|1) ;;
	*) mi_bail "MEMMAP_INIT_CPU_HOTPLUG='$MEMMAP_INIT_CPU_HOTPLUG' is not 0 or 1" ;;
	esac
	v=${MEMMAP_INIT_P2PDMA:-}
	if [ -n "$v" ] && ! [[ "$v" =~ ^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$ ]]; then
		mi_bail "MEMMAP_INIT_P2PDMA='$v' is not a PCI device name" \
			"such as 0000:00:03.0 (see /sys/bus/pci/devices)"
	fi
	v=${MEMMAP_INIT_HMEM:-}
	if [ -n "$v" ] && ! [[ "$v" =~ ^dax[0-9]+\.[0-9]+$ ]]; then
		mi_bail "MEMMAP_INIT_HMEM='$v' is not a device-dax name" \
			"such as dax0.0 (see 'daxctl list')"
	fi
	v=${MEMMAP_INIT_HMM_COHERENT:-}
	if [ -n "$v" ] && ! [[ "$v" =~ ^0x[0-9a-fA-F]+$ ]]; then
		mi_bail "MEMMAP_INIT_HMM_COHERENT='$v' is not a physical address" \
			"such as 0x120000000"
	fi
	case "${MEMMAP_INIT_HMM:-0}" in
	0|1) ;;
	*)
		for v in ${MEMMAP_INIT_HMM//,/ }; do
			case "$v" in
			default|on|off) ;;
			*) mi_bail "MEMMAP_INIT_HMM='$MEMMAP_INIT_HMM' is not 0, 1 or" \
				"a comma-separated list of default, on and off" ;;
			esac
		done ;;
	esac
}

# mi_join: the lines of stdin on one line, separated by "; ".
mi_join() {
	awk 'NR > 1 { printf "; " } { printf "%s", $0 }'
}

# mi_hexdev MAJ:MIN: the device number as stat's %t:%T prints it.
mi_hexdev() {
	printf '%x:%x' "${1%%:*}" "${1#*:}"
}

# mi_ns_users NS: what uses namespace NS, one finding a line; nothing when
# it is free.  NS is in use when its block device (or a partition of it)
# is mounted, swapped on, held by another block device (device mapper,
# md) or claimed by anyone (an exclusive open fails), when a process has
# its block or device-dax device open or mapped, or when its device-dax
# memory is online as system RAM (kmem).
mi_ns_users() {
	local ns=$1 j blk dax
	MI_DEVNUMS=()
	j=$(ndctl list -n "$ns" -i 2>/dev/null)
	blk=$(sed -n 's/.*"blockdev":"\([^"]*\)".*/\1/p' <<<"$j" | head -n 1)
	dax=$(sed -n 's/.*"chardev":"\([^"]*\)".*/\1/p' <<<"$j" | head -n 1)
	[ -z "$blk" ] || mi_blk_users "$blk"
	[ -z "$dax" ] || mi_dax_users "$dax"
	mi_open_users
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
		stat -L -c "%t:%T %F %n" /proc/[0-9]*/fd/* 2>/dev/null |
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

# mi_ns_config: "MODE MAP ALIGN SECTOR_SIZE REQUEST" of MI_NS, as ndctl
# list and the attribute report them ("-" for a field they do not give).
# Only an enabled namespace shows its mode: disabled, it reads as raw.
mi_ns_config() {
	local j f v
	local -a out=()
	j=$(ndctl list -n "$MI_NS" -i 2>/dev/null)
	for f in mode map align sector_size; do
		v=$(sed -n "s/.*\"$f\":\"\\{0,1\\}\\([^\",]*\\).*/\\1/p" <<<"$j" | head -n 1)
		out+=("${v:--}")
	done
	v=$(mi_ns_request)
	out+=("${v:--}")
	echo "${out[*]}"
}

# mi_ns_disabled: true when MI_NS is disabled.
mi_ns_disabled() {
	ndctl list -n "$MI_NS" -i 2>/dev/null | grep -q '"state":"disabled"'
}

# mi_ns_init: take the namespace MEMMAP_INIT_NAMESPACE names, when it may
# be used, and remember how it is configured (mi_ns_reset puts it back).
# Returns false (with MI_NS_WHY set) when the run names none, without
# ndctl or the attribute (unless MI_NS_ANY_KERNEL=1: a test of kernels
# without it), or when the namespace is in use (mi_ns_users).  Bails out
# when the name is not one of a pmem namespace with capacity.
mi_ns_init() {
	local ns=${MEMMAP_INIT_NAMESPACE:-} d users
	MI_NS_WHY=
	if [ -z "$ns" ]; then
		MI_NS_WHY="set MEMMAP_INIT_NAMESPACE=namespaceX.Y to let the tests"
		MI_NS_WHY+=" reconfigure that namespace and destroy its data"
		return 1
	fi
	if ! command -v ndctl >/dev/null; then
		MI_NS_WHY="ndctl not installed"
		return 1
	fi
	d=/sys/bus/nd/devices/$ns
	[ -d "$d" ] || mi_bail "MEMMAP_INIT_NAMESPACE=$ns: no such namespace ('ndctl list -N -i')"
	case "$(cat "$d/devtype" 2>/dev/null)" in
	nd_namespace_pmem|nd_namespace_io) ;;
	*) mi_bail "MEMMAP_INIT_NAMESPACE=$ns is not a pmem namespace" ;;
	esac
	[ "$(cat "$d/size" 2>/dev/null)" != 0 ] ||
		mi_bail "MEMMAP_INIT_NAMESPACE=$ns has no capacity (a namespace seed)"
	if [ ! -f "$d/memmap_streaming" ] && [ "$MI_NS_ANY_KERNEL" != 1 ]; then
		MI_NS_WHY="$ns has no memmap_streaming attribute"
		return 1
	fi
	modprobe -q -a nd_pmem dax_pmem device_dax 2>/dev/null
	users=$(mi_ns_users "$ns")
	if [ -n "$users" ]; then
		MI_NS_WHY="$ns is in use, not touching it: $(mi_join <<<"$users")"
		return 1
	fi
	MI_NS=$ns
	MI_NS_ATTR=$d/memmap_streaming
	# A disabled namespace shows its configuration once enabled; it is
	# disabled again when the test is done with it.
	MI_NS_WAS_DISABLED=0
	if mi_ns_disabled; then
		MI_NS_WAS_DISABLED=1
		if ! ndctl enable-namespace "$ns" >/dev/null 2>&1; then
			MI_NS=
			MI_NS_WHY="$ns is disabled and cannot be enabled to read its configuration"
			return 1
		fi
	fi
	MI_NS_SAVED=$(mi_ns_config)
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

mi_ndctl() {
	mi_run ndctl "$@"
}

mi_ns_disable() {
	mi_ndctl disable-namespace "$MI_NS"
}

mi_ns_enable() {
	mi_ndctl enable-namespace "$MI_NS"
}

# mi_ns_reconfig OPTIONS...: reconfigure the label-less namespace.
mi_ns_reconfig() {
	mi_ndctl create-namespace -f -e "$MI_NS" "$@"
}

# mi_ns_request: the current request of the namespace.
mi_ns_request() {
	mi_bracketed "$MI_NS_ATTR"
}

# mi_ns_set REQUEST: set the request of the (disabled) namespace.
mi_ns_set() {
	local out
	out=$("$MI_WRITE" "$MI_NS_ATTR" "$1")
	[ "$out" = ok ] || { ktap_print_msg "writing '$1' to $MI_NS_ATTR: $out"; return 1; }
}

# mi_now_ns: wall-clock time in nanoseconds (microsecond resolution).
mi_now_ns() {
	local t=${EPOCHREALTIME/./}
	echo $((10#$t * 1000))
}

# mi_ns_rebind REQUEST: disable the namespace, set REQUEST and enable it
# again with an empty trace buffer.  MI_BIND_NS is how long the enable,
# which contains the bind, took.
mi_ns_rebind() {
	local t0 rc
	mi_ns_disable && mi_ns_set "$1" || return 1
	[ -z "$MI_TRACE" ] || mi_trace_clear
	t0=$(mi_now_ns)
	mi_ns_enable
	rc=$?
	MI_BIND_NS=$(($(mi_now_ns) - t0))
	return $rc
}

# mi_ns_reset: put the namespace back as mi_ns_init found it: its mode,
# map, align and sector size (ndctl create-namespace -f -e, which loses
# the data), its memmap_streaming request and whether it was enabled.
# mi_cleanup calls it on every exit; tests call it when they are done
# with the namespace.  Prints what it could not restore; false then.
mi_ns_reset() {
	local mode map align ss req now rc=0
	local -a opts=()
	[ -n "$MI_NS" ] && [ -n "$MI_NS_SAVED" ] || return 0
	# Enabled, the namespace shows its mode (mi_ns_config).
	mi_ns_disabled && ndctl enable-namespace "$MI_NS" >/dev/null 2>&1
	now=$(mi_ns_config)
	read -r mode map align ss req <<<"$MI_NS_SAVED"
	if [ "${now% *}" != "${MI_NS_SAVED% *}" ]; then
		opts=(--mode="$mode")
		[ "$map" = - ] || opts+=(--map="$map")
		[ "$align" = - ] || [ "$mode" = raw ] || [ "$mode" = sector ] ||
			opts+=(--align="$align")
		[ "$mode" != sector ] || [ "$ss" = - ] || opts+=(--sector-size="$ss")
		ndctl create-namespace -f -e "$MI_NS" "${opts[@]}" >/dev/null 2>&1
	fi
	if [ "$req" != - ] && [ "$(mi_ns_request)" != "$req" ]; then
		ndctl disable-namespace "$MI_NS" >/dev/null 2>&1
		"$MI_WRITE" "$MI_NS_ATTR" "$req" >/dev/null
		ndctl enable-namespace "$MI_NS" >/dev/null 2>&1
	fi
	now=$(mi_ns_config)
	if [ "$now" != "$MI_NS_SAVED" ]; then
		ktap_print_msg "cannot put $MI_NS back: it was '$MI_NS_SAVED'" \
			"(mode map align sector_size request), it is '$now'"
		rc=1
	fi
	if [ "$MI_NS_WAS_DISABLED" = 1 ] &&
		! ndctl disable-namespace "$MI_NS" >/dev/null 2>&1; then
		ktap_print_msg "cannot disable $MI_NS again, as it was found"
		rc=1
	fi
	return "$rc"
}

# mi_ns_dev KIND: the block device (KIND blockdev, e.g. pmem0) or device-dax
# character device (KIND chardev, e.g. dax0.0) of the namespace.
mi_ns_dev() {
	ndctl list -n "$MI_NS" 2>/dev/null |
		sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" | head -n 1
}

# mi_lr_init: take the region MEMMAP_INIT_LABEL_REGION names: one NVDIMM
# that can store labels, none of whose namespaces is in use, not holding
# the namespace the other tests use.  Sets MI_LR (the region) and
# MI_LR_NMEM (its NVDIMM).  Returns false (with MI_LR_WHY set) when the
# run names none or when it is in use; bails out when the region does
# not exist, maps more than one NVDIMM or one without a label area, or
# holds MEMMAP_INIT_NAMESPACE.
mi_lr_init() {
	local r=${MEMMAP_INIT_LABEL_REGION:-} d n u users=
	MI_LR_WHY=
	if [ -z "$r" ]; then
		MI_LR_WHY="set MEMMAP_INIT_LABEL_REGION=regionN (one NVDIMM with a"
		MI_LR_WHY+=" label area) to let the test re-initialize its labels"
		MI_LR_WHY+=" and destroy every namespace in it"
		return 1
	fi
	d=/sys/bus/nd/devices/$r
	[ -d "$d" ] || mi_bail "MEMMAP_INIT_LABEL_REGION=$r: no such region ('ndctl list -R')"
	if [ ! -f "$d/mapping0" ] || [ -e "$d/mapping1" ]; then
		mi_bail "MEMMAP_INIT_LABEL_REGION=$r does not map exactly one NVDIMM"
	fi
	n=$(cut -d, -f1 <"$d/mapping0")
	grep -qw set_data "/sys/bus/nd/devices/$n/commands" 2>/dev/null ||
		mi_bail "MEMMAP_INIT_LABEL_REGION=$r: $n has no label area"
	if [ -n "${MEMMAP_INIT_NAMESPACE:-}" ] && [ -e "$d/$MEMMAP_INIT_NAMESPACE" ]; then
		mi_bail "MEMMAP_INIT_LABEL_REGION=$r holds" \
			"MEMMAP_INIT_NAMESPACE=$MEMMAP_INIT_NAMESPACE, which this test would destroy"
	fi
	modprobe -q -a nd_pmem dax_pmem device_dax 2>/dev/null
	for u in "$d"/namespace*; do
		[ -e "$u" ] || continue
		u=$(mi_ns_users "${u##*/}")
		[ -z "$u" ] || users+="${users:+; }$(mi_join <<<"$u")"
	done
	if [ -n "$users" ]; then
		MI_LR_WHY="$r is in use, not touching it: $users"
		return 1
	fi
	MI_LR=$r
	MI_LR_NMEM=$n
}

# ---------------------------------------------------------------- test_hmm

# mi_hmm_init: false (MI_HMM_WHY set) without a loadable test_hmm.
mi_hmm_init() {
	MI_HMM_WHY=
	if ! modinfo test_hmm >/dev/null 2>&1; then
		MI_HMM_WHY="no test_hmm module (CONFIG_TEST_HMM=m)"
		return 1
	fi
	if [ -d /sys/module/test_hmm ] && ! grep -q '^test_hmm ' /proc/modules; then
		MI_HMM_WHY="test_hmm is built in, its parameter cannot change"
		return 1
	fi
	if ! modinfo -p test_hmm 2>/dev/null | grep -q '^memmap_streaming:'; then
		MI_HMM_WHY="test_hmm has no memmap_streaming parameter"
		return 1
	fi
	# mi_cleanup unloads it.
	MI_HMM_USED=1
}

# ---------------------------------------------------------------- p2pdma, hmem, coherent

# mi_p2p_init: take the PCI device MEMMAP_INIT_P2PDMA names, when it may be
# used.  Sets MI_P2P (the device) and MI_P2P_DRV (its driver's directory).
# Returns false (MI_P2P_WHY set) when the run names none, when no driver
# is bound to it or when it is in use (mi_p2p_users); bails out when it
# does not exist or has no p2pdma memory.
mi_p2p_init() {
	local dev=${MEMMAP_INIT_P2PDMA:-} d users
	MI_P2P_WHY=
	if [ -z "$dev" ]; then
		MI_P2P_WHY="set MEMMAP_INIT_P2PDMA=DDDD:BB:DD.F (a PCI device with"
		MI_P2P_WHY+=" p2pdma memory) to let the tests rebind its driver"
		return 1
	fi
	d=/sys/bus/pci/devices/$dev
	[ -d "$d" ] || mi_bail "MEMMAP_INIT_P2PDMA=$dev: no such PCI device (/sys/bus/pci/devices)"
	[ -d "$d/p2pmem" ] ||
		mi_bail "MEMMAP_INIT_P2PDMA=$dev has no p2pdma memory" \
			"(no p2pmem in its sysfs directory)"
	if [ ! -e "$d/driver" ]; then
		MI_P2P_WHY="$dev has no driver bound: nothing publishes its p2pdma memory"
		return 1
	fi
	users=$(mi_p2p_users "$dev")
	if [ -n "$users" ]; then
		MI_P2P_WHY="$dev is in use, not touching it: $(mi_join <<<"$users")"
		return 1
	fi
	MI_P2P=$dev
	MI_P2P_DRV=$(readlink -f "$d/driver")
}

# mi_p2p_users DEV: what uses PCI device DEV, one finding a line: p2pdma
# memory allocated from it (p2pmem's available less than its size), and
# its block devices (an NVMe controller's namespaces) as mi_blk_users and
# mi_open_users find them.
mi_p2p_users() {
	local d=/sys/bus/pci/devices/$1 b size avail
	MI_DEVNUMS=()
	size=$(cat "$d/p2pmem/size" 2>/dev/null)
	avail=$(cat "$d/p2pmem/available" 2>/dev/null)
	[ "$size" = "$avail" ] ||
		echo "$1 has p2pdma memory allocated ($avail of $size bytes available)"
	for b in /sys/class/block/*; do
		if [ ! -e "$b" ] || [ -e "$b/partition" ]; then continue; fi
		case "$(readlink -f "$b")" in
		*/"$1"/*) mi_blk_users "${b##*/}" ;;
		esac
	done
	mi_open_users
}

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

# mi_p2p_rebind REQUEST: rebind MI_P2P's driver (mi_drv_rebind): its probe
# publishes the p2pdma memory again.  The device has no request of its
# own: REQUEST is not used, the policy decides.
mi_p2p_rebind() {
	mi_drv_rebind "$MI_P2P_DRV" "$MI_P2P" || return 1
	if [ ! -d "/sys/bus/pci/devices/$MI_P2P/p2pmem" ]; then
		ktap_print_msg "no p2pmem after binding $MI_P2P to ${MI_P2P_DRV##*/}"
		return 1
	fi
}

# mi_p2p_restore: bind MI_P2P to its driver again if a test left it
# unbound (mi_cleanup calls it); false when that fails.
mi_p2p_restore() {
	[ -z "$MI_P2P" ] || mi_drv_restore "$MI_P2P_DRV" "$MI_P2P"
}

# mi_hmem_init: take the device-dax instance MEMMAP_INIT_HMEM names, when it
# may be used.  Sets MI_HMEM.  Returns false (MI_HMEM_WHY set) when the
# run names none, when it is not bound to device_dax or is in use
# (mi_dax_users); bails out when it does not exist or is not of
# soft-reserved memory (dax_hmem).
mi_hmem_init() {
	local dax=${MEMMAP_INIT_HMEM:-} d users drv
	MI_HMEM_WHY=
	if [ -z "$dax" ]; then
		MI_HMEM_WHY="set MEMMAP_INIT_HMEM=daxX.Y (device-dax of soft-reserved"
		MI_HMEM_WHY+=" memory) to let the tests rebind it and destroy its data"
		return 1
	fi
	d=/sys/bus/dax/devices/$dax
	[ -e "$d" ] || mi_bail "MEMMAP_INIT_HMEM=$dax: no such device-dax instance ('daxctl list')"
	case "$(readlink -f "$d")" in
	*/hmem.*/*) ;;
	*) mi_bail "MEMMAP_INIT_HMEM=$dax is not of soft-reserved memory" \
		"(no hmem device above it)" ;;
	esac
	drv=$(readlink "$d/driver" 2>/dev/null)
	MI_DEVNUMS=()
	users=$(mi_dax_users "$dax"; mi_open_users)
	if [ -n "$users" ]; then
		MI_HMEM_WHY="$dax is in use, not touching it: $(mi_join <<<"$users")"
		return 1
	fi
	if [ "${drv##*/}" != device_dax ]; then
		MI_HMEM_WHY="$dax is not bound to device_dax"
		MI_HMEM_WHY+=" ('daxctl reconfigure-device --mode=devdax $dax')"
		return 1
	fi
	MI_HMEM=$dax
}

# mi_hmem_rebind REQUEST: rebind MI_HMEM to device_dax (mi_drv_rebind).
# Soft-reserved device-dax has no request of its own: REQUEST is not
# used, the policy decides.
mi_hmem_rebind() {
	mi_drv_rebind /sys/bus/dax/drivers/device_dax "$MI_HMEM"
}

# mi_hmem_restore: bind MI_HMEM to device_dax again if a test left it
# unbound (mi_cleanup calls it); false when that fails.
mi_hmem_restore() {
	[ -z "$MI_HMEM" ] || mi_drv_restore /sys/bus/dax/drivers/device_dax "$MI_HMEM"
}

# MI_COHERENT_SIZE: the memory of test_hmm's two device-coherent devices,
# 256 MiB each (DEVMEM_CHUNK_SIZE).
MI_COHERENT_SIZE=$((512 << 20))

# mi_coherent_init: take the range MEMMAP_INIT_HMM_COHERENT names for
# test_hmm's device-coherent devices.  Sets MI_COHERENT.  Returns false
# (MI_COHERENT_WHY set) when the run names none or test_hmm cannot be
# loaded (mi_hmm_init); bails out when the range is not 2 MiB-aligned
# or not within one "Reserved" range of /proc/iomem.
mi_coherent_init() {
	local a=${MEMMAP_INIT_HMM_COHERENT:-} l s e name found=0
	MI_COHERENT_WHY=
	if [ -z "$a" ]; then
		MI_COHERENT_WHY="set MEMMAP_INIT_HMM_COHERENT=ADDR (512 MiB of reserved"
		MI_COHERENT_WHY+=" memory, e.g. memmap=512M%ADDR-1+2) to let test_hmm"
		MI_COHERENT_WHY+=" use it as device-coherent memory"
		return 1
	fi
	a=$((a))
	[ $((a % (2 << 20))) -eq 0 ] ||
		mi_bail "MEMMAP_INIT_HMM_COHERENT=$MEMMAP_INIT_HMM_COHERENT is not 2 MiB-aligned"
	# Top-level ranges: "start-end : name", addresses in hex.
	while IFS= read -r l; do
		[[ "$l" =~ ^([0-9a-f]+)-([0-9a-f]+)\ :\ (.*)$ ]] || continue
		s=$((16#${BASH_REMATCH[1]})) e=$((16#${BASH_REMATCH[2]})) name=${BASH_REMATCH[3]}
		if [ "$s" -le "$a" ] && [ "$e" -ge $((a + MI_COHERENT_SIZE - 1)) ] &&
			[ "$name" = Reserved ]; then
			found=1
		fi
	done </proc/iomem
	[ "$found" = 1 ] ||
		mi_bail "MEMMAP_INIT_HMM_COHERENT=$MEMMAP_INIT_HMM_COHERENT:" \
			"$((MI_COHERENT_SIZE >> 20)) MiB from there" \
			"are not within one Reserved range of /proc/iomem"
	if ! mi_hmm_init; then
		MI_COHERENT_WHY=$MI_HMM_WHY
		return 1
	fi
	MI_COHERENT=$a
}

# mi_coherent_load REQUEST: (re)load test_hmm with that request and the
# device-coherent range (mi_hmm_load).
mi_coherent_load() {
	mi_hmm_load "$1" "spm_addr_dev0=$(printf '%#x' "$MI_COHERENT")" \
		"spm_addr_dev1=$(printf '%#x' $((MI_COHERENT + MI_COHERENT_SIZE / 2)))"
}

# mi_devices: the memory a test may bind.  Sets have_ns (1 when
# MEMMAP_INIT_NAMESPACE names a namespace it may reconfigure: mi_ns_init,
# else MI_NS_WHY says why not) and have_hmm (1 when test_hmm can be
# loaded with a request: mi_hmm_init, else MI_HMM_WHY), have_p2p,
# have_hmem and have_coherent (mi_p2p_init, mi_hmem_init and
# mi_coherent_init, else MI_P2P_WHY, MI_HMEM_WHY, MI_COHERENT_WHY).
mi_devices() {
	have_ns=1
	mi_ns_init || have_ns=0
	have_hmm=1
	mi_hmm_init || have_hmm=0
	have_p2p=1
	mi_p2p_init || have_p2p=0
	have_hmem=1
	mi_hmem_init || have_hmem=0
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

# mi_hmm_load REQUEST [PARAM...]: (re)load test_hmm with that request and
# the module parameters PARAM; MI_BIND_NS is how long the load, which
# contains the binds, took.
mi_hmm_load() {
	local t0 rc=0 req=$1
	shift
	modprobe -r test_hmm 2>/dev/null
	[ -z "$MI_TRACE" ] || mi_trace_clear
	t0=$(mi_now_ns)
	modprobe test_hmm "memmap_streaming=$req" "$@" >"$MI_TMP/modprobe.out" 2>&1 || rc=1
	MI_BIND_NS=$(($(mi_now_ns) - t0))
	if [ "$rc" -ne 0 ]; then
		ktap_print_msg "'modprobe test_hmm memmap_streaming=$req $*' failed:"
		mi_indent <"$MI_TMP/modprobe.out"
		return 1
	fi
}

mi_hmm_unload() {
	modprobe -r test_hmm 2>/dev/null
	return 0
}

# ---------------------------------------------------------------- threads

# mi_debugfs: debugfs at /sys/kernel/debug, mounted if it is not; false
# when it cannot be.
mi_debugfs() {
	grep -q ' /sys/kernel/debug ' /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
}

# mi_cpulist LIST: the CPUs of a cpulist such as "0-3,8", one a line.
mi_cpulist() {
	local r a b i
	local -a rs
	IFS=, read -r -a rs <<<"$1"
	for r in ${rs[@]+"${rs[@]}"}; do
		[[ "$r" =~ ^([0-9]+)(-([0-9]+))?$ ]] || continue
		a=${BASH_REMATCH[1]}
		b=${BASH_REMATCH[3]:-$a}
		for ((i = a; i <= b; i++)); do echo "$i"; done
	done
}

# mi_nodes: the online nodes, one a line (0 without NUMA).
mi_nodes() {
	local n
	if [ -r /sys/devices/system/node/online ]; then
		mi_cpulist "$(cat /sys/devices/system/node/online)"
	else
		echo 0
	fi
}

# mi_cpus_init: MI_CPUS, the online CPUs; MI_NODE_ONLINE[N], the online
# CPUs of node N, and MI_NODE_HK[N], those of them that are housekeeping
# CPUs, not set apart by isolcpus= (/sys/devices/system/cpu/isolated) or
# nohz_full= (.../nohz_full), which MI_NODE_HK_CPUS[N] lists.  Without
# NUMA, node 0 has every CPU.
mi_cpus_init() {
	local c n k h f l
	local -A online=() isolated=()
	[ -z "$MI_CPUS" ] || return 0
	for c in $(mi_cpulist "$(cat /sys/devices/system/cpu/online 2>/dev/null)"); do
		online[$c]=1
	done
	for f in isolated nohz_full; do
		for c in $(mi_cpulist "$(cat "/sys/devices/system/cpu/$f" 2>/dev/null)"); do
			isolated[$c]=1
		done
	done
	MI_CPUS=${#online[@]}
	[ "$MI_CPUS" -gt 0 ] || MI_CPUS=$(nproc)
	for n in $(mi_nodes); do
		k=0 h=0 l=
		f=/sys/devices/system/node/node$n/cpulist
		[ -r "$f" ] || f=/sys/devices/system/cpu/online
		for c in $(mi_cpulist "$(cat "$f")"); do
			[ -n "${online[$c]:-}" ] || continue
			k=$((k + 1))
			[ -z "${isolated[$c]:-}" ] || continue
			h=$((h + 1))
			l+=" $c"
		done
		MI_NODE_ONLINE[$n]=$k
		MI_NODE_HK[$n]=$h
		MI_NODE_HK_CPUS[$n]=${l# }
	done
}

# mi_cpu_node NODE: the node whose CPUs run the helpers for memory of NODE:
# NODE when it has an online CPU, else the nearest node that has one
# (/sys/devices/system/node/nodeNODE/distance, the lowest node on a tie),
# as numa_nearest_node() picks it; NODE itself when no distances are known.
mi_cpu_node() {
	local n=$1 best="" bestd="" d i=0
	local -a nodes dists
	mi_cpus_init
	if [ "${MI_NODE_ONLINE[$n]:-0}" -gt 0 ] ||
		[ ! -r "/sys/devices/system/node/node$n/distance" ]; then
		echo "$n"
		return
	fi
	mapfile -t nodes < <(mi_nodes)
	read -r -a dists <"/sys/devices/system/node/node$n/distance"
	for i in "${!nodes[@]}"; do
		d=${dists[$i]:-}
		[ -n "$d" ] || continue
		[ "${MI_NODE_ONLINE[${nodes[$i]}]:-0}" -gt 0 ] || continue
		if [ -z "$bestd" ] || [ "$d" -lt "$bestd" ]; then
			best=${nodes[$i]} bestd=$d
		fi
	done
	echo "${best:-$n}"
}

# mi_ns_node: the node of the namespace's memory (its numa_node), or "-"
# when the namespace has none (no NUMA: the binding CPU's node is used).
mi_ns_node() {
	local n
	n=$(cat "/sys/bus/nd/devices/$MI_NS/numa_node" 2>/dev/null)
	if [[ "$n" =~ ^[0-9]+$ ]]; then echo "$n"; else echo -; fi
}

# mi_cpumask LIST: the CPUs of LIST as the kernel writes a cpumask: hex
# words of 32 CPUs, the highest first, separated by commas.
mi_cpumask() {
	local c w n=0 out=
	local -a words=()
	for c in $(mi_cpulist "$1"); do
		w=$((c / 32))
		words[w]=$((${words[w]:-0} | (1 << (c % 32))))
		[ "$w" -lt "$n" ] || n=$((w + 1))
	done
	for ((w = n - 1; w >= 0; w--)); do
		out+=$(printf '%08x' "${words[w]:-0}")
		[ "$w" -eq 0 ] || out+=,
	done
	echo "$out"
}

# mi_cpumask_list MASK: the CPUs of a cpumask as the kernel writes it
# (mi_cpumask), as a CPU list.
mi_cpumask_list() {
	local i v bit c=0 out=
	local -a words
	IFS=, read -r -a words <<<"$1"
	for ((i = ${#words[@]} - 1; i >= 0; i--)); do
		v=$((16#${words[i]}))
		for ((bit = 0; bit < 32; bit++)); do
			[ $(((v >> bit) & 1)) -eq 0 ] || out+=,$((c + bit))
		done
		c=$((c + 32))
	done
	echo "${out#,}"
}

# mi_cgroup2: where the cgroup v2 hierarchy is mounted; false if nowhere.
mi_cgroup2() {
	awk '$3 == "cgroup2" { print $2; found = 1; exit } END { exit !found }' \
		/proc/mounts 2>/dev/null
}

# mi_cpuset_usable: where the cgroup v2 hierarchy is mounted, if it has
# the cpuset controller; false otherwise.
mi_cpuset_usable() {
	local root
	root=$(mi_cgroup2) && grep -qw cpuset "$root/cgroup.controllers" 2>/dev/null &&
		echo "$root"
}

# mi_cpuset_enter LIST PID: move PID into a new cgroup whose cpuset holds
# the CPUs of LIST, enabling the cpuset controller for the root's children
# if it was not; prints why not and is false when it cannot.
# mi_cpuset_leave PID puts everything back.
mi_cpuset_enter() {
	local root
	if ! root=$(mi_cpuset_usable); then
		ktap_print_msg "no cgroup v2 hierarchy with the cpuset controller" \
			"(CONFIG_CPUSETS)"
		return 1
	fi
	MI_CPUSET_FROM=$(sed -n 's/^0:://p' "/proc/$2/cgroup")
	if ! grep -qw cpuset "$root/cgroup.subtree_control"; then
		if ! echo +cpuset 2>/dev/null >"$root/cgroup.subtree_control"; then
			ktap_print_msg "cannot enable the cpuset controller in $root"
			return 1
		fi
		MI_CPUSET_ENABLED=$root
	fi
	MI_CPUSET_DIR=$root/memmap_init.$$
	if ! mkdir "$MI_CPUSET_DIR" ||
		! echo "$1" 2>/dev/null >"$MI_CPUSET_DIR/cpuset.cpus" ||
		! echo "$2" 2>/dev/null >"$MI_CPUSET_DIR/cgroup.procs"; then
		ktap_print_msg "cannot make a cpuset of CPUs $1 in $MI_CPUSET_DIR"
		mi_cpuset_leave "$2"
		return 1
	fi
}

mi_cpuset_leave() {
	local root
	[ -n "$MI_CPUSET_DIR" ] || return 0
	root=${MI_CPUSET_DIR%/*}
	[ ! -d "$root$MI_CPUSET_FROM" ] ||
		echo "$1" 2>/dev/null >"$root$MI_CPUSET_FROM/cgroup.procs"
	rmdir "$MI_CPUSET_DIR" 2>/dev/null
	[ -z "$MI_CPUSET_ENABLED" ] ||
		echo -cpuset 2>/dev/null >"$MI_CPUSET_ENABLED/cgroup.subtree_control"
	MI_CPUSET_DIR=
	MI_CPUSET_FROM=
	MI_CPUSET_ENABLED=
}

# mi_limited LIMIT CMD...: run CMD, a command or a function of this shell,
# with this shell, and so every process CMD starts, held to LIMIT, then
# lift it.  LIMIT is cpu=LIST (allowed only on the CPUs of LIST, as taskset
# would), cpuset=LIST (in a cgroup v2 cpuset of the CPUs of LIST, as an
# administrator would confine a task), nice=N (nice value N, as nice
# would), wq=LIST (the
# shell on the CPUs of LIST, and the unbound workqueues' workers too,
# through MI_WQ_CPUMASK: for binds that do not run in the task that asks
# for them, as pmem namespaces bind in libnvdimm's worker) or "" (none).
# Returns CMD's status; 1 when the limit cannot be set.
mi_limited() {
	local lim=$1 pid=$BASHPID rc=0 cpus nice mask
	shift
	cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$pid/status")
	nice=$(sed 's/^.*) //' "/proc/$pid/stat" | cut -d' ' -f17)
	case "$lim" in
	'') ;;
	cpu=*) taskset -pc "${lim#cpu=}" "$pid" >/dev/null || return 1 ;;
	cpuset=*) mi_cpuset_enter "${lim#cpuset=}" "$pid" || return 1 ;;
	nice=*) renice "${lim#nice=}" -p "$pid" >/dev/null || return 1 ;;
	wq=*)
		if [ -n "$MI_WQ_SAVED" ]; then
			ktap_print_msg "mi_limited wq= inside mi_limited wq=: refused"
			return 1
		fi
		mask=$(mi_cpumask "${lim#wq=}")
		# Save what the administrator asked for, not the effective mask
		# (less the isolated CPUs), which writing back would narrow.
		if [ -z "$mask" ] ||
			! MI_WQ_SAVED=$(cat "${MI_WQ_CPUMASK}_requested" 2>/dev/null ||
				cat "$MI_WQ_CPUMASK" 2>/dev/null) || [ -z "$MI_WQ_SAVED" ]; then
			MI_WQ_SAVED=
			ktap_print_msg "cannot limit the unbound workqueues: no CPUs" \
				"'${lim#wq=}' or no $MI_WQ_CPUMASK"
			return 1
		fi
		taskset -pc "${lim#wq=}" "$pid" >/dev/null || rc=1
		if [ "$rc" -eq 0 ] && ! echo "$mask" 2>/dev/null >"$MI_WQ_CPUMASK"; then
			ktap_print_msg "cannot limit the unbound workqueues to CPUs" \
				"${lim#wq=} (mask $mask)"
			rc=1
		fi ;;
	*) return 1 ;;
	esac
	[ "$rc" -ne 0 ] || "$@" || rc=$?
	case "$lim" in
	cpu=*) taskset -pc "$cpus" "$pid" >/dev/null ;;
	cpuset=*) mi_cpuset_leave "$pid" ;;
	nice=*) renice "$nice" -p "$pid" >/dev/null ;;
	wq=*)
		taskset -pc "$cpus" "$pid" >/dev/null
		mi_wq_restore || rc=1 ;;
	esac
	return "$rc"
}

# mi_wq_restore: put back the unbound workqueues' cpumask mi_limited wq=
# changed.  False, keeping MI_WQ_SAVED for mi_cleanup to try again, when
# the write fails.
mi_wq_restore() {
	[ -n "$MI_WQ_SAVED" ] || return 0
	if ! echo "$MI_WQ_SAVED" 2>/dev/null >"$MI_WQ_CPUMASK"; then
		ktap_print_msg "cannot put back $MI_WQ_CPUMASK: $MI_WQ_SAVED"
		return 1
	fi
	MI_WQ_SAVED=
}

# mi_allowed_cpus LIMIT: the online CPUs a task under LIMIT (mi_limited)
# started from this shell may run on, one a line.
mi_allowed_cpus() {
	local lim=$1 list c
	local -A online=()
	list=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$BASHPID/status")
	case "$lim" in
	cpu=*|wq=*|cpuset=*) list=${lim#*=} ;;
	esac
	for c in $(mi_cpulist "$(cat /sys/devices/system/cpu/online 2>/dev/null)"); do
		online[$c]=1
	done
	for c in $(mi_cpulist "$list"); do
		[ -z "${online[$c]:-}" ] || echo "$c"
	done
}

# mi_helper_cpus_allowed NODE LIMIT: the CPUs on which the memmap init of
# memory of NODE (a node with CPUs: mi_cpu_node) may run helpers for a
# task under LIMIT: the node's housekeeping CPUs that the task may run on,
# one a line.
mi_helper_cpus_allowed() {
	local c
	local -A ok=()
	mi_cpus_init
	for c in $(mi_allowed_cpus "$2"); do ok[$c]=1; done
	for c in ${MI_NODE_HK_CPUS[$1]:-}; do
		[ -z "${ok[$c]:-}" ] || echo "$c"
	done
}

# mi_allowed LIMIT: how many online CPUs a task under LIMIT (mi_limited)
# started from this shell may run on, and its nice value: "CPUS NICE".
mi_allowed() {
	local nice
	nice=$(sed 's/^.*) //' "/proc/$BASHPID/stat" | cut -d' ' -f17)
	case "$1" in nice=*) nice=${1#nice=} ;; esac
	echo "$(mi_allowed_cpus "$1" | grep -c .) $nice"
}

# mi_compound_pages OPTIONS...: the pages of one compound page of a
# namespace that ndctl create-namespace OPTIONS make: device-dax maps its
# align (2 MiB unless given), fsdax single pages.
mi_compound_pages() {
	local a
	case " $* " in
	*" --mode=devdax "*) ;;
	*) echo 1; return ;;
	esac
	a=$(sed -n 's/.*--align=\([0-9]*[KMG]\).*/\1/p' <<<"$*")
	case "$a" in
	*K) a=$((${a%K} * 1024)) ;;
	*M) a=$((${a%M} * 1024 * 1024)) ;;
	*G) a=$((${a%G} * 1024 * 1024 * 1024)) ;;
	*) a=$((2 * 1024 * 1024)) ;;
	esac
	[ "$a" -ge "$MI_PAGE_SIZE" ] || a=$MI_PAGE_SIZE
	echo $((a / MI_PAGE_SIZE))
}

# mi_compound_written COMPOUND ALTMAP: the struct pages memmap init writes
# for each compound page of COMPOUND pages, with the memmap in an altmap
# (ALTMAP 1) or not: all of them, or MI_SHARED_WRITTEN where the tails
# share vmemmap pages.
mi_compound_written() {
	if [ "$2" = 0 ] && [ "$1" -gt "$MI_SHARED_WRITTEN" ]; then
		echo "$MI_SHARED_WRITTEN"
	else
		echo "$1"
	fi
}

# mi_threads_chunk COMPOUND ALTMAP: "MIN_CHUNK ALIGN", the kernel's
# chunking for compound pages of COMPOUND pages (ALTMAP as for
# mi_compound_written): chunk boundaries at multiples of ALIGN, the larger
# of COMPOUND and a section, and chunks of at least MIN_CHUNK: the compound
# pages that write two sections' worth of struct pages, rounded up to ALIGN.
mi_threads_chunk() {
	local a=$MI_SECTION_PAGES w min
	[ "$a" -ge "$1" ] || a=$1
	w=$(mi_compound_written "$1" "$2")
	# Whole compound pages: round the count up before scaling it.
	min=$(((2 * MI_SECTION_PAGES + w - 1) / w))
	min=$((min * $1))
	echo "$(((min + a - 1) / a * a)) $a"
}

# mi_threads_expected NR_PAGES START_PFN COMPOUND ALTMAP NODE LIMIT: "LO HI
# NID WHY": the threads a memmap init of that range (compound pages of
# COMPOUND pages, its memmap in an altmap if ALTMAP is 1, memory of NODE,
# "-" for unknown) may report when the
# binding task runs under LIMIT (mi_limited), the node it reports (NID,
# "-" when it cannot be known here), and why.  No pages: no thread, and
# the node is NODE.  Otherwise the node is mi_cpu_node NODE, and one
# thread runs a range that does not start at a compound page, a binding
# task with a positive nice value, or a range of less than two chunks
# (mi_threads_chunk); else at most one thread per chunk and per online
# housekeeping CPU of that node that the binding task may run on
# (mi_helper_cpus_allowed), one when there is none.  LO is 1 whenever HI
# allows more: a helper that has not started when the calling thread took
# every chunk is cancelled and does not count (padata), and when one
# starts is the scheduler's choice, so no test insists on two.
mi_threads_expected() {
	local nr=$1 start=$2 compound=$3 altmap=$4 node=$5 lim=$6
	local chunk n hk allowed nice nid hi
	mi_cpus_init
	nid=-
	[ "$node" = - ] || nid=$(mi_cpu_node "$node")
	read -r chunk _ < <(mi_threads_chunk "$compound" "$altmap")
	read -r allowed nice < <(mi_allowed "$lim")
	n=$((nr / chunk))
	if [ "$nr" -eq 0 ]; then
		echo "0 0 $node a call without pages runs no thread"
		return
	fi
	# The helpers' CPUs: the node's housekeeping CPUs the task may use.
	if [ "$nid" = - ]; then
		# Some node with CPUs: allow the most of any.
		hk=0
		for k in "${!MI_NODE_HK[@]}"; do
			k=$(mi_helper_cpus_allowed "$k" "$lim" | grep -c .)
			[ "$k" -le "$hk" ] || hk=$k
		done
	else
		hk=$(mi_helper_cpus_allowed "$nid" "$lim" | grep -c .)
	fi
	hi=$n
	[ "$hk" -ge "$hi" ] || hi=$hk
	if [ $((start % compound)) -ne 0 ]; then
		echo "1 1 $nid the range does not start at a compound page of $compound pages"
	elif [ "$nice" -gt 0 ]; then
		echo "1 1 $nid the binding task has nice $nice"
	elif [ "$n" -lt 2 ]; then
		echo "1 1 $nid $nr pages are less than two chunks of $chunk"
	elif [ "$hi" -lt 2 ]; then
		echo "1 1 $nid $hk housekeeping CPU(s) of node $nid that the binding" \
			"task may use ($allowed allowed to it)"
	else
		echo "1 $hi $nid room for $n chunks of at least $chunk pages, $hk housekeeping" \
			"CPU(s) of node $nid that the binding task may use ($allowed allowed to it)"
	fi
}

# mi_threads_check EVENTS COMPOUND NODE LIMIT: for each event of EVENTS
# (one a line, its altmap field saying where its memmap is) whose threads
# or nid mi_threads_expected does not allow,
# print what is wrong, " ...;" each, all on one line; nothing if all are
# allowed.
mi_threads_check() {
	local e t id nr start altmap lo hi nid why
	while IFS= read -r e; do
		[ -n "$e" ] || continue
		t=$(mi_field "$e" threads)
		altmap=$(mi_field "$e" altmap)
		id=$(mi_field "$e" nid)
		nr=$(mi_field "$e" nr_pages)
		start=$(mi_field "$e" start_pfn)
		if ! [[ "$nr" =~ ^[0-9]+$ ]] || ! [[ "$start" =~ ^0x[0-9a-f]+$ ]]; then
			printf " no nr_pages or start_pfn in '%s';" "$e"
			continue
		fi
		read -r lo hi nid why < <(mi_threads_expected "$nr" $((start)) "$2" \
			"$altmap" "$3" "$4")
		if ! [[ "$t" =~ ^[0-9]+$ ]] || [ "$t" -lt "$lo" ] || [ "$t" -gt "$hi" ]; then
			printf " threads=%s for %s pages from %s, want %s to %s (%s);" \
				"$t" "$nr" "$start" "$lo" "$hi" "$why"
		fi
		if [ "$nid" != - ] && [ "$id" != "$nid" ]; then
			printf " nid=%s for %s pages from %s, want %s (memory of node %s);" \
				"$id" "$nr" "$start" "$nid" "$3"
		fi
	done <<<"$1"
}

# mi_threads_chunks NR_PAGES START_PFN COMPOUND ALTMAP THREADS: "CHUNKS SIZE
# FIRST": how padata cut a range that THREADS (2 or more) threads
# initialized: about four chunks a thread and at least MIN_CHUNK pages
# each, rounded up to ALIGN (mi_threads_chunk), ending at multiples of
# SIZE, so that the first has FIRST pages, less than SIZE when the range
# does not start at such a multiple.
mi_threads_chunks() {
	local nr=$1 start=$(($2)) t=$5 min align size first
	read -r min align < <(mi_threads_chunk "$3" "$4")
	size=$((nr / (t * 4)))
	[ "$size" -ge "$min" ] || size=$min
	size=$(((size + align - 1) / align * align))
	first=$(((start / size + 1) * size - start))
	[ "$first" -le "$nr" ] || first=$nr
	echo "$(((start + nr - 1) / size - start / size + 1)) $size $first"
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
