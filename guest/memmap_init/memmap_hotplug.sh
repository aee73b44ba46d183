#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The memmap of memory hotplug: for each device the run names, the
# device-dax of the namespace MEMMAP_INIT_NAMESPACE (devdax map=dev
# align=2M), the instance of a CXL ram region MEMMAP_INIT_CXL_DAX and the
# instance of soft-reserved memory MEMMAP_INIT_HMEM, with
# MEMMAP_INIT_SYSTEM_RAM=1 (memmap_lib_lab.sh), and for the namespace once
# more with the device's memmap_on_memory attribute set:
#
#   1. 'daxctl reconfigure-device --mode=system-ram' onlines every memory
#      block wholly inside the device, and the memmap of each block is in
#      its first pages exactly when memmap_on_memory is asked for (the
#      attribute, and memory_hotplug.memmap_on_memory=1 on the command
#      line): /proc/zoneinfo's present pages grow by the blocks' pages and
#      its managed pages by as many less those memmaps;
#   2. the struct pages onlining wrote are those of the slow path,
#      __init_single_page() and __SetPageOffline() per page: the lab's
#      module lab_modules/lab_memmap_hotplug.ko (guest/memmap_init/modules/,
#      not part of any series), armed on the device's PFN range, compares
#      each page online_pages() notifies with the slow path's, which the
#      module rebuilds itself from the kernel's inline helpers: no page
#      differs, the pages compared are those of the blocks less their
#      memmaps, one range a block, and the digests of both sides agree;
#   3. the memory is used: a tmpfs bound to the blocks' node (mpol=bind)
#      gets a file whose pages, written and read back through a shared
#      mapping (dax_pattern), all lie in the device's blocks (their PFNs,
#      /proc/self/pagemap), and read back intact once more;
#   4. 'daxctl offline-memory' and 'daxctl reconfigure-device
#      --mode=devdax' give the memory back: the device is devdax again,
#      and /proc/zoneinfo's present pages are back where they were;
#   5. the kernel log holds no report (MI_REPORTS) from the case's start
#      to its end.
#
# The memmap_on_memory case needs memory_hotplug.memmap_on_memory=1 on the
# command line (a kernel with CONFIG_MHP_MEMMAP_ON_MEMORY) and skips
# without it.  The CXL and soft-reserved instances run with the attribute
# their driver gave them (dax_cxl sets it).  Like memmap_daxctl.sh, the
# test loads no kmem while a device-dax instance is unclaimed
# (mi_system_ram_need), and puts every device back as it found it.

# shellcheck disable=SC2317 # mi_cleanup_hook runs from the EXIT trap
# shellcheck source=guest/memmap_init/memmap_lib_lab.sh
. "$(dirname "$0")/memmap_lib_lab.sh"

CMP_KO=$MI_DIR/lab_modules/lab_memmap_hotplug.ko
CMP=/sys/kernel/debug/lab_memmap_hotplug
MOM_PARAM=/sys/module/memory_hotplug/parameters/memmap_on_memory
# The pages a case allocates on the device's memory.
USE_LEN=$((16 << 20))

mi_lab_init
RAM_WHY="set MEMMAP_INIT_SYSTEM_RAM=1 to let the test online the memory of the"
RAM_WHY+=" devices it is given as system RAM, use it and offline it again"
have_ns=1
mi_ns_init || have_ns=0
have_cxl_dax=1
mi_cxl_dax_init || have_cxl_dax=0
have_hmem=1
mi_hmem_init || have_hmem=0
if [ "$have_ns$have_cxl_dax$have_hmem" = 000 ]; then
	if [ -z "${MEMMAP_INIT_NAMESPACE:-}" ] && [ "${MEMMAP_INIT_SYSTEM_RAM:-0}" != 1 ]; then
		MI_NS_WHY+=", and $RAM_WHY"
	fi
	mi_skip_all "$MI_NS_WHY; $MI_CXL_DAX_WHY; $MI_HMEM_WHY"
fi
[ "${MEMMAP_INIT_SYSTEM_RAM:-0}" = 1 ] || mi_skip_all "$RAM_WHY"
[ -x "$MI_PATTERN" ] || mi_skip_all "$MI_PATTERN not built"
[ -x "$MI_WRITE" ] || mi_skip_all "$MI_WRITE not built"
mi_system_ram_need
BLOCK_PAGES=$((0x$(cat "$MI_MEMDIR/block_size_bytes") / MI_PAGE_SIZE))

