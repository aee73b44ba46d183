# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # the variables are for the tests that source this
#
# Sourced by the guest tests (/mz/lib/cxl.sh): the CXL memory vm.sh gave
# this guest (--cxl-pmem, --cxl-ram), made usable the way an administrator
# does it, with ndctl's cxl tool.
#
# guest_cxl: load the CXL drivers, then for each type-3 memory device
# create a region of its whole capacity in the first root decoder that
# takes that capacity (cxl create-region), and set
#   CXL_PMEM_REGION  the region of persistent capacity (regionN)
#   CXL_NS           the namespace ndctl create-namespace made in its
#                    libnvdimm region (fsdax, the default), e.g. namespace1.0
#   CXL_RAM_REGION   the region of volatile capacity
#   CXL_DAX          its device-dax instance, bound to device_dax the way
#                    daxctl reconfigure-device --mode=devdax binds it (as
#                    with soft-reserved memory, the kernel leaves it to
#                    kmem, which would online it as system RAM)
# each empty when the guest has no such device.  Fails, saying why, when
# a device is there and a step fails.
#
# guest_cxl_teardown: destroy the regions guest_cxl created (cxl
# destroy-region), as an administrator tears the memory down; fails when
# one is left.
CXL_PMEM_REGION='' CXL_NS='' CXL_RAM_REGION='' CXL_DAX=''

cxl_say() {
	echo "# cxl: $*"
}

# cxl_run CMD...: run a command, print its output indented when it fails.
cxl_run() {
	local out l
	if ! out=$("$@" 2>&1); then
		echo "cxl: '$*' failed:" >&2
		while IFS= read -r l; do echo "cxl:   $l"; done <<<"$out" >&2
		return 1
	fi
	printf '%s\n' "$out"
}

# cxl_wait GLOB: the first path GLOB matches, waiting up to 10 s for it:
# a region's libnvdimm region and device-dax appear after cxl
# create-region returns, when their drivers have probed.
cxl_wait() {
	local i p
	for ((i = 0; i < 50; i++)); do
		for p in $1; do
			[ -e "$p" ] && { echo "$p"; return 0; }
		done
		sleep 0.2
	done
	return 1
}

# cxl_nd_region REGION: the libnvdimm region cxl_pmem made of the CXL pmem
# region REGION (the one at the same address; sysfs links neither to the
# other), waiting up to 10 s for it.
cxl_nd_region() {
	local res i r a
	res=$(($(cat "/sys/bus/cxl/devices/$1/resource"))) || return 1
	for ((i = 0; i < 50; i++)); do
		for r in /sys/bus/nd/devices/region*; do
			a=$(cat "$r/resource" 2>/dev/null) || continue
			[ "$((a))" = "$res" ] && { echo "$r"; return 0; }
		done
		sleep 0.2
	done
	return 1
}

# cxl_memdev pmem|ram: the first memory device with that capacity.
cxl_memdev() {
	local m s
	for m in /sys/bus/cxl/devices/mem*; do
		s=$(cat "$m/$1/size" 2>/dev/null) || continue
		[ "$((s))" -gt 0 ] && { echo "${m##*/}"; return 0; }
	done
	return 1
}

# cxl_root_decoder pmem|ram: the first root decoder that takes it.
cxl_root_decoder() {
	local d
	for d in /sys/bus/cxl/devices/root*/decoder*; do
		[ "$(cat "$d/cap_$1" 2>/dev/null)" = 1 ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

# cxl_create TYPE MEMDEV: cxl create-region, prints the region's name.
cxl_create() {
	local type=$1 mem=$2 cap=pmem dec out r
	[ "$type" = pmem ] || cap=ram
	dec=$(cxl_root_decoder "$cap") || {
		echo "cxl: no root decoder takes $cap capacity ($mem)" >&2
		return 1
	}
	out=$(cxl_run cxl create-region -d "$dec" -t "$type" -m "$mem") || return 1
	r=$(sed -n 's/.*"region":"\(region[0-9]*\)".*/\1/p' <<<"$out" | head -n 1)
	[ -n "$r" ] || {
		echo "cxl: cxl create-region -d $dec -t $type -m $mem printed no region:" >&2
		printf '%s\n' "$out" >&2
		return 1
	}
	echo "$r"
}

guest_cxl() {
	local mem nd d
	modprobe -q -a cxl_acpi cxl_pci cxl_port cxl_mem cxl_pmem dax_cxl device_dax \
		nd_pmem dax_pmem 2>/dev/null
	[ -d /sys/bus/cxl/devices ] || return 0
	# cxl_pci probes the devices asynchronously.
	cxl_wait "/sys/bus/cxl/devices/mem*" >/dev/null || return 0
	if mem=$(cxl_memdev pmem); then
		CXL_PMEM_REGION=$(cxl_create pmem "$mem") || return 1
		nd=$(cxl_nd_region "$CXL_PMEM_REGION")
		[ -n "$nd" ] || {
			echo "cxl: $CXL_PMEM_REGION has no libnvdimm region (cxl_pmem)" >&2
			return 1
		}
		CXL_NS=$(cxl_run ndctl create-namespace -r "${nd##*/}" |
			sed -n 's/.*"dev":"\(namespace[0-9.]*\)".*/\1/p' | head -n 1)
		[ -n "$CXL_NS" ] || {
			echo "cxl: no namespace in ${nd##*/} ($CXL_PMEM_REGION)" >&2
			return 1
		}
		cxl_say "$mem: persistent capacity in $CXL_PMEM_REGION (${nd##*/}), $CXL_NS"
	fi
	if mem=$(cxl_memdev ram); then
		CXL_RAM_REGION=$(cxl_create ram "$mem") || return 1
		d=$(cxl_wait "/sys/bus/cxl/devices/$CXL_RAM_REGION/dax_region*/dax*.*")
		[ -n "$d" ] || {
			echo "cxl: $CXL_RAM_REGION has no device-dax instance (dax_cxl)" >&2
			return 1
		}
		CXL_DAX=${d##*/}
		if [ ! -e "$d/driver" ]; then
			cxl_run daxctl reconfigure-device --mode=devdax "$CXL_DAX" >/dev/null || return 1
		fi
		cxl_say "$mem: volatile capacity in $CXL_RAM_REGION, $CXL_DAX"
	fi
}

guest_cxl_teardown() {
	local r rc=0
	for r in $CXL_PMEM_REGION $CXL_RAM_REGION; do
		cxl_run cxl destroy-region -f "$r" >/dev/null || rc=1
		if [ -e "/sys/bus/cxl/devices/$r" ]; then
			echo "cxl: $r still exists after cxl destroy-region" >&2
			rc=1
		else
			cxl_say "destroyed $r"
		fi
	done
	return "$rc"
}
