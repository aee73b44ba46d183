# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# The memmap_init selftests' helpers for p2pdma memory: the PCI device
# MEMMAP_INIT_P2PDMA names, whose driver publishes its p2pdma memory when
# it binds.  Sourced by memmap_lib.sh, never executed.

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