# The memmap_on_memory case: what it needs, or why it skips.
mom_why=
if [ ! -r "$MOM_PARAM" ]; then
	mom_why="no $MOM_PARAM: kernel without CONFIG_MHP_MEMMAP_ON_MEMORY"
elif [ "$(cat "$MOM_PARAM")" = N ]; then
	mom_why="memory_hotplug.memmap_on_memory is off: boot with"
	mom_why+=" memory_hotplug.memmap_on_memory=1 to put the memmap of hot-added memory on it"
fi

DAX='' MOM_DAX='' MOM_WAS='' USE_DIR='' loaded='' have_cmp=0
mi_cleanup_hook() {
	if [ -n "$USE_DIR" ] && grep -q " $USE_DIR " /proc/mounts; then
		umount "$USE_DIR" 2>/dev/null || ktap_print_msg "cleanup: cannot unmount $USE_DIR"
	fi
	if [ -n "$DAX" ] && [ "$(mi_dax_field "$DAX" mode)" = system-ram ]; then
		daxctl offline-memory "$DAX" >/dev/null 2>&1
		daxctl reconfigure-device -f --mode=devdax "$DAX" >/dev/null 2>&1 ||
			ktap_print_msg "cleanup: cannot return $DAX to devdax"
	fi
	if [ -n "$MOM_DAX" ] && [ -e "/sys/bus/dax/devices/$MOM_DAX/memmap_on_memory" ]; then
		"$MI_WRITE" "/sys/bus/dax/devices/$MOM_DAX/memmap_on_memory" "$MOM_WAS" >/dev/null
	fi
	[ "$have_cmp" = 0 ] || "$MI_WRITE" "$CMP" off >/dev/null
	for m in $loaded; do rmmod "$m" 2>/dev/null; done
}

# The comparison: have_cmp 1 when the lab's module compares, else cmp_why
# says why not.
cmp_why=''
# debugfs, mounted if it is not (the hotplug series needs no other
# series' memmap_lib, so not the threads series' mi_debugfs either).
if ! grep -q ' /sys/kernel/debug ' /proc/mounts &&
	! mount -t debugfs none /sys/kernel/debug 2>/dev/null; then
	cmp_why="no debugfs at /sys/kernel/debug (CONFIG_DEBUG_FS)"
elif [ ! -e "$CMP" ] && [ ! -f "$CMP_KO" ]; then
	cmp_why="$CMP_KO not installed (harness/build/build-lab-modules.sh builds it)"
elif [ ! -e "$CMP" ] && ! insmod "$CMP_KO" 2>"$MI_TMP/insmod.out"; then
	cmp_why="cannot load $CMP_KO: $(cat "$MI_TMP/insmod.out")"
else
	# Unloaded again only when this test loaded it.
	[ ! -e "$MI_TMP/insmod.out" ] || loaded=lab_memmap_hotplug
	out=$("$MI_WRITE" "$CMP" off)
	if [ "$out" = ok ]; then
		have_cmp=1
	else
		cmp_why="writing 'off' to $CMP failed: $out"
	fi
fi

# cmp_write STRING: write STRING to the lab's module; false, saying why,
# when it refuses.
cmp_write() {
	local out
	out=$("$MI_WRITE" "$CMP" "$1")
	[ "$out" = ok ] && return 0
	ktap_print_msg "writing '$1' to $CMP: $out"
	return 1
}

# cmp_field NAME: a line of the lab's module's state.
cmp_field() {
	sed -n "s/^$1 //p" "$MI_TMP/cmp.out"
}

# zone_pages: "PRESENT MANAGED", the pages of every zone, from /proc/zoneinfo.
zone_pages() {
	awk '$1 == "present" { p += $2 } $1 == "managed" { m += $2 }
		END { print p + 0, m + 0 }' /proc/zoneinfo
}

TESTS=(
	"to system-ram: every memory block online, its memmap where asked"
	"hot-added struct pages equal the slow path's"
	"an allocation bound to its node lands on it, written and read back"
	"offline-memory and back to devdax"
	"kernel log clean"
)

