# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # the variables are for the tests that source this
#
# Sourced by the guest tests (/mz/lib/zone_devices.sh): the ZONE_DEVICE
# memory other than NVDIMMs that vm.sh gave this guest.
#
# guest_zone_devices: set
#   ZD_P2PDMA    the PCI device with p2pdma memory (vm.sh --nvme-cmb: the
#                NVMe controller whose memory buffer the nvme driver
#                published), e.g. 0000:00:03.0
#   ZD_HMEM      the device-dax instance of the soft-reserved range
#                (vm.sh --soft-reserved), e.g. dax0.0, bound to device_dax
#                the way daxctl reconfigure-device --mode=devdax binds it:
#                with dax_kmem built, the kernel leaves it to kmem, which
#                would online it as system RAM
#   ZD_COHERENT  the start of the range vm.sh --device-reserved reserved
#                (memmap=SIZE%ADDR-1+2 on the command line), e.g.
#                0x120000000
# each empty when there is no such device.  Prints what it could not set
# up to stderr.
guest_zone_devices() {
	local d p a
	local -a params
	ZD_P2PDMA='' ZD_HMEM='' ZD_COHERENT=''
	for d in /sys/bus/pci/devices/*/p2pmem; do
		[ -d "$d" ] || continue
		p=${d%/p2pmem}
		ZD_P2PDMA=${p##*/}
		break
	done
	modprobe -q -a dax_hmem device_dax 2>/dev/null
	for d in /sys/bus/dax/devices/dax*; do
		[ -e "$d" ] || continue
		case "$(readlink -f "$d")" in
		*/hmem.*/*) ;;
		*) continue ;;
		esac
		if [ ! -e "$d/driver" ] &&
			! daxctl reconfigure-device --mode=devdax "${d##*/}" >/dev/null 2>&1; then
			echo "zone_devices: cannot bind ${d##*/} (soft reserved) to device_dax" >&2
			continue
		fi
		ZD_HMEM=${d##*/}
		break
	done
	read -r -a params </proc/cmdline
	for p in "${params[@]}"; do
		case "$p" in
		memmap=*%*-1+2)
			a=${p#*%}
			ZD_COHERENT=${a%-1+2}
			break ;;
		esac
	done
}
