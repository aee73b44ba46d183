#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The administrator's daxctl workflow on a devdax map=dev align=2M
# namespace: for the namespace request on and off, and for system-ram with
# the memory onlined and with --no-online, bind with the request, write a
# pattern at the end of the device through a device-dax mapping, then
# 'daxctl reconfigure-device --mode=system-ram' (daxctl list must report
# system-ram and every memory block of the device online, or offline with
# --no-online), 'daxctl offline-memory' where it was onlined, and
# 'daxctl reconfigure-device --mode=devdax'.  The devdax bind that follows
# must be one memmap:memmap_init_zone_device event with the backend the
# request asks for, the pattern must read back intact (the end of the
# device is what the kernel uses last while it is system RAM) and the
# request must still read the same.  The device-dax of a CXL ram region
# makes the same round trips, without a request: its devdax bind gets the
# policy's backend, and its memmap has no altmap.  Needs daxctl and the
# kmem driver (CONFIG_DEV_DAX_KMEM), and runs only on the namespace that
# MEMMAP_INIT_NAMESPACE names and the instance MEMMAP_INIT_CXL_DAX names,
# and with MEMMAP_INIT_SYSTEM_RAM=1: it adds their memory to the page
# allocator (memmap_lib_lab.sh).
#
# Loading kmem hands it every device-dax instance of soft-reserved memory
# or of a CXL ram region that no driver has claimed, and kmem adds that
# memory as system RAM.  So while kmem is not loaded and any device-dax
# instance is unclaimed, the test loads nothing and skips, naming it
# (mi_system_ram_need).  memmap_hotplug.sh onlines the same memory to check
# the struct pages memory hotplug writes, and uses it.

# shellcheck disable=SC2317 # mi_cleanup_hook runs from the EXIT trap
# shellcheck source=guest/memmap_init/memmap_lib_lab.sh
. "$(dirname "$0")/memmap_lib_lab.sh"

MEMDIR=$MI_MEMDIR
# The pattern covers the last PAT_LEN bytes of the device.
PAT_LEN=$((4 << 20))

mi_lab_init
RAM_WHY="set MEMMAP_INIT_SYSTEM_RAM=1 to let the test online the memory of the"
RAM_WHY+=" devices it is given as system RAM and offline it again"
have_ns=1
mi_ns_init || have_ns=0
have_cxl_dax=1
mi_cxl_dax_init || have_cxl_dax=0
if [ "$have_ns" = 0 ] && [ "$have_cxl_dax" = 0 ]; then
	if [ -z "${MEMMAP_INIT_NAMESPACE:-}" ] && [ "${MEMMAP_INIT_SYSTEM_RAM:-0}" != 1 ]; then
		MI_NS_WHY+=", and $RAM_WHY"
	fi
	mi_skip_all "$MI_NS_WHY; $MI_CXL_DAX_WHY"
fi
[ "${MEMMAP_INIT_SYSTEM_RAM:-0}" = 1 ] || mi_skip_all "$RAM_WHY"
command -v daxctl >/dev/null || mi_skip_all "daxctl not installed"
[ -x "$MI_PATTERN" ] || mi_skip_all "$MI_PATTERN not built"
mi_system_ram_need
mi_probe
[ "$have_trace" = 1 ] ||
	ktap_print_msg "not checking backends: ${MI_TRACE_WHY:-kernel configuration unknown}"

DAX=
mi_cleanup_hook() {
	if [ -n "$DAX" ] && [ "$(dx_mode)" != devdax ] &&
		! daxctl reconfigure-device -f --mode=devdax "$DAX" >/dev/null 2>&1; then
		ktap_print_msg "cleanup: cannot return $DAX to devdax"
	fi
}

dx_run() {
	mi_run daxctl "$@"
}

# dx_field NAME: a field of 'daxctl list -d DAX'.
dx_field() {
	mi_dax_field "$DAX" "$1"
}

dx_mode() {
	dx_field mode
}

