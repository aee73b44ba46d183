#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The administrator's workflow with an ndctl that knows the namespace
# attribute (ndctl list's "memmap_streaming", create-namespace
# --memmap-streaming=default|on|off):
#
#   - ndctl list shows the choice of every namespace whose kernel has the
#     attribute, as the attribute reads, and nothing where it has none;
#   - create-namespace --memmap-streaming=VALUE sets the choice before the
#     namespace's first bind, which uses it (the trace event's backend);
#   - create-namespace -e without the option keeps the choice, also when
#     the reconfiguration gives a label-less namespace labels, which makes
#     the kernel forget it (MEMMAP_INIT_LABEL_REGION, while the region is
#     still label-less: before memmap_lifetime.sh writes its labels);
#   - in that region, now labelled, create-namespace -r creates a namespace
#     whose first bind uses the option's choice, or "default" without the
#     option, even from a namespace seed that carried another choice;
#   - an invalid word, "on" on a kernel without the streaming backend and
#     the option on a kernel without the attribute fail -e before it
#     changes anything, enabled or disabled: the namespace and the data on
#     it are still there; creating a namespace with "on" there leaves none.
#
# With an ndctl whose create-namespace does not list --memmap-streaming
# (distributions' ndctl before it learned the attribute) the whole test
# skips, saying so.  It reconfigures MEMMAP_INIT_NAMESPACE and destroys
# the namespaces of MEMMAP_INIT_LABEL_REGION (memmap_lib_lab.sh).

# shellcheck disable=SC2317 # mi_cleanup_hook runs from the EXIT trap
# shellcheck source=guest/memmap_init/memmap_lib_lab.sh
. "$(dirname "$0")/memmap_lib_lab.sh"

TESTS=(
	"ndctl list shows memmap_streaming where the kernel has the attribute, as it reads"
	"create-namespace --memmap-streaming=default: first bind uses it"
	"create-namespace --memmap-streaming=on: first bind uses it"
	"create-namespace --memmap-streaming=off: first bind uses it"
	"an invalid --memmap-streaming changes nothing"
	"--memmap-streaming=on without the streaming backend changes nothing"
	"--memmap-streaming=on without the streaming backend changes nothing (disabled)"
	"--memmap-streaming on a kernel without the attribute changes nothing"
	"create-namespace -e giving a namespace labels keeps the value: first bind uses it"
	"create-namespace -e on a labelled namespace keeps the value: first bind uses it"
	"create-namespace -r --memmap-streaming: first bind of the new namespace uses it"
	"create-namespace -r without the option: default, whatever the seed had"
	"create-namespace -r --memmap-streaming=on without the backend leaves no namespace"
)

mi_lab_init
command -v ndctl >/dev/null || mi_skip_all "ndctl not installed"
# "--help" opens the man page; "-h" prints the options.
ndctl create-namespace -h 2>&1 | grep -q -- '--memmap-streaming' ||
	mi_skip_all "ndctl $(ndctl --version 2>/dev/null) has no create-namespace" \
		"--memmap-streaming: it needs an ndctl that knows the memmap_streaming attribute"
mi_probe
# A kernel without the attribute is one this test has cases for.
MI_NS_ANY_KERNEL=1
have_ns=1
mi_ns_init || have_ns=0
have_attr=0
[ "$have_ns" = 0 ] || [ ! -f "$MI_NS_ATTR" ] || have_attr=1

LR_NS=
mi_cleanup_hook() {
	[ -z "$LR_NS" ] || ndctl destroy-namespace -f "$LR_NS" >/dev/null 2>&1
}

