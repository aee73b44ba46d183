# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# The lab's memmap_init tests: run next to the kselftest target, whose
# memmap_lib.sh this sources (build-selftests.sh installs them into its
# directory and lists them after its tests).  They need more than the
# target's tests, and say which variable allows it:
#
#   MEMMAP_INIT_SYSTEM_RAM=1            the daxctl and hotplug tests may
#       online the memory of the devices the run names (the device-dax of
#       MEMMAP_INIT_NAMESPACE, MEMMAP_INIT_CXL_DAX, MEMMAP_INIT_HMEM) as
#       system RAM (daxctl reconfigure-device --mode=system-ram), use it,
#       and offline it again.
#   MEMMAP_INIT_CPU_HOTPLUG=1           the races test may take the last
#       online CPU offline and back online, over and over, while it
#       rebinds that namespace.
#   MEMMAP_INIT_LABEL_REGION=regionN    a region of one NVDIMM with a label
#       area, whose labels the ndctl and lifetime tests re-initialize:
#       EVERY NAMESPACE IN IT IS DESTROYED.  Refused while any is in use,
#       and when it holds MEMMAP_INIT_NAMESPACE.
#   MEMMAP_INIT_HMM=1                   the hmm-tests peer suite (or a list
#       of requests: default,on,off).
#   MEMMAP_INIT_HMM_EXCLUDE=CASE[,CASE] hmm-tests cases that suite leaves
#       out, each reported as a skip.
#
# A value not of that form fails the test ("Bail out!") before anything
# is changed, as the target's own variables do (memmap_lib.sh).

# shellcheck source=tools/testing/selftests/memmap_init/memmap_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/memmap_lib.sh"

MI_LR=
MI_LR_NMEM=

# mi_lab_init: mi_init, then the variables above checked.
mi_lab_init() {
	local r=${MEMMAP_INIT_LABEL_REGION:-} v
	mi_init
	if [ -n "$r" ] && ! [[ "$r" =~ ^region[0-9]+$ ]]; then
		mi_bail "MEMMAP_INIT_LABEL_REGION='$r' is not a region name" \
			"such as region1 (see 'ndctl list -R')"
	fi
	for v in MEMMAP_INIT_SYSTEM_RAM MEMMAP_INIT_CPU_HOTPLUG; do
		case "${!v:-0}" in
		0|1) ;;
		*) mi_bail "$v='${!v}' is not 0 or 1" ;;
		esac
	done
	v=${MEMMAP_INIT_HMM_EXCLUDE:-}
	if [ -n "$v" ] && ! [[ "$v" =~ ^[a-z0-9_]+(,[a-z0-9_]+)*$ ]]; then
		mi_bail "MEMMAP_INIT_HMM_EXCLUDE='$v' is not a comma-separated" \
			"list of hmm-tests cases such as benchmark_thp_migration"
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
			"MEMMAP_INIT_NAMESPACE=$MEMMAP_INIT_NAMESPACE," \
			"which this test would destroy"
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

# ---------------------------------------------------------------- system RAM

MI_MEMDIR=/sys/devices/system/memory

# mi_dax_field DAX NAME: a field of 'daxctl list -d DAX'.
mi_dax_field() {
	daxctl list -d "$1" 2>/dev/null |
		sed -n "s/.*\"$2\":\"\\{0,1\\}\\([^\",]*\\).*/\\1/p" | head -n 1
}

# mi_dax_blocks DAX: the memory blocks wholly inside the range of DAX, the
# ones kmem hot-adds, one number a line.
mi_dax_blocks() {
	local bs start size first end i
	bs=$((0x$(cat "$MI_MEMDIR/block_size_bytes")))
	start=$(($(cat "/sys/bus/dax/devices/$1/resource")))
	size=$(cat "/sys/bus/dax/devices/$1/size")
	first=$(((start + bs - 1) / bs))
	end=$(((start + size) / bs))
	for ((i = first; i < end; i++)); do echo "$i"; done
}

# mi_system_ram_need: what onlining device-dax memory as system RAM needs
# (daxctl, memory hotplug, NUMA, the kmem driver), or skip the test as a
# whole.  Loading kmem hands it every device-dax instance of soft-reserved
# memory or of a CXL ram region that no driver has claimed, and kmem adds
# that memory as system RAM: while kmem is not loaded and any device-dax
# instance is unclaimed, it loads nothing and skips, naming them.
mi_system_ram_need() {
	local unclaimed d
	command -v daxctl >/dev/null || mi_skip_all "daxctl not installed"
	[ -r "$MI_MEMDIR/block_size_bytes" ] ||
		mi_skip_all "no $MI_MEMDIR/block_size_bytes: kernel without memory hotplug"
	# daxctl finds a device's memory blocks in /sys/devices/system/node/nodeN.
	[ -d /sys/devices/system/node ] ||
		mi_skip_all "no /sys/devices/system/node (CONFIG_NUMA=n): daxctl cannot find memory blocks"
	if [ ! -d /sys/bus/dax/drivers/kmem ]; then
		unclaimed=$(for d in /sys/bus/dax/devices/dax*; do
			[ ! -e "$d" ] || [ -e "$d/driver" ] || echo "${d##*/}"
		done)
		if [ -n "$unclaimed" ]; then
			mi_skip_all "kmem is not loaded, and loading it would hand the unclaimed" \
				"device-dax $(mi_join <<<"$unclaimed") to kmem, which adds its memory" \
				"as system RAM: claim it first ('daxctl reconfigure-device" \
				"--mode=devdax DEV') or load kmem yourself"
		fi
		modprobe -q kmem 2>/dev/null
	fi
	[ -d /sys/bus/dax/drivers/kmem ] ||
		mi_skip_all "no kmem dax driver (CONFIG_DEV_DAX_KMEM=m, module kmem)"
}
