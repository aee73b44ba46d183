# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# The memmap_init selftests' helpers for device-dax without a request of
# its own: the instance of soft-reserved memory MEMMAP_INIT_HMEM names
# (dax_hmem) and the instance of a CXL ram region MEMMAP_INIT_CXL_DAX
# names (dax_cxl), each rebound to device_dax.  Both are
# MEMORY_DEVICE_GENERIC with the memmap in DRAM; the policy decides their
# backend.  Sourced by memmap_lib.sh, never executed.

# mi_reqless_dax_take VAR WHAT MATCH ABOVE: the device-dax instance the
# variable VAR names, when it may be used: sets MI_DAX.  Returns false
# (MI_DAX empty, MI_DAX_WHY set) when the run names none, when it is not bound
# to device_dax or is in use (mi_dax_users); bails out when it does not
# exist or its sysfs path does not match the glob MATCH (it is not of
# WHAT: no ABOVE above it).
mi_reqless_dax_take() {
	local var=$1 what=$2 match=$3 dax=${!1:-} d users drv
	MI_DAX='' MI_DAX_WHY=''
	if [ -z "$dax" ]; then
		MI_DAX_WHY="set $var=daxX.Y (device-dax of $what) to let the tests"
		MI_DAX_WHY+=" rebind it and destroy its data"
		return 1
	fi
	d=/sys/bus/dax/devices/$dax
	[ -e "$d" ] || mi_bail "$var=$dax: no such device-dax instance ('daxctl list')"
	# shellcheck disable=SC2053 # MATCH is a glob
	[[ "$(readlink -f "$d")" == $match ]] ||
		mi_bail "$var=$dax is not of $what (no $4 above it)"
	drv=$(readlink "$d/driver" 2>/dev/null)
	MI_DEVNUMS=()
	users=$(mi_dax_users "$dax"; mi_open_users)
	if [ -n "$users" ]; then
		MI_DAX_WHY="$dax is in use, not touching it: $(mi_join <<<"$users")"
		return 1
	fi
	if [ "${drv##*/}" != device_dax ]; then
		MI_DAX_WHY="$dax is not bound to device_dax"
		MI_DAX_WHY+=" ('daxctl reconfigure-device --mode=devdax $dax')"
		return 1
	fi
	MI_DAX=$dax
}

# mi_hmem_init: take the instance MEMMAP_INIT_HMEM names (MI_HMEM), or
# say why not (MI_HMEM_WHY, false).
mi_hmem_init() {
	mi_reqless_dax_take MEMMAP_INIT_HMEM "soft-reserved memory" '*/hmem.*/*' "hmem device"
	MI_HMEM=$MI_DAX MI_HMEM_WHY=$MI_DAX_WHY
	[ -n "$MI_HMEM" ]
}

# mi_cxl_dax_init: take the instance MEMMAP_INIT_CXL_DAX names
# (MI_CXL_DAX), or say why not (MI_CXL_DAX_WHY, false).
mi_cxl_dax_init() {
	mi_reqless_dax_take MEMMAP_INIT_CXL_DAX "a CXL ram region" \
		'*/region[0-9]*/dax_region[0-9]*/dax[0-9]*' "CXL region"
	MI_CXL_DAX=$MI_DAX MI_CXL_DAX_WHY=$MI_DAX_WHY
	[ -n "$MI_CXL_DAX" ]
}

# mi_hmem_rebind, mi_cxl_dax_rebind REQUEST: rebind the instance to
# device_dax (mi_drv_rebind).  It has no request of its own: REQUEST is
# not used, the policy decides.
mi_hmem_rebind() {
	mi_drv_rebind /sys/bus/dax/drivers/device_dax "$MI_HMEM"
}

mi_cxl_dax_rebind() {
	mi_drv_rebind /sys/bus/dax/drivers/device_dax "$MI_CXL_DAX"
}

# mi_hmem_restore: bind MI_HMEM and MI_CXL_DAX to device_dax again if a
# test left one unbound (mi_cleanup calls it); false when that fails.
mi_hmem_restore() {
	local rc=0
	[ -z "$MI_HMEM" ] || mi_drv_restore /sys/bus/dax/drivers/device_dax "$MI_HMEM" || rc=1
	[ -z "$MI_CXL_DAX" ] ||
		mi_drv_restore /sys/bus/dax/drivers/device_dax "$MI_CXL_DAX" || rc=1
	return "$rc"
}