ktap_print_header
ktap_set_plan $((4 * ${#TESTS[@]}))
[ "$have_cmp" = 1 ] || ktap_print_msg "not comparing struct pages: $cmp_why"

# results NAME skip|fail WHY: the results of a case that cannot run.
results() {
	local t
	for t in "${TESTS[@]}"; do
		if [ "$2" = skip ]; then mi_skip "$1: $t" "$3"; else mi_result "$1: $t" 1 "$3"; fi
	done
}

# online_check BLOCKS STATE: every block of BLOCKS in STATE; prints those not.
online_check() {
	local b st bad=0
	for b in $1; do
		st=$(cat "$MI_MEMDIR/memory$b/state" 2>/dev/null)
		[ "$st" = "$2" ] && continue
		ktap_print_msg "memory$b is '${st:-missing}', want $2"
		bad=1
	done
	return "$bad"
}

# use_memory NODE LO_PFN END_PFN: a file on a tmpfs bound to NODE, written
# and read back through a shared mapping; its pages' PFNs must lie in
# [LO_PFN, END_PFN).  False, saying why, when not.
use_memory() {
	local node=$1 lo_pfn=$2 end_pfn=$3 seed=$RANDOM$RANDOM out lo hi
	USE_DIR=$MI_TMP/use
	mkdir -p "$USE_DIR"
	if ! mount -t tmpfs -o "size=$((USE_LEN + (1 << 20))),mpol=bind:$node" tmpfs "$USE_DIR" \
		2>"$MI_TMP/mount.out"; then
		ktap_print_msg "cannot mount a tmpfs bound to node $node: $(cat "$MI_TMP/mount.out")"
		return 1
	fi
	out=$("$MI_PATTERN" both "$USE_DIR/data" 0 "$USE_LEN" "$seed" 2>&1)
	if [[ ! "$out" =~ ^ok\ pfn\ (0x[0-9a-f]+)-(0x[0-9a-f]+)$ ]]; then
		ktap_print_msg "dax_pattern both on $USE_DIR/data: $out"
		umount "$USE_DIR"
		return 1
	fi
	lo=$((BASH_REMATCH[1])) hi=$((BASH_REMATCH[2]))
	ktap_print_msg "$((USE_LEN >> 20)) MiB on a tmpfs bound to node $node: PFNs" \
		"$(printf '%#x-%#x' "$lo" "$hi"), the device's blocks $(printf '%#x-%#x' \
		"$lo_pfn" $((end_pfn - 1)))"
	if [ "$lo" -lt "$lo_pfn" ] || [ "$hi" -ge "$end_pfn" ]; then
		ktap_print_msg "pages outside the device's memory"
		umount "$USE_DIR"
		return 1
	fi
	out=$("$MI_PATTERN" check "$USE_DIR/data" 0 "$USE_LEN" "$seed" 2>&1)
	umount "$USE_DIR"
	[ "$out" = ok ] || { ktap_print_msg "read back: $out"; return 1; }
}

# hotplug_case ns|mom|cxl|hmem: one case, five results.
hotplug_case() {
	local kind=$1 name dax mark mom=0 vm=0 blocks nb first last node ok rc
	local p0 m0 p1 m1 p2 want_pages sps start npages t0 l
	case "$kind" in
	ns|mom)
		name="pmem devdax${MI_NS:+ ($MI_NS)}"
		[ "$kind" = ns ] || name+=" with memmap_on_memory"
		if [ "$have_ns" = 0 ]; then
			results "$name" skip "$MI_NS_WHY"
			return
		fi
		if [ "$kind" = mom ] && [ -n "$mom_why" ]; then
			results "$name" skip "$mom_why"
			return
		fi
		if [ "$ns_ok" = 0 ]; then
			results "$name" fail "cannot configure $MI_NS devdax map=dev align=2M"
			return
		fi
		dax=$(mi_ns_dev chardev) ;;
	cxl)
		name="CXL ram devdax${MI_CXL_DAX:+ ($MI_CXL_DAX)}"
		[ "$have_cxl_dax" = 1 ] || { results "$name" skip "$MI_CXL_DAX_WHY"; return; }
		dax=$MI_CXL_DAX ;;
	hmem)
		name="soft-reserved devdax${MI_HMEM:+ ($MI_HMEM)}"
		[ "$have_hmem" = 1 ] || { results "$name" skip "$MI_HMEM_WHY"; return; }
		dax=$MI_HMEM ;;
	esac
	if [ -z "$dax" ] || [ "$(mi_dax_field "$dax" mode)" != devdax ]; then
		results "$name" fail "no device-dax in devdax mode ('${dax:-none}')"
		return
	fi
	mark="hotplug: $name"
	mi_kmsg_mark "$mark"
	if [ "$kind" = mom ]; then
		MOM_WAS=$(cat "/sys/bus/dax/devices/$dax/memmap_on_memory") MOM_DAX=$dax
		if [ "$("$MI_WRITE" "/sys/bus/dax/devices/$dax/memmap_on_memory" 1)" != ok ]; then
			results "$name" fail "cannot set $dax's memmap_on_memory"
			MOM_DAX=
			return
		fi
	fi
	# The memmap of each block is on it when the device asks for it and
	# the kernel allows it.
	if [ "$(cat "/sys/bus/dax/devices/$dax/memmap_on_memory" 2>/dev/null)" = 1 ] &&
		[ -z "$mom_why" ]; then
		mom=1
	fi
	blocks=$(mi_dax_blocks "$dax")
	nb=$(grep -c . <<<"$blocks")
	first=$(head -n 1 <<<"$blocks") last=$(tail -n 1 <<<"$blocks")
	ktap_print_msg "$name: $dax, $nb memory blocks ($first..$last) of $BLOCK_PAGES pages," \
		"memmap_on_memory $([ "$mom" = 1 ] && echo on || echo off)"
	read -r p0 m0 < <(zone_pages)
	# The lab's module watches the device's PFNs.
	start=$(($(cat "/sys/bus/dax/devices/$dax/resource") / MI_PAGE_SIZE))
	npages=$(($(cat "/sys/bus/dax/devices/$dax/size") / MI_PAGE_SIZE))
	[ "$have_cmp" = 0 ] || cmp_write "$start $npages"

	# 1: online, every block, with its memmap where asked.
	DAX=$dax
	t0=$SECONDS
	ok=0
	mi_run daxctl reconfigure-device --mode=system-ram "$dax" || ok=2
	ktap_print_msg "$name: to system-ram in $((SECONDS - t0)) s"
	if [ "$ok" = 0 ]; then
		[ "$(mi_dax_field "$dax" mode)" = system-ram ] ||
			{ ktap_print_msg "daxctl list reports mode '$(mi_dax_field "$dax" mode)'"; ok=1; }
		[ "$nb" -gt 0 ] || { ktap_print_msg "no memory block wholly inside $dax"; ok=1; }
		online_check "$blocks" online || ok=1
		read -r p1 m1 < <(zone_pages)
		vm=$(((p1 - p0) - (m1 - m0)))
		ktap_print_msg "zoneinfo: present +$((p1 - p0)) pages, managed +$((m1 - m0))"
		if [ $((p1 - p0)) -ne $((nb * BLOCK_PAGES)) ]; then
			ktap_print_msg "present pages grew by $((p1 - p0)), want $((nb * BLOCK_PAGES))"
			ok=1
		fi
		if [ "$mom" = 0 ] && [ "$vm" -ne 0 ]; then
			ktap_print_msg "$vm pages present but not managed: a memmap on the memory" \
				"without memmap_on_memory"
			ok=1
		elif [ "$mom" = 1 ] && { [ "$vm" -le 0 ] || [ $((vm % nb)) -ne 0 ]; }; then
			ktap_print_msg "$vm pages present but not managed, want each block's memmap" \
				"(memmap_on_memory): a positive multiple of $nb"
			ok=1
		fi
	fi
	mi_result "$name: ${TESTS[0]}" $((ok != 0))

	# 2: the struct pages against the slow path's.
	if [ "$have_cmp" = 0 ]; then
		mi_skip "$name: ${TESTS[1]}" "$cmp_why"
	elif [ "$ok" = 2 ] || ! cat "$CMP" >"$MI_TMP/cmp.out" 2>&1; then
		mi_result "$name: ${TESTS[1]}" 1 "nothing onlined, or no state in $CMP"
	else
		mi_indent <"$MI_TMP/cmp.out"
		rc=0
		sps=$(cmp_field struct_page_size)
		# memory_block_memmap_on_memory_pages(): each block's memmap,
		# pageblock-aligned when memmap_on_memory=force.
		vm=0
		if [ "$mom" = 1 ]; then
			vm=$(((BLOCK_PAGES * sps + MI_PAGE_SIZE - 1) / MI_PAGE_SIZE))
			[ "$(cat "$MOM_PARAM")" != force ] ||
				vm=$(((vm + MI_PMD_SIZE / MI_PAGE_SIZE - 1) / (MI_PMD_SIZE / MI_PAGE_SIZE) *
					(MI_PMD_SIZE / MI_PAGE_SIZE)))
		fi
		want_pages=$((nb * (BLOCK_PAGES - vm)))
		if [ "$(cmp_field pages)" != "$want_pages" ]; then
			ktap_print_msg "compared $(cmp_field pages) pages, want $want_pages" \
				"($nb blocks of $BLOCK_PAGES pages less $vm of memmap each)"
			rc=1
		fi
		if [ "$(cmp_field ranges)" != "$nb" ]; then
			ktap_print_msg "$(cmp_field ranges) ranges notified, want $nb, one a block"
			rc=1
		fi
		if [ "$(cmp_field mismatch)" != 0 ] ||
			[ "$(cmp_field first_mismatch)" != none ]; then
			ktap_print_msg "$(cmp_field mismatch) pages differ from the slow" \
				"path's, the first: $(cmp_field first_mismatch)"
			rc=1
		fi
		if [ "$(cmp_field digest)" != "$(cmp_field slow_digest)" ] ||
			[ -z "$(cmp_field digest)" ]; then
			ktap_print_msg "digest '$(cmp_field digest)'," \
				"slow_digest '$(cmp_field slow_digest)'"
			rc=1
		fi
		mi_result "$name: ${TESTS[1]}" "$rc"
	fi
	[ "$have_cmp" = 0 ] || cmp_write off

	# 3: the memory used.
	if [ "$ok" = 2 ]; then
		mi_result "$name: ${TESTS[2]}" 1 "the memory is not online"
	else
		node=
		for l in "$MI_MEMDIR/memory$first"/node[0-9]*; do
			[ ! -e "$l" ] || node=${l##*/node}
		done
		if [ -z "$node" ]; then
			mi_result "$name: ${TESTS[2]}" 1 "memory$first has no node"
		else
			use_memory "$node" $((first * BLOCK_PAGES)) $(((last + 1) * BLOCK_PAGES))
			mi_result "$name: ${TESTS[2]}" $?
		fi
	fi

	# 4: offline, and back to devdax.
	ok=0
	t0=$SECONDS
	if [ "$(mi_dax_field "$dax" mode)" = system-ram ]; then
		mi_run daxctl offline-memory "$dax" || ok=1
		[ "$ok" = 1 ] || online_check "$blocks" offline || ok=1
	fi
	if ! mi_run daxctl reconfigure-device --mode=devdax "$dax"; then
		ok=1
		daxctl reconfigure-device -f --mode=devdax "$dax" >/dev/null 2>&1
	fi
	if [ "$(mi_dax_field "$dax" mode)" != devdax ] || [ ! -c "/dev/$dax" ]; then
		ktap_print_msg "after reconfigure-device --mode=devdax: mode" \
			"'$(mi_dax_field "$dax" mode)', /dev/$dax $([ -c "/dev/$dax" ] || echo missing)"
		ok=1
	fi
	read -r p2 _ < <(zone_pages)
	if [ "$p2" -ne "$p0" ]; then
		ktap_print_msg "present pages $p2, were $p0 before the memory was onlined"
		ok=1
	fi
	ktap_print_msg "$name: offline and devdax again in $((SECONDS - t0)) s"
	mi_result "$name: ${TESTS[3]}" "$ok"
	DAX=
	if [ -n "$MOM_DAX" ]; then
		"$MI_WRITE" "/sys/bus/dax/devices/$dax/memmap_on_memory" "$MOM_WAS" >/dev/null ||
			ktap_print_msg "cannot set $dax's memmap_on_memory back to $MOM_WAS"
		MOM_DAX=
	fi

	# 5: the kernel log.
	mi_log_clean "$mark" "$name: ${TESTS[4]}"
}

ns_ok=0
if [ "$have_ns" = 1 ]; then
	mi_ns_reconfig --mode=devdax --map=dev --align=2M && ns_ok=1
fi
for kind in ns mom cxl hmem; do
	hotplug_case "$kind"
done
[ "$have_ns" = 0 ] || mi_ns_reset

mi_finished
