# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# The memmap_init selftests' helpers for NVDIMM namespaces: the namespace
# MEMMAP_INIT_NAMESPACE names, taken, reconfigured with ndctl, rebound and
# put back as it was found.  Sourced by memmap_lib.sh, never executed.

# mi_ns_users NS: what uses namespace NS, one finding a line; nothing when
# it is free.  NS is in use when its block device (or a partition of it)
# is mounted, swapped on, held by another block device (device mapper,
# md) or claimed by anyone (an exclusive open fails), when a process has
# its block or device-dax device open or mapped, or when its device-dax
# memory is online as system RAM (kmem).
mi_ns_users() {
	local ns=$1 j blk dax
	MI_DEVNUMS=()
	j=$(ndctl list -n "$ns" -i 2>/dev/null)
	blk=$(sed -n 's/.*"blockdev":"\([^"]*\)".*/\1/p' <<<"$j" | head -n 1)
	dax=$(sed -n 's/.*"chardev":"\([^"]*\)".*/\1/p' <<<"$j" | head -n 1)
	[ -z "$blk" ] || mi_blk_users "$blk"
	[ -z "$dax" ] || mi_dax_users "$dax"
	mi_open_users
}

# mi_ns_config: "MODE MAP ALIGN SECTOR_SIZE REQUEST" of MI_NS, as ndctl
# list and the attribute report them ("-" for a field they do not give).
# Only an enabled namespace shows its mode: disabled, it reads as raw.
mi_ns_config() {
	local j f v
	local -a out=()
	j=$(ndctl list -n "$MI_NS" -i 2>/dev/null)
	for f in mode map align sector_size; do
		v=$(sed -n "s/.*\"$f\":\"\\{0,1\\}\\([^\",]*\\).*/\\1/p" <<<"$j" | head -n 1)
		out+=("${v:--}")
	done
	v=$(mi_ns_request)
	out+=("${v:--}")
	echo "${out[*]}"
}

# mi_ns_infoblock: the uuid of the pfn or dax info block of MI_NS, "-"
# when it has none.  Each info block ndctl creates has a new one.
mi_ns_infoblock() {
	local h
	h=$(cat "/sys/bus/nd/devices/$MI_NS/holder" 2>/dev/null)
	[ -n "$h" ] && cat "/sys/bus/nd/devices/$h/uuid" 2>/dev/null || echo -
}

# mi_ns_disabled: true when MI_NS is disabled.
mi_ns_disabled() {
	ndctl list -n "$MI_NS" -i 2>/dev/null | grep -q '"state":"disabled"'
}

# mi_ns_init: take the namespace MEMMAP_INIT_NAMESPACE names, when it may
# be used, and remember how it is configured (mi_ns_reset puts it back).
# Returns false (with MI_NS_WHY set) when the run names none, without
# ndctl or the attribute (unless MI_NS_ANY_KERNEL=1: a test of kernels
# without it), or when the namespace is in use (mi_ns_users).  Bails out
# when the name is not one of a pmem namespace with capacity.
mi_ns_init() {
	local ns=${MEMMAP_INIT_NAMESPACE:-} d users
	MI_NS_WHY=
	if [ -z "$ns" ]; then
		MI_NS_WHY="set MEMMAP_INIT_NAMESPACE=namespaceX.Y to let the tests"
		MI_NS_WHY+=" reconfigure that namespace and destroy its data"
		return 1
	fi
	if ! command -v ndctl >/dev/null; then
		MI_NS_WHY="ndctl not installed"
		return 1
	fi
	d=/sys/bus/nd/devices/$ns
	[ -d "$d" ] || mi_bail "MEMMAP_INIT_NAMESPACE=$ns: no such namespace ('ndctl list -N -i')"
	case "$(cat "$d/devtype" 2>/dev/null)" in
	nd_namespace_pmem|nd_namespace_io) ;;
	*) mi_bail "MEMMAP_INIT_NAMESPACE=$ns is not a pmem namespace" ;;
	esac
	[ "$(cat "$d/size" 2>/dev/null)" != 0 ] ||
		mi_bail "MEMMAP_INIT_NAMESPACE=$ns has no capacity (a namespace seed)"
	if [ ! -f "$d/memmap_streaming" ] && [ "$MI_NS_ANY_KERNEL" != 1 ]; then
		MI_NS_WHY="$ns has no memmap_streaming attribute"
		return 1
	fi
	modprobe -q -a nd_pmem dax_pmem device_dax 2>/dev/null
	users=$(mi_ns_users "$ns")
	if [ -n "$users" ]; then
		MI_NS_WHY="$ns is in use, not touching it: $(mi_join <<<"$users")"
		return 1
	fi
	MI_NS=$ns
	MI_NS_ATTR=$d/memmap_streaming
	# A disabled namespace shows its configuration once enabled; it is
	# disabled again when the test is done with it.
	MI_NS_WAS_DISABLED=0
	if mi_ns_disabled; then
		MI_NS_WAS_DISABLED=1
		if ! ndctl enable-namespace "$ns" >/dev/null 2>&1; then
			MI_NS=
			MI_NS_WHY="$ns is disabled and cannot be enabled to read its configuration"
			return 1
		fi
	fi
	MI_NS_SAVED=$(mi_ns_config)
	MI_NS_INFOBLOCK=$(mi_ns_infoblock)
	# A labelled namespace's uuid: each reconfiguration gives it a new
	# one, mi_ns_reset the old one back.
	MI_NS_UUID=$(mi_ns_uuid)
}

# mi_ns_uuid: the uuid of MI_NS's labels; nothing for a label-less one,
# which has no uuid attribute.
mi_ns_uuid() {
	cat "/sys/bus/nd/devices/$MI_NS/uuid" 2>/dev/null || true
}

