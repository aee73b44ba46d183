#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How long a namespace's memmap_streaming choice lives, on a label-backed
# namespace (an NVDIMM whose labels ndctl can write):
#
#   - it is kept by ndctl create-namespace -f -e (fsdax <-> devdax);
#   - it returns to "default" when the namespace is destroyed, so a new
#     namespace on the same device (create-namespace reuses the destroyed
#     namespace device, which the test checks) does not inherit it;
#   - a value written to a namespace that has an info block is not saved:
#     disabling and enabling the region, which recreates the namespace
#     devices, brings back the choice saved when the info block was
#     created, as the boot after a reboot does;
#   - create-namespace -f -e, which creates a new info block, saves it;
#
# and the first bind after each of these uses the backend the choice gives,
# as the memmap:memmap_init_zone_device trace event reports it.
#
# It runs on the region that MEMMAP_INIT_LABEL_REGION names (memmap_lib_lab.sh)
# and skips without it: it re-initializes that NVDIMM's labels, which
# destroys every namespace in the region, and leaves it with none.

# shellcheck disable=SC2317 # mi_cleanup_hook runs from the EXIT trap
# shellcheck source=guest/memmap_init/memmap_lib_lab.sh
. "$(dirname "$0")/memmap_lib_lab.sh"

TESTS=(
	"new label-backed namespace reads default"
	"first bind of a new namespace: backend for default"
	"bind after setting a value: backend for it"
	"create-namespace -f -e to devdax keeps the value"
	"first devdax bind after create-namespace -f -e: backend for the value"
	"create-namespace -f -e back to fsdax keeps the value"
	"first fsdax bind after create-namespace -f -e: backend for the value"
	"create-namespace after destroy-namespace reuses the namespace device"
	"destroy-namespace + create-namespace reads default"
	"first bind after destroy + create: backend for default"
	"value written later, region disable/enable reads the saved default"
	"first bind after region disable/enable: backend for default"
	"value saved by create-namespace -f -e, region disable/enable reads it"
	"first bind after that region disable/enable: backend for the value"
)

mi_lab_init
mi_trace_need
mi_load_config ||
	mi_skip_all "kernel configuration unknown (no /proc/config.gz): no expected backend"
command -v ndctl >/dev/null || mi_skip_all "ndctl not installed"

# The region the run gave (mi_lr_init).
mi_lr_init || mi_skip_all "$MI_LR_WHY"
REGION=$MI_LR
NMEM=$MI_LR_NMEM

# A value other than default that this kernel accepts.
VALUE=on
mi_config MEMMAP_STREAMING || VALUE=off

NS=
mi_cleanup_hook() {
	[ -z "$NS" ] || ndctl destroy-namespace -f "$NS" >/dev/null 2>&1
}

# lt_create OPTIONS...: create a namespace in REGION; sets NS and the
# attribute path.
lt_create() {
	mi_trace_clear
	mi_ndctl create-namespace -r "$REGION" "$@" || return 1
	NS=$(sed -n 's/.*"dev":"\(namespace[0-9]*\.[0-9]*\)".*/\1/p' \
		"$MI_TMP/ndctl.out" | head -n 1)
	MI_NS=$NS
	MI_NS_ATTR=/sys/bus/nd/devices/$NS/memmap_streaming
	ktap_print_msg "created $NS: $*"
	[ -n "$NS" ] && [ -f "$MI_NS_ATTR" ]
}

# lt_check_bind DESC TYPE REQUEST: the events since the last clear are
# one bind of TYPE (fs_dax or generic, memmap in the altmap) with the
# backend REQUEST gives.
lt_check_bind() {
	local want events
	want=$(mi_expected_backend "$3" 1)
	events=$(mi_trace_wait 1)
	mi_check_events "$events" 1 "$2" 1 "$want"
	mi_result "$1" $? "want one $2 bind with backend $want"
}

# lt_check_request DESC WANT: the attribute reads WANT.
lt_check_request() {
	local got
	got=$(mi_ns_request)
	[ "$got" = "$2" ]
	mi_result "$1" $? "$MI_NS_ATTR reads '$(cat "$MI_NS_ATTR" 2>/dev/null)', want [$2]"
}

ktap_print_header
ktap_set_plan ${#TESTS[@]}
ktap_print_msg "label-backed region $REGION ($NMEM), value under test: $VALUE"

# Fresh labels: whatever an earlier run left is gone.
if ! mi_ndctl disable-region "$REGION" || ! mi_ndctl init-labels -f "$NMEM" ||
	! mi_ndctl enable-region "$REGION" ||
	! lt_create --mode=fsdax --map=dev; then
	for t in "${TESTS[@]}"; do mi_result "$t" 1 "cannot set up a label-backed namespace"; done
	ktap_finished
fi

lt_check_request "${TESTS[0]}" default
lt_check_bind "${TESTS[1]}" fs_dax default

mi_ns_rebind "$VALUE"
lt_check_bind "${TESTS[2]}" fs_dax "$VALUE"

mi_trace_clear
mi_ns_reconfig --mode=devdax --map=dev --align=2M
lt_check_request "${TESTS[3]}" "$VALUE"
lt_check_bind "${TESTS[4]}" generic "$VALUE"

mi_trace_clear
mi_ns_reconfig --mode=fsdax --map=dev
lt_check_request "${TESTS[5]}" "$VALUE"
lt_check_bind "${TESTS[6]}" fs_dax "$VALUE"

old=$NS
mi_ndctl destroy-namespace -f "$NS"
NS=
lt_create --mode=fsdax --map=dev
ktap_print_msg "destroyed $old, created ${NS:-nothing}"
# Only on the same device does "default" show that destroy reset it.
[ "$NS" = "$old" ]
mi_result "${TESTS[7]}" $? "destroyed $old, create-namespace gave '${NS:-nothing}'"
lt_check_request "${TESTS[8]}" default
lt_check_bind "${TESTS[9]}" fs_dax default

mi_ns_disable && mi_ns_set "$VALUE" && mi_ns_enable
mi_ndctl disable-region "$REGION"
mi_trace_clear
mi_ndctl enable-region "$REGION"
lt_check_request "${TESTS[10]}" default
lt_check_bind "${TESTS[11]}" fs_dax default

mi_ns_disable && mi_ns_set "$VALUE" && mi_ns_reconfig --mode=fsdax --map=dev
mi_ndctl disable-region "$REGION"
mi_trace_clear
mi_ndctl enable-region "$REGION"
lt_check_request "${TESTS[12]}" "$VALUE"
lt_check_bind "${TESTS[13]}" fs_dax "$VALUE"

mi_finished