ktap_print_header
ktap_set_plan ${#TESTS[@]}
ktap_print_msg "ndctl $(ndctl --version)"

# nd_field NS: the memmap_streaming field of NS in ndctl list.
nd_field() {
	ndctl list -n "$1" -i 2>/dev/null |
		sed -n 's/.*"memmap_streaming":"\([^"]*\)".*/\1/p' | head -n 1
}

# ---------------------------------------------------------------- list

bad=0
n=0
for d in /sys/bus/nd/devices/namespace*; do
	[ -e "$d" ] || continue
	ns=${d##*/} want='' got=''
	[ ! -f "$d/memmap_streaming" ] || want=$(mi_bracketed "$d/memmap_streaming")
	got=$(nd_field "$ns")
	ktap_print_msg "$ns: attribute '${want:-none}', ndctl list '${got:-none}'"
	[ "$got" = "$want" ] || bad=1
	n=$((n + 1))
done
if [ "$n" = 0 ]; then
	mi_skip "${TESTS[0]}" "no namespace"
else
	mi_result "${TESTS[0]}" "$bad" "ndctl list and the attribute disagree (above)"
fi

# ---------------------------------------------------------------- first binds

# nd_reconfig OPTIONS...: create-namespace -f -e the namespace with an
# empty trace buffer.
nd_reconfig() {
	mi_trace_clear
	mi_ns_reconfig "$@"
}

# nd_check_bind EVENTS TYPE ALTMAP REQUEST: one bind of TYPE with the
# backend REQUEST gives.
nd_check_bind() {
	local want
	want=$(mi_expected_backend "$4" "$3")
	mi_check_events "$1" 1 "$2" "$3" "$want"
}

# nd_other REQUEST: a request other than REQUEST, whose backend differs
# from REQUEST's for fsdax map=dev where the kernel has two to choose from.
nd_other() {
	local r want
	want=$(mi_expected_backend "$1" 1)
	for r in on off default; do
		[ "$r" != "$1" ] || continue
		[ "$r" != on ] || [ "$streaming" = 1 ] || continue
		if [ "$(mi_expected_backend "$r" 1)" != "$want" ]; then
			echo "$r"
			return
		fi
	done
	[ "$1" = off ] && echo default || echo off
}

# nd_skipped DESC: skip DESC, and be true, when there is no namespace to
# test or the kernel has no memmap_streaming attribute (tested last).
nd_skipped() {
	if [ "$have_ns" = 0 ]; then
		mi_skip "$1" "$MI_NS_WHY"
	elif [ "$have_attr" = 0 ]; then
		mi_skip "$1" "the kernel has no memmap_streaming attribute (tested below)"
	else
		return 1
	fi
}

i=1
for v in "${MI_REQUESTS[@]}"; do
	desc=${TESTS[$i]}
	i=$((i + 1))
	if nd_skipped "$desc"; then
		:
	elif [ "$have_trace" = 0 ]; then
		mi_skip "$desc" "${MI_TRACE_WHY:-kernel configuration unknown}"
	elif [ "$v" = on ] && [ "$streaming" = 0 ]; then
		mi_skip "$desc" "kernel built without CONFIG_MEMMAP_STREAMING:" \
			"'on' is refused (tested below)"
	else
		# From another choice, so that a bind that did not use this one
		# shows.
		other=$(nd_other "$v")
		rc=0
		mi_ns_disable && mi_ns_set "$other" && mi_ns_enable || rc=1
		ktap_print_msg "from $other: create-namespace --memmap-streaming=$v"
		if [ "$rc" = 0 ] &&
			nd_reconfig --mode=fsdax --map=dev --memmap-streaming="$v"; then
			nd_check_bind "$(mi_trace_wait 1)" fs_dax 1 "$v" || rc=1
			got=$(nd_field "$MI_NS")
			if [ "$(mi_ns_request)" != "$v" ] || [ "$got" != "$v" ]; then
				ktap_print_msg "attribute reads '$(cat "$MI_NS_ATTR")'," \
					"ndctl list '$got'"
				rc=1
			fi
		else
			rc=1
		fi
		mi_result "$desc" "$rc"
	fi
done

# ---------------------------------------------------------------- refusals

# nd_data_write: put a pattern on the namespace's block device (fsdax).
nd_data_write() {
	local blk
	blk=$(mi_ns_dev blockdev)
	[ -n "$blk" ] || { ktap_print_msg "no block device on $MI_NS"; return 1; }
	dd if=/dev/urandom of="$MI_TMP/pattern" bs=1M count=1 2>/dev/null &&
		dd if="$MI_TMP/pattern" of="/dev/$blk" bs=1M conv=fsync 2>/dev/null
}

# nd_data_intact: the pattern reads back from the namespace's block
# device, which must still be there.
nd_data_intact() {
	local blk
	blk=$(mi_ns_dev blockdev)
	if [ -z "$blk" ] || [ ! -b "/dev/$blk" ]; then
		ktap_print_msg "$MI_NS has no block device any more"
		return 1
	fi
	dd if="/dev/$blk" bs=1M count=1 2>/dev/null | cmp -s - "$MI_TMP/pattern" ||
		{ ktap_print_msg "the data on /dev/$blk changed"; return 1; }
}

# nd_refused DESC WHY OPTIONS...: with fsdax data on the namespace (then
# disabled when ND_DISABLED=1), create-namespace -f -e to devdax with
# OPTIONS fails, saying WHY (an extended regexp) in one line, and changes
# nothing: the namespace lists as before and its data reads back.
nd_refused() {
	local desc=$1 why=$2 before after out rc=0
	shift 2
	if ! mi_ns_reconfig --mode=fsdax --map=dev || ! nd_data_write ||
		{ [ "${ND_DISABLED:-0}" = 1 ] && ! mi_ns_disable; }; then
		mi_result "$desc" 1 "cannot put data on $MI_NS"
		return
	fi
	before=$(ndctl list -n "$MI_NS" -i 2>&1)
	if ndctl create-namespace -f -e "$MI_NS" --mode=devdax "$@" \
		>"$MI_TMP/refused.out" 2>&1; then
		ktap_print_msg "create-namespace $* succeeded"
		rc=1
	fi
	# The error, without the usage text that ndctl adds to parse errors.
	out=$(grep -v -e '^[[:space:]]*$' -e '^ usage:' -e '^    ' "$MI_TMP/refused.out")
	mi_indent <<<"$out"
	if [ "$(grep -c . <<<"$out")" -ne 1 ] || ! grep -qE "$why" <<<"$out"; then
		ktap_print_msg "want one line saying /$why/"
		rc=1
	fi
	after=$(ndctl list -n "$MI_NS" -i 2>&1)
	if [ "$after" != "$before" ]; then
		ktap_print_msg "$MI_NS changed: it was"
		mi_indent <<<"$before"
		ktap_print_msg "it is"
		mi_indent <<<"$after"
		rc=1
	fi
	[ "${ND_DISABLED:-0}" = 0 ] || ! mi_ns_disabled || mi_ns_enable || rc=1
	nd_data_intact || rc=1
	mi_result "$desc" "$rc"
}

if [ "$have_ns" = 0 ]; then
	mi_skip "${TESTS[4]}" "$MI_NS_WHY"
else
	nd_refused "${TESTS[4]}" "invalid --memmap-streaming 'fast'" --memmap-streaming=fast
fi
for i in 5 6; do
	if nd_skipped "${TESTS[$i]}"; then
		:
	elif [ "$streaming" = 1 ]; then
		mi_skip "${TESTS[$i]}" "the kernel has the streaming backend: 'on' is accepted"
	else
		ND_DISABLED=$((i - 5)) nd_refused "${TESTS[$i]}" "CONFIG_MEMMAP_STREAMING" \
			--memmap-streaming=on
	fi
done
if [ "$have_ns" = 0 ]; then
	mi_skip "${TESTS[7]}" "$MI_NS_WHY"
elif [ "$have_attr" = 1 ]; then
	mi_skip "${TESTS[7]}" "the kernel has the memmap_streaming attribute"
else
	nd_refused "${TESTS[7]}" "memmap_streaming attribute" --memmap-streaming=off
fi
[ "$have_ns" = 0 ] || mi_ns_reset || ktap_print_msg "$MI_NS was not put back (above)"

# ---------------------------------------------------------------- label region

# The choice "on" where the kernel accepts it: the kernel's reset to
# "default" shows in the bind's backend (and "off" otherwise, where only
# the attribute shows it).
value=on
[ "$streaming" = 1 ] || value=off
[ "$(mi_expected_backend "$value" 1)" != "$(mi_expected_backend default 1)" ] ||
	ktap_print_msg "'$value' and 'default' bind alike here: only the attribute tells them apart"

# lr_ns FILE: the namespace ndctl's JSON output in FILE names.
lr_ns() {
	sed -n 's/.*"dev":"\(namespace[0-9]*\.[0-9]*\)".*/\1/p' "$1" | head -n 1
}

# lr_run DESC WANT ARGS...: ndctl ARGS (a create-namespace in the label
# region) gives a namespace (LR_NS) that reads WANT, and whose first bind
# used WANT's backend.
lr_run() {
	local desc=$1 want=$2 rc=0 events got attr
	shift 2
	mi_trace_clear
	if ! mi_ndctl "$@"; then
		mi_result "$desc" 1
		return 1
	fi
	LR_NS=$(lr_ns "$MI_TMP/ndctl.out")
	attr=/sys/bus/nd/devices/$LR_NS/memmap_streaming
	events=$(mi_trace_wait 1)
	ktap_print_msg "ndctl $* gave ${LR_NS:-nothing}"
	got=$(nd_field "$LR_NS")
	if [ "$(mi_bracketed "$attr")" != "$want" ] || [ "$got" != "$want" ]; then
		ktap_print_msg "${LR_NS:-it} reads '$(cat "$attr" 2>/dev/null)'," \
			"ndctl list '$got', want $want"
		rc=1
	fi
	case " $* " in
	*" --mode=devdax "*) nd_check_bind "$events" generic 1 "$want" || rc=1 ;;
	*) nd_check_bind "$events" fs_dax 1 "$want" || rc=1 ;;
	esac
	mi_result "$desc" "$rc"
}

