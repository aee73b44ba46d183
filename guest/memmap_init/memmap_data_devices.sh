#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The memory of the ZONE_DEVICE types other than NVDIMM namespaces works
# after a rebind with the policy's backend: none has a request of its own.
#
#  - p2pdma (MEMMAP_INIT_P2PDMA: its driver rebound, which publishes the
#    memory again): a mapping of p2pmem's allocate file gets pages of the
#    range the rebind initialized (their PFNs, from /proc/self/pagemap),
#    and a pattern written through it reads back identical; once the
#    mapping is gone, every byte of the p2pdma memory is available again:
#    the pages' refcounts brought them back to the pool;
#  - device-dax of soft-reserved memory (MEMMAP_INIT_HMEM) and of a CXL
#    ram region (MEMMAP_INIT_CXL_DAX), rebound to device_dax: each rebind
#    initializes the struct pages of the whole device (its trace event's
#    range is the instance's resource and size), and a pattern written
#    through a mapping at its start and end reads back identical.
#
# Device-coherent memory gets the same from hmm-tests, whose coherent
# variants migrate data to it and back (memmap_hmm_peer.sh).  Where the
# trace event is available, each rebind must also have used the backend
# the policy gives.

# shellcheck disable=SC2317 # functions run indirectly: BIND, VERIFY
# shellcheck source=guest/memmap_init/memmap_lib_lab.sh
. "$(dirname "$0")/memmap_lib_lab.sh"

mi_lab_init
[ -x "$MI_PATTERN" ] || mi_skip_all "$MI_PATTERN not built"
mi_probe
mi_devices
[ "$have_trace" = 1 ] ||
	ktap_print_msg "not checking backends: ${MI_TRACE_WHY:-kernel configuration unknown}"

ktap_print_header
ktap_set_plan 4
read -r policy _ < <(mi_expected_policy)
SEED=$RANDOM$RANDOM
# The range the last rebind initialized: "START_PFN NR_PAGES".
range=

# rebind NAME TYPE BIND: bind with BIND and check the backend of its one
# event; sets range.
rebind() {
	local name=$1 type=$2 bind=$3 want events rc=0
	range=
	"$bind" default || rc=1
	if [ "$rc" -eq 0 ] && [ "$have_trace" = 1 ]; then
		want=$(mi_expected_backend default 0)
		events=$(mi_trace_wait 1)
		if mi_check_events "$events" 1 "$type" 0 "$want" >"$MI_TMP/events"; then
			range="$(($(mi_field "$events" start_pfn))) $(mi_field "$events" nr_pages)"
		else
			cat "$MI_TMP/events"
			ktap_print_msg "$name: the bind did not use the $want backend"
			rc=1
		fi
	fi
	return "$rc"
}

# How a rebind is done, for the descriptions.
HOW="the policy's backend (no request of its own, policy $policy)"

# ---------------------------------------------------------------- p2pdma

P2P_LEN=$((4 << 20))

# p2p_use: map P2P_LEN bytes of p2pmem, write and read them back, and check
# that their PFNs lie in the range the last rebind initialized.
p2p_use() {
	local out lo hi start nr
	out=$("$MI_PATTERN" both "/sys/bus/pci/devices/$MI_P2P/p2pmem/allocate" 0 \
		"$P2P_LEN" "$SEED" 2>&1)
	if ! [[ "$out" =~ ^ok\ pfn\ (0x[0-9a-f]+)-(0x[0-9a-f]+)$ ]]; then
		ktap_print_msg "p2pmem allocation: $out"
		return 1
	fi
	lo=$((BASH_REMATCH[1])) hi=$((BASH_REMATCH[2]))
	[ -n "$range" ] || return 0
	read -r start nr <<<"$range"
	if [ "$lo" -lt "$start" ] || [ "$hi" -ge $((start + nr)) ]; then
		ktap_print_msg "p2pmem allocation: PFNs $out, outside the rebound" \
			"range of $nr pages from PFN $(printf '%#x' "$start")"
		return 1
	fi
	ktap_print_msg "p2pmem allocation: $((P2P_LEN >> 20)) MiB, $out"
}

if [ "$have_p2p" = 0 ]; then
	mi_skip "p2pdma: after a rebind with $HOW: p2pmem pages of the range, written and read back" \
		"$MI_P2P_WHY"
	mi_skip "p2pdma: all of p2pmem available again after the mappings are gone" "$MI_P2P_WHY"
else
	desc="p2pdma ($MI_P2P): after a rebind with $HOW:"
	desc+=" p2pmem pages of the range, written and read back"
	rc=0
	rebind "p2pdma" pci_p2pdma mi_p2p_rebind && p2p_use || rc=1
	mi_result "$desc" "$rc"
	size=$(cat "/sys/bus/pci/devices/$MI_P2P/p2pmem/size")
	avail=$(cat "/sys/bus/pci/devices/$MI_P2P/p2pmem/available")
	[ "$size" = "$avail" ]
	mi_result "p2pdma ($MI_P2P): all of p2pmem available again after the mappings are gone" $? \
		"$avail of $size bytes available"
fi

# ---------------------------------------------------------------- device-dax

# dax_at fill|check: a pattern at the start and the end of device-dax DAX.
dax_at() {
	local op=$1 size align
	size=$(cat "/sys/bus/dax/devices/$DAX/size")
	align=$(cat "/sys/bus/dax/devices/$DAX/align")
	"$MI_PATTERN" "$op" "/dev/$DAX" 0 "$align" "$SEED" >"$MI_TMP/pattern" 2>&1 &&
		"$MI_PATTERN" "$op" "/dev/$DAX" $((size - align)) "$align" "$SEED" \
			>>"$MI_TMP/pattern" 2>&1
	local rc=$?
	[ "$rc" -eq 0 ] || mi_indent <"$MI_TMP/pattern"
	return "$rc"
}

# dax_covered: the range the last rebind's event reports is all of DAX.
dax_covered() {
	local res size want
	[ "$have_trace" = 1 ] || return 0
	res=$(cat "/sys/bus/dax/devices/$DAX/resource")
	size=$(cat "/sys/bus/dax/devices/$DAX/size")
	want="$((res / MI_PAGE_SIZE)) $((size / MI_PAGE_SIZE))"
	[ "$range" = "$want" ] && return 0
	ktap_print_msg "$DAX: the bind initialized '$range' (first PFN, pages)," \
		"want all of the device: '$want'"
	return 1
}

# dax_rebind NAME DAX WHY REBIND: the result of device-dax DAX (empty:
# skipped, saying WHY), rebound by REBIND.
dax_rebind() {
	local name=$1 why=$3 rebind=$4 rc=0
	DAX=$2
	if [ -z "$DAX" ]; then
		mi_skip "$name: data survives a rebind with $HOW" "$why"
		return
	fi
	dax_at fill && rebind "$name" generic "$rebind" && dax_covered &&
		dax_at check || rc=1
	mi_result "$name ($DAX): data survives a rebind with $HOW" "$rc"
}

dax_rebind "soft-reserved devdax" "$MI_HMEM" "$MI_HMEM_WHY" mi_hmem_rebind
dax_rebind "CXL ram devdax" "$MI_CXL_DAX" "$MI_CXL_DAX_WHY" mi_cxl_dax_rebind

mi_finished
