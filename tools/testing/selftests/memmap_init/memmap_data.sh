#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Data on the NVDIMM survives rebinding under every backend:
#  - fsdax map=dev and map=mem: ext4 mounted with -o dax holds a file
#    written through a MAP_SYNC mapping (so through the ZONE_DEVICE pages)
#    and one written with write(); after each rebind (request off, on,
#    default) both read back identical, again through a MAP_SYNC mapping;
#  - devdax aligned to the PMD size and to the base page, and map=mem at
#    the PMD size (align=2M, 4K and map=mem align=2M on x86-64): a pattern
#    written through a mapping of the device-dax device at its start and
#    end reads back identical after each rebind (request off, on,
#    default), and at the PMD alignment after a daxctl
#    disable-device/enable-device round trip, which rebinds device_dax
#    alone.
# Reconfiguring the namespace to another mode is not meant to keep data and
# is not tested here.  Where the trace event is available each rebind must
# also have used the backend its request asks for.

# shellcheck disable=SC2317 # functions run indirectly: mi_cleanup_hook, BIND
# shellcheck source=memmap_lib.sh
. "$(dirname "$0")/memmap_lib.sh"

mi_init
mi_ns_init || mi_skip_all "$MI_NS_WHY"
[ -x "$MI_PATTERN" ] || mi_skip_all "$MI_PATTERN not built"
mi_probe
[ "$have_trace" = 1 ] ||
	ktap_print_msg "not checking backends: ${MI_TRACE_WHY:-kernel configuration unknown}"

MNT=$MI_TMP/mnt
mkdir -p "$MNT"
mi_cleanup_hook() {
	umount "$MNT" 2>/dev/null
}

ktap_print_header
ktap_set_plan 21

SEED=$RANDOM$RANDOM

# rebind NAME TYPE ALTMAP REQUEST: rebind the namespace with REQUEST and
# check the backend the bind used.
rebind() {
	local name=$1 type=$2 altmap=$3 req=$4 want events
	mi_ns_rebind "$req" || return 1
	[ "$have_trace" = 1 ] || return 0
	want=$(mi_expected_backend "$req" "$altmap")
	events=$(mi_trace_wait 1)
	mi_check_events "$events" 1 "$type" "$altmap" "$want" >"$MI_TMP/events" && return 0
	cat "$MI_TMP/events"
	ktap_print_msg "$name: the bind did not use the $want backend"
	return 1
}

# each_rebind NAME TYPE ALTMAP VERIFY: one result per rebind: request off,
# on, default.
each_rebind() {
	local name=$1 type=$2 altmap=$3 verify=$4 req desc
	for req in off on default; do
		desc="$name: data intact after rebind, request $req"
		if [ "$req" = on ] && [ "$streaming" = 0 ]; then
			mi_skip "$desc" "kernel built without CONFIG_MEMMAP_STREAMING"
			continue
		fi
		rebind "$name" "$type" "$altmap" "$req" && "$verify"
		mi_result "$desc" $?
	done
}

# results FROM TO DESC skip|fail WHY: the results FROM..TO-1 of a group
# that cannot run.
results() {
	local i
	for ((i = $1; i < $2; i++)); do
		if [ "$4" = skip ]; then
			mi_skip "$3 $i" "$5"
		else
			mi_result "$3 $i" 1 "$5"
		fi
	done
}

# ------------------------------------------------------------ fsdax + ext4

pmem=

fs_mount() {
	pmem=$(mi_ns_dev blockdev)
	[ -n "$pmem" ] || { ktap_print_msg "no block device on $MI_NS"; return 1; }
	mount -t ext4 -o dax "/dev/$pmem" "$MNT" 2>&1 | mi_indent
	if ! grep -q " $MNT " /proc/mounts; then
		ktap_print_msg "cannot mount /dev/$pmem -o dax"
		return 1
	fi
}

fs_verify() {
	local rc=0 sum
	fs_mount || return 1
	if ! "$MI_PATTERN" check -S "$MNT/mapped" 0 8M "$SEED" >"$MI_TMP/pattern.out" 2>&1; then
		ktap_print_msg "the file written through a MAP_SYNC mapping differs:"
		mi_indent <"$MI_TMP/pattern.out"
		rc=1
	fi
	sum=$(sha256sum <"$MNT/written" | cut -d' ' -f1)
	if [ "$sum" != "$fs_sum" ]; then
		ktap_print_msg "the file written with write() has sha256 $sum, want $fs_sum"
		rc=1
	fi
	umount "$MNT" || rc=1
	return "$rc"
}

