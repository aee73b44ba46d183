# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# Helpers shared by the memmap_init selftests.  Sourced, never executed.
#
# What the tests look at:
#   /sys/kernel/mm/memmap_streaming         the streaming policy (read-only)
#   /sys/bus/nd/devices/NS/memmap_streaming the per-namespace request
#   test_hmm memmap_streaming=              the device-private request
#   memmap:memmap_init_zone_device          one trace event per memmap init,
#                                           naming the backend it used
# and what decides the backend, in order: KASAN or KMSAN (slow), an enabled
# page_ref_set tracepoint (slow), CONFIG_MEMMAP_STREAMING=n (template), the
# request (on: template+streaming, off: template) and, for "default", the
# policy (on: template+streaming, altmap: template+streaming when the memmap
# lives in an altmap, off: template).

MI_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../kselftest/ktap_helpers.sh
. "$MI_DIR/../kselftest/ktap_helpers.sh"

MI_POLICY_ATTR=/sys/kernel/mm/memmap_streaming
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
MI_PAGEREF=
MI_NS=
MI_NS_ATTR=
MI_CONFIG=
MI_TMP=
MI_BIND_NS=0
MI_DYNDBG=

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
}

# Scripts add their own cleanup by defining mi_cleanup_hook.
mi_cleanup() {
	if declare -F mi_cleanup_hook >/dev/null; then mi_cleanup_hook; fi
	mi_pageref_off
	mi_prdebug_off
	if [ -n "$MI_TRACE" ] && [ -d "$MI_TRACE" ]; then
		echo 0 >"$MI_TRACE/events/$MI_EVENT/enable" 2>/dev/null
		rmdir "$MI_TRACE" 2>/dev/null
	fi
	[ -z "$MI_TMP" ] || rm -rf "$MI_TMP"
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

# mi_build_policy: the policy CONFIG_MEMMAP_STREAMING_DEFAULT_* selects.
mi_build_policy() {
	if ! mi_config MEMMAP_STREAMING; then
		echo off
	elif mi_config MEMMAP_STREAMING_DEFAULT_ON; then
		echo on
	elif mi_config MEMMAP_STREAMING_DEFAULT_ALTMAP; then
		echo altmap
	else
		echo off
	fi
}

# mi_cmdline_values: the memmap_streaming= values on the command line, in
# order, one a line ("" for a bare memmap_streaming).
mi_cmdline_values() {
	local p
	local -a params
	read -r -a params </proc/cmdline
	for p in ${params[@]+"${params[@]}"}; do
		case "$p" in
		memmap_streaming=*) echo "${p#memmap_streaming=}" ;;
		memmap_streaming) echo "" ;;
		esac
	done
}

# mi_expected_policy: "POLICY SOURCE": what the kernel must have chosen
# from the command line and the build default (needs mi_load_config).
mi_expected_policy() {
	local v policy source="build default"

	policy=$(mi_build_policy)
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

	if mi_config KASAN || mi_config KMSAN; then
		echo slow
	elif [ -n "$MI_PAGEREF" ]; then
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

mi_trace_clear() {
	: >"$MI_TRACE/trace"
}

# mi_trace_events: the recorded events, "start_pfn=... duration_ns=..." a line.
mi_trace_events() {
	sed -n 's/.* memmap_init_zone_device: //p' "$MI_TRACE/trace"
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

# mi_ns_init: find the NVDIMM namespace to use.  Returns false (with
# MI_NS_WHY set) without ndctl, an NVDIMM or the attribute.
mi_ns_init() {
	MI_NS_WHY=
	if ! command -v ndctl >/dev/null; then
		MI_NS_WHY="ndctl not installed"
		return 1
	fi
	modprobe -q -a nd_pmem dax_pmem device_dax 2>/dev/null
	MI_NS=$(ndctl list -N -i 2>/dev/null |
		sed -n 's/.*"dev":"\(namespace[0-9]*\.[0-9]*\)".*/\1/p' | sort -V | head -n 1)
	if [ -z "$MI_NS" ]; then
		MI_NS_WHY="no NVDIMM namespace ('ndctl list -N -i' is empty)"
		return 1
	fi
	MI_NS_ATTR=/sys/bus/nd/devices/$MI_NS/memmap_streaming
	if [ ! -f "$MI_NS_ATTR" ]; then
		MI_NS_WHY="$MI_NS has no memmap_streaming attribute"
		return 1
	fi
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

# mi_ns_reset: leave the namespace enabled with the default request.
mi_ns_reset() {
	[ -n "$MI_NS" ] || return 0
	ndctl disable-namespace "$MI_NS" >/dev/null 2>&1
	"$MI_WRITE" "$MI_NS_ATTR" default >/dev/null
	ndctl enable-namespace "$MI_NS" >/dev/null 2>&1
}

# mi_ns_dev KIND: the block device (KIND blockdev, e.g. pmem0) or device-dax
# character device (KIND chardev, e.g. dax0.0) of the namespace.
mi_ns_dev() {
	ndctl list -n "$MI_NS" 2>/dev/null |
		sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" | head -n 1
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
}

# mi_hmm_load REQUEST: (re)load test_hmm with that request; MI_BIND_NS is
# how long the load, which contains the binds, took.
mi_hmm_load() {
	local t0 rc=0
	modprobe -r test_hmm 2>/dev/null
	[ -z "$MI_TRACE" ] || mi_trace_clear
	t0=$(mi_now_ns)
	modprobe test_hmm "memmap_streaming=$1" >"$MI_TMP/modprobe.out" 2>&1 || rc=1
	MI_BIND_NS=$(($(mi_now_ns) - t0))
	if [ "$rc" -ne 0 ]; then
		ktap_print_msg "'modprobe test_hmm memmap_streaming=$1' failed:"
		mi_indent <"$MI_TMP/modprobe.out"
		return 1
	fi
}

mi_hmm_unload() {
	modprobe -r test_hmm 2>/dev/null
	return 0
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

# mi_prdebug_lines TEXT: "NR_PAGES BACKEND" of each pr_debug line since the
# marker TEXT, sorted.
mi_prdebug_lines() {
	mi_dmesg_since "$1" |
		sed -n 's/.*memmap_init_zone_device initialised //
			s/^\([0-9]*\) pages in [0-9]*ms (\([a-z+]*\)).*/\1 \2/p' |
		sort
}

# mi_kmsg_mark TEXT: put a marker in the kernel log.
mi_kmsg_mark() {
	echo "memmap_init: $*" >/dev/kmsg 2>/dev/null
}

# mi_dmesg_since TEXT: the kernel log after the last marker TEXT.
mi_dmesg_since() {
	dmesg | awk -v m="memmap_init: $1" '
		index($0, m) { buf = ""; next }
		{ buf = buf $0 "\n" }
		END { printf "%s", buf }'
}