mi_ndctl() {
	mi_run ndctl "$@"
}

mi_ns_disable() {
	mi_ndctl disable-namespace "$MI_NS"
}

mi_ns_enable() {
	mi_ndctl enable-namespace "$MI_NS"
}

# mi_ns_reconfig OPTIONS...: reconfigure the namespace (its data is
# lost) without writing labels to a label-less NVDIMM (ndctl's autolabel
# would: the run gave the test the namespace, not the NVDIMM's labels).
mi_ns_reconfig() {
	mi_ndctl create-namespace -f -e "$MI_NS" --no-autolabel "$@"
}

# mi_ns_request: the current request of the namespace.
mi_ns_request() {
	mi_bracketed "$MI_NS_ATTR"
}

# mi_ns_set REQUEST: set the request of the (disabled) namespace.
mi_ns_set() {
	local out
	out=$("$MI_WRITE" "$MI_NS_ATTR" "$1")
	[ "$out" = ok ] || { ktap_print_msg "writing '$1' to $MI_NS_ATTR: $out"; return 1; }
}

# mi_ns_rebind REQUEST: disable the namespace, set REQUEST and enable it
# again with an empty trace buffer.  MI_BIND_NS is how long the enable,
# which contains the bind, took.
mi_ns_rebind() {
	local t0 rc
	mi_ns_disable && mi_ns_set "$1" || return 1
	[ -z "$MI_TRACE" ] || mi_trace_clear
	t0=$(mi_now_ns)
	mi_ns_enable
	rc=$?
	MI_BIND_NS=$(($(mi_now_ns) - t0))
	return $rc
}

# mi_ns_reset: put the namespace back as mi_ns_init found it: its mode,
# map, align and sector size (ndctl create-namespace -f -e, which loses
# the data), its uuid, its memmap_streaming request and whether it was
# enabled.
# When a test gave it a new info block, which saved the request of that
# moment, a last create-namespace -f -e with the request found saves that
# one again.
# mi_cleanup calls it on every exit; tests call it when they are done
# with the namespace.  Prints what it could not restore; false then.
mi_ns_reset() {
	local mode map align ss req now rc=0
	local -a opts=()
	[ -n "$MI_NS" ] && [ -n "$MI_NS_SAVED" ] || return 0
	# Enabled, the namespace shows its mode (mi_ns_config).
	mi_ns_disabled && ndctl enable-namespace "$MI_NS" >/dev/null 2>&1
	now=$(mi_ns_config)
	read -r mode map align ss req <<<"$MI_NS_SAVED"
	if [ "${now% *}" != "${MI_NS_SAVED% *}" ] ||
		[ "$(mi_ns_infoblock)" != "$MI_NS_INFOBLOCK" ] ||
		[ "$(mi_ns_uuid)" != "$MI_NS_UUID" ]; then
		# ndctl writes the uuid it is given even when the namespace
		# holds it already, and the kernel refuses a uuid any
		# namespace holds: a labelled namespace that still has its
		# old one gets another first.
		if [ -n "$MI_NS_UUID" ] && [ "$(mi_ns_uuid)" = "$MI_NS_UUID" ]; then
			ndctl create-namespace -f -e "$MI_NS" --no-autolabel \
				--mode=raw >/dev/null 2>&1
		fi
		if [ "$req" != - ]; then
			ndctl disable-namespace "$MI_NS" >/dev/null 2>&1
			"$MI_WRITE" "$MI_NS_ATTR" "$req" >/dev/null
		fi
		opts=(--mode="$mode")
		[ "$map" = - ] || opts+=(--map="$map")
		[ "$align" = - ] || [ "$mode" = raw ] || [ "$mode" = sector ] ||
			opts+=(--align="$align")
		[ "$mode" != sector ] || [ "$ss" = - ] || opts+=(--sector-size="$ss")
		[ -z "$MI_NS_UUID" ] || opts+=(--uuid="$MI_NS_UUID")
		ndctl create-namespace -f -e "$MI_NS" --no-autolabel "${opts[@]}" >/dev/null 2>&1
	fi
	if [ "$req" != - ] && [ "$(mi_ns_request)" != "$req" ]; then
		ndctl disable-namespace "$MI_NS" >/dev/null 2>&1
		"$MI_WRITE" "$MI_NS_ATTR" "$req" >/dev/null
		ndctl enable-namespace "$MI_NS" >/dev/null 2>&1
	fi
	now=$(mi_ns_config)
	if [ "$now" != "$MI_NS_SAVED" ]; then
		ktap_print_msg "cannot put $MI_NS back: it was '$MI_NS_SAVED'" \
			"(mode map align sector_size request), it is '$now'"
		rc=1
	fi
	if [ "$(mi_ns_uuid)" != "$MI_NS_UUID" ]; then
		ktap_print_msg "cannot put $MI_NS back: its uuid was $MI_NS_UUID," \
			"it is $(mi_ns_uuid)"
		rc=1
	fi
	if [ "$MI_NS_WAS_DISABLED" = 1 ] &&
		! ndctl disable-namespace "$MI_NS" >/dev/null 2>&1; then
		ktap_print_msg "cannot disable $MI_NS again, as it was found"
		rc=1
	fi
	return "$rc"
}

# mi_ns_dev KIND: the block device (KIND blockdev, e.g. pmem0) or device-dax
# character device (KIND chardev, e.g. dax0.0) of the namespace.
mi_ns_dev() {
	ndctl list -n "$MI_NS" 2>/dev/null |
		sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" | head -n 1
}