# fsdax_data MAP ALTMAP: the ext4 test on fsdax map=MAP.
fsdax_data() {
	local map=$1 altmap=$2 name="fsdax map=$1" n=4 rc=0
	if ! command -v mkfs.ext4 >/dev/null; then
		results 0 $n "$name: ext4 -o dax data test" skip "mkfs.ext4 not installed"
		return
	fi
	if ! mi_ns_reconfig --mode=fsdax --map="$map"; then
		results 0 $n "$name: ext4 -o dax data test" fail "cannot configure fsdax"
		return
	fi
	pmem=$(mi_ns_dev blockdev)
	# DAX needs a file system block of the base page size.
	if ! mkfs.ext4 -q -F -b "$MI_PAGE_SIZE" -E lazy_itable_init=1,lazy_journal_init=1 \
		"/dev/$pmem" >"$MI_TMP/mkfs.out" 2>&1; then
		mi_indent <"$MI_TMP/mkfs.out"
		rc=1
	fi
	[ "$rc" -ne 0 ] || fs_mount || rc=1
	if [ "$rc" -eq 0 ]; then
		"$MI_PATTERN" fill -S "$MNT/mapped" 0 8M "$SEED" >/dev/null &&
			dd if=/dev/urandom of="$MNT/written" bs=1M count=4 2>/dev/null &&
			sync || rc=1
		fs_sum=$(sha256sum <"$MNT/written" | cut -d' ' -f1)
		umount "$MNT" || rc=1
	fi
	mi_result "$name: files written on ext4 -o dax (MAP_SYNC mapping and write())" $rc
	if [ "$rc" -ne 0 ]; then
		results 1 $n "$name: ext4 -o dax data test" fail "no data written"
	else
		each_rebind "$name" fs_dax "$altmap" fs_verify
	fi
}

fsdax_data dev 1
fsdax_data mem 0

# ------------------------------------------------------------ devdax

# The pattern covers the first 8 MiB and the last 4 MiB of the device, or
# two and one of its alignment units where those are larger (a mapping of
# a device-dax device starts and ends on its alignment).
dax_regions() {
	local dax size len
	dax=$(mi_ns_dev chardev)
	if [ -z "$dax" ] || [ ! -c "/dev/$dax" ]; then
		ktap_print_msg "no device-dax device on $MI_NS"
		return 1
	fi
	size=$(cat "/sys/bus/dax/devices/$dax/size")
	len=$(cat "/sys/bus/dax/devices/$dax/align" 2>/dev/null || echo 0)
	[ "$len" -ge $((4 << 20)) ] || len=$((4 << 20))
	echo "/dev/$dax 0 $((2 * len))"
	echo "/dev/$dax $((size - len)) $len"
}

# dax_pattern_all fill|check
dax_pattern_all() {
	local dev off len rc=0 regions
	regions=$(dax_regions) || return 1
	while read -r dev off len; do
		"$MI_PATTERN" "$1" "$dev" "$off" "$len" "$SEED" >"$MI_TMP/pattern.out" 2>&1 || {
			ktap_print_msg "$1 $dev at $off, $len bytes:"
			mi_indent <"$MI_TMP/pattern.out"
			rc=1
		}
	done <<<"$regions"
	return "$rc"
}

dax_verify() {
	dax_pattern_all check
}

# map=mem at the PMD size: compound pages whose tails share vmemmap pages.
pmd=dev:$MI_ALIGN_PMD
for layout in "$pmd" "dev:$MI_ALIGN_PAGE" "mem:$MI_ALIGN_PMD"; do
	map=${layout%:*} align=${layout#*:}
	name="devdax align=$align"
	altmap=1
	if [ "$map" = mem ]; then
		name="devdax map=mem align=$align"
		altmap=0
	fi
	n=4
	[ "$layout" != "$pmd" ] || n=5
	if ! mi_ns_reconfig --mode=devdax --map="$map" --align="$align"; then
		results 0 $n "$name: data test" fail "cannot configure devdax"
		continue
	fi
	dax_pattern_all fill
	rc=$?
	mi_result "$name: pattern written through a device-dax mapping" $rc
	if [ "$rc" -ne 0 ]; then
		results 1 $n "$name: data test" fail "no pattern written"
		continue
	fi
	each_rebind "$name" generic "$altmap" dax_verify
	[ "$layout" = "$pmd" ] || continue

	# daxctl round trip: unbind and rebind device_dax alone, which maps
	# the device-dax range again with the request dax_pmem copied.
	desc="$name: data intact after daxctl disable-device/enable-device"
	dax=$(mi_ns_dev chardev)
	if ! command -v daxctl >/dev/null; then
		mi_skip "$desc" "daxctl not installed"
		continue
	fi
	[ "$have_trace" = 0 ] || mi_trace_clear
	rc=0
	for op in disable-device enable-device; do
		mi_run daxctl "$op" "$dax" || rc=1
	done
	if [ "$rc" -eq 0 ] && [ "$have_trace" = 1 ]; then
		mi_check_events "$(mi_trace_wait 1)" 1 generic 1 \
			"$(mi_expected_backend "$(mi_ns_request)" 1)" || rc=1
	fi
	[ "$rc" -eq 0 ] && dax_verify
	mi_result "$desc" $?
done

mi_finished
