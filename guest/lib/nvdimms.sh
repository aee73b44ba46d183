# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # the variables are for the tests that source this
#
# Sourced by the guest tests (/mz/lib/nvdimms.sh): the NVDIMMs vm.sh gave
# this guest.
#
# guest_nvdimms: load the pmem and dax drivers and set
#   NVDIMM_NS      the first namespace of the first NVDIMM without labels
#   NVDIMM_REGION  the region of the NVDIMM with labels (vm.sh --label-nvdimm)
#   NVDIMM_NMEM    that NVDIMM (nmemN)
# each empty when there is no such device.
guest_nvdimms() {
	local r m n
	NVDIMM_NS='' NVDIMM_REGION='' NVDIMM_NMEM=''
	modprobe -q -a nd_pmem dax_pmem device_dax 2>/dev/null
	for r in /sys/bus/nd/devices/region*; do
		[ -r "$r/mapping0" ] || continue
		m=$(cut -d, -f1 <"$r/mapping0")
		if grep -qw set_data "/sys/bus/nd/devices/$m/commands" 2>/dev/null; then
			if [ -z "$NVDIMM_REGION" ]; then
				NVDIMM_REGION=${r##*/} NVDIMM_NMEM=$m
			fi
		elif [ -z "$NVDIMM_NS" ]; then
			for n in "$r"/namespace*; do
				[ -e "$n" ] && { NVDIMM_NS=${n##*/}; break; }
			done
		fi
	done
}