# dx_blocks: the memory blocks wholly inside the device's range, the
# ones kmem hot-adds, one number a line.
dx_blocks() {
	mi_dax_blocks "$DAX"
}

# dx_check_ram STATE: daxctl list reports system-ram, and every memory block
# of the device exists and is in STATE (online or offline).
dx_check_ram() {
	local want=$1 mode blocks b st n=0 bad=0 online total
	mode=$(dx_mode)
	if [ "$mode" != system-ram ]; then
		ktap_print_msg "daxctl list reports mode '$mode', want system-ram"
		return 1
	fi
	blocks=$(dx_blocks)
	for b in $blocks; do
		n=$((n + 1))
		st=$(cat "$MEMDIR/memory$b/state" 2>/dev/null)
		[ "$st" = "$want" ] || {
			ktap_print_msg "memory$b is '${st:-missing}', want $want"
			bad=1
		}
	done
	online=$(dx_field online_memblocks)
	total=$(dx_field total_memblocks)
	ktap_print_msg "$DAX: system-ram, $n memory blocks" \
		"($(head -n 1 <<<"$blocks")..$(tail -n 1 <<<"$blocks")), daxctl:" \
		"${online:-?} of ${total:-?} online"
	if [ "$n" -eq 0 ]; then
		ktap_print_msg "no memory block wholly inside $DAX"
		bad=1
	fi
	[ "$want" = online ] || n=0
	if [ "$online" != "$n" ]; then
		ktap_print_msg "daxctl list reports ${online:-no} online_memblocks, want $n"
		bad=1
	fi
	return "$bad"
}

# dx_pattern fill|check: the pattern in the last PAT_LEN bytes of DAX.
dx_pattern() {
	local size
	size=$(cat "/sys/bus/dax/devices/$DAX/size" 2>/dev/null)
	if [ -z "$size" ] || [ ! -c "/dev/$DAX" ]; then
		ktap_print_msg "no device-dax device /dev/$DAX"
		return 1
	fi
	if ! "$MI_PATTERN" "$1" "/dev/$DAX" $((size - PAT_LEN)) "$PAT_LEN" "$SEED" \
		>"$MI_TMP/pattern.out" 2>&1; then
		ktap_print_msg "$1 /dev/$DAX at $((size - PAT_LEN)), $PAT_LEN bytes:"
		mi_indent <"$MI_TMP/pattern.out"
		return 1
	fi
}

TESTS=(
	"reconfigured to system-ram and back to devdax"
	"devdax bind after the round trip: backend for the request"
	"pattern intact after the round trip"
	"request unchanged after the round trip"
)
KNOBS=(on off)
HOWS=(online no-online)
CXL_NAME="CXL ram devdax"