# lr_destroy: destroy LR_NS; false when that fails.
lr_destroy() {
	mi_ndctl destroy-namespace -f "$LR_NS" && LR_NS=
}

lr_why=
if [ "$have_trace" = 0 ]; then
	lr_why=${MI_TRACE_WHY:-kernel configuration unknown}
elif ! mi_lr_init; then
	lr_why=$MI_LR_WHY
elif ! ls "/sys/bus/nd/devices/$MI_LR"/namespace*/memmap_streaming >/dev/null 2>&1; then
	lr_why="the kernel has no memmap_streaming attribute"
elif [ "$(cat "/sys/bus/nd/devices/$MI_LR/nstype" 2>/dev/null)" != 4 ]; then
	# Labels, once written, stay until the NVDIMM goes: only a region
	# that has never had them has the label-less namespace to convert.
	lr_why="$MI_LR already has labels: the label-less namespace that -e"
	lr_why+=" gives labels exists only until labels are first written"
fi
if [ -n "$lr_why" ]; then
	for i in 8 9 10 11 12; do mi_skip "${TESTS[$i]}" "$lr_why"; done
	mi_finished
fi

for d in "/sys/bus/nd/devices/$MI_LR"/namespace*; do
	[ -e "$d" ] && LR_NS=${d##*/} && break
done
ktap_print_msg "label-less $LR_NS in $MI_LR ($MI_LR_NMEM), value $value"
# Set it while label-less (--no-autolabel), then let -e write labels.
if ! mi_ndctl create-namespace -f -e "$LR_NS" --mode=fsdax --map=dev --no-autolabel \
	--memmap-streaming="$value" ||
	[ "$(cat "/sys/bus/nd/devices/$MI_LR/nstype")" != 4 ]; then
	for i in 8 9 10 11 12; do
		mi_result "${TESTS[$i]}" 1 "cannot set up the label-less namespace of $MI_LR"
	done
	mi_finished
fi
lr_run "${TESTS[8]}" "$value" create-namespace -f -e "$LR_NS" --mode=fsdax --map=dev
if [ -z "$LR_NS" ] || [ "$(cat "/sys/bus/nd/devices/$MI_LR/nstype")" != 5 ]; then
	for i in 9 10 11 12; do
		mi_result "${TESTS[$i]}" 1 "$MI_LR has no labelled namespace after -e"
	done
	mi_finished
fi
lr_run "${TESTS[9]}" "$value" create-namespace -f -e "$LR_NS" --mode=devdax --map=dev --align=2M

# New namespaces in the labelled region.
if lr_destroy; then
	lr_run "${TESTS[10]}" "$value" create-namespace -r "$MI_LR" --mode=fsdax --map=dev \
		--memmap-streaming="$value"
else
	mi_result "${TESTS[10]}" 1 "cannot destroy $LR_NS"
fi
# lr_dirty_seeds: give every idle namespace of the region (size 0: the
# seed and the destroyed ones, which create-namespace may reuse) the
# choice $value; false when one does not take it.
lr_dirty_seeds() {
	local d n=0
	for d in "/sys/bus/nd/devices/$MI_LR"/namespace*; do
		[ "$(cat "$d/size" 2>/dev/null)" = 0 ] || continue
		[ "$("$MI_WRITE" "$d/memmap_streaming" "$value")" = ok ] || return 1
		ktap_print_msg "idle ${d##*/} reads '$(cat "$d/memmap_streaming")'"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}
if ! lr_destroy || ! lr_dirty_seeds; then
	mi_result "${TESTS[11]}" 1 "cannot give the idle namespaces of $MI_LR the choice $value"
else
	lr_run "${TESTS[11]}" default create-namespace -r "$MI_LR" --mode=fsdax --map=dev
fi
if [ "$streaming" = 1 ]; then
	mi_skip "${TESTS[12]}" "the kernel has the streaming backend: 'on' is accepted"
elif ! lr_destroy; then
	mi_result "${TESTS[12]}" 1 "cannot destroy $LR_NS"
else
	before=$(ndctl list -N -r "$MI_LR" 2>&1)
	rc=0
	if ndctl create-namespace -r "$MI_LR" --mode=fsdax --memmap-streaming=on \
		>"$MI_TMP/create.out" 2>&1; then
		LR_NS=$(lr_ns "$MI_TMP/create.out")
		ktap_print_msg "create-namespace --memmap-streaming=on succeeded"
		rc=1
	fi
	mi_indent <"$MI_TMP/create.out"
	after=$(ndctl list -N -r "$MI_LR" 2>&1)
	if [ "$after" != "$before" ]; then
		ktap_print_msg "$MI_LR lists, after the refusal:"
		mi_indent <<<"$after"
		rc=1
	fi
	grep -q CONFIG_MEMMAP_STREAMING "$MI_TMP/create.out" ||
		{ ktap_print_msg "the error does not name CONFIG_MEMMAP_STREAMING"; rc=1; }
	mi_result "${TESTS[12]}" "$rc"
fi

mi_finished
