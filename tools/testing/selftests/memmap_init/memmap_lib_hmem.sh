# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# The memmap_init selftests' helpers for device-dax of soft-reserved
# memory: the instance MEMMAP_INIT_HMEM names, rebound to device_dax.
# Sourced by memmap_lib.sh, never executed.

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