ktap_print_header
ktap_set_plan $((${#KNOBS[@]} * ${#HOWS[@]} * ${#TESTS[@]} + ${#HOWS[@]} * (${#TESTS[@]} - 1)))

# results PREFIX skip|fail WHY [N]: the first N (default all) results of a
# case that cannot run.
results() {
	local t
	for t in "${TESTS[@]:0:${4:-${#TESTS[@]}}}"; do
		if [ "$2" = skip ]; then mi_skip "$1: $t" "$3"; else mi_result "$1: $t" 1 "$3"; fi
	done
}

# round_trip ns|cxl KNOB HOW: one case of the namespace (four results) or
# of the CXL ram device-dax (KNOB default, three: it has no request).
round_trip() {
	local kind=$1 knob=$2 how=$3 p want rc ok=0 filled=0 events n altmap=1 ntests=4
	local state=online
	local -a opt=()
	[ "$how" = online ] || { state=offline; opt=(--no-online); }
	if [ "$kind" = cxl ]; then
		p="$CXL_NAME ($MI_CXL_DAX), system-ram $how" altmap=0 ntests=3
		DAX=$MI_CXL_DAX
	else
		p="request $knob, system-ram $how"
		if [ "$knob" = on ] && [ "$streaming" = 0 ]; then
			results "$p" skip "kernel built without CONFIG_MEMMAP_STREAMING"
			return
		fi
		if ! mi_ns_rebind "$knob"; then
			results "$p" fail "cannot bind $MI_NS with request $knob"
			return
		fi
		DAX=$(mi_ns_dev chardev)
	fi
	SEED=$RANDOM$RANDOM
	dx_pattern fill && filled=1

	# 1: to system-ram and back, as asked.
	[ "$have_trace" = 0 ] || mi_trace_clear
	dx_run reconfigure-device --mode=system-ram "${opt[@]}" "$DAX" || ok=1
	[ "$ok" = 1 ] || dx_check_ram "$state" || ok=1
	if [ "$have_trace" = 1 ]; then
		n=$(mi_trace_events | grep -c .)
		ktap_print_msg "$p: $n memmap_init_zone_device event(s) going to system-ram"
		mi_trace_clear
	fi
	if [ "$how" = online ]; then
		dx_run offline-memory "$DAX" || ok=1
	fi
	if ! dx_run reconfigure-device --mode=devdax "$DAX"; then
		ok=1
		# Back to devdax anyway, for the next case.
		daxctl reconfigure-device -f --mode=devdax "$DAX" >/dev/null 2>&1
	elif [ "$(dx_mode)" != devdax ] || [ ! -c "/dev/$DAX" ]; then
		ktap_print_msg "after reconfigure-device --mode=devdax: mode '$(dx_mode)'," \
			"/dev/$DAX $([ -c "/dev/$DAX" ] || echo missing)"
		ok=1
	fi
	mi_result "$p: ${TESTS[0]}" "$ok"

	# 2: the devdax bind that followed.
	want=$(mi_expected_backend "$knob" "$altmap")
	if [ "$have_trace" = 0 ]; then
		mi_skip "$p: ${TESTS[1]}" "${MI_TRACE_WHY:-kernel configuration unknown}"
	else
		events=$(mi_trace_wait 1)
		mi_check_events "$events" 1 generic "$altmap" "$want"
		mi_result "$p: ${TESTS[1]}" $? \
			"want one generic bind, altmap $altmap, with backend $want"
	fi

	# 3: the data, 4: the request.
	if [ "$filled" = 0 ]; then
		mi_result "$p: ${TESTS[2]}" 1 "no pattern written"
	else
		dx_pattern check
		mi_result "$p: ${TESTS[2]}" $?
	fi
	[ "$ntests" = 4 ] || return 0
	[ "$(mi_ns_request)" = "$knob" ]
	rc=$?
	mi_result "$p: ${TESTS[3]}" $rc \
		"$MI_NS_ATTR reads '$(cat "$MI_NS_ATTR" 2>/dev/null)', want [$knob]"
}

if [ "$have_ns" = 0 ]; then
	for knob in "${KNOBS[@]}"; do
		for how in "${HOWS[@]}"; do
			results "request $knob, system-ram $how" skip "$MI_NS_WHY"
		done
	done
elif ! mi_ns_reconfig --mode=devdax --map=dev --align=2M; then
	for knob in "${KNOBS[@]}"; do
		for how in "${HOWS[@]}"; do
			results "request $knob, system-ram $how" fail "cannot configure devdax"
		done
	done
else
	for knob in "${KNOBS[@]}"; do
		for how in "${HOWS[@]}"; do
			t0=$SECONDS
			round_trip ns "$knob" "$how"
			ktap_print_msg "request $knob, system-ram $how: $((SECONDS - t0)) s"
		done
	done
fi

for how in "${HOWS[@]}"; do
	if [ "$have_cxl_dax" = 0 ]; then
		results "$CXL_NAME, system-ram $how" skip "$MI_CXL_DAX_WHY" 3
		continue
	fi
	t0=$SECONDS
	round_trip cxl default "$how"
	ktap_print_msg "$CXL_NAME, system-ram $how: $((SECONDS - t0)) s"
done
DAX=

mi_finished
