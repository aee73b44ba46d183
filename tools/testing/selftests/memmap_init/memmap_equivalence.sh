#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The template and template+streaming backends must write the same struct
# pages as the slow path.  For each memory type, bind it with the slow path
# forced (page_ref_set enabled), digest every struct page of the range the
# trace event reports with test_modules/test_memmap_digest.ko, then rebind
# with request off (template) and on (template+streaming) and compare the
# digests field by field: flags (section, node, zone), refcount, mapcount,
# pgmap, zone_device_data, compound head, folio order and every raw word.
# A digest that finds a struct page still holding the poison pattern fails
# whatever it is compared with: on a CONFIG_DEBUG_VM kernel memory hotplug
# poisons the memmap of every range it adds (page_init_poison()), so that
# page was never written by memmap init.
#
# For the namespace, the first bind of each memory type, ndctl
# create-namespace's own with the request the namespace had, is digested
# too and compared with the same slow path digest.  This group runs first
# in the target (see the Makefile), so that bind is the first of its
# memory type since boot.
#
# test_hmm hands its pages to a free list through zone_device_data right
# after mapping them; every load does the same, and the digest turns those
# links into offsets within the range, so its digests compare as well.

# shellcheck disable=SC2317 # functions run indirectly: mi_cleanup_hook, BIND
# shellcheck source=memmap_lib.sh
. "$(dirname "$0")/memmap_lib.sh"

DIGEST_KO=$MI_DIR/test_modules/test_memmap_digest.ko
DIGEST=/sys/kernel/debug/test_memmap_digest

mi_init
[ -f "$DIGEST_KO" ] || mi_skip_all "$DIGEST_KO not built (needs KDIR at build time)"
mi_trace_init || mi_skip_all "$MI_TRACE_WHY"
mi_load_config ||
	mi_skip_all "kernel configuration unknown (no /proc/config.gz): no expected backend"
if mi_config KASAN || mi_config KMSAN; then
	mi_skip_all "kernels with kasan or kmsan only have the slow path"
fi
mi_pageref_available ||
	mi_skip_all "no page_ref_set tracepoint (CONFIG_DEBUG_PAGE_REF): cannot force the slow path"
have_ns=1
mi_ns_init || have_ns=0
have_hmm=1
mi_hmm_init || have_hmm=0
streaming=1
mi_config MEMMAP_STREAMING || streaming=0

loaded=0
mi_cleanup_hook() {
	[ "$have_hmm" = 0 ] || mi_hmm_unload
	[ "$have_ns" = 0 ] || mi_ns_reset
	[ "$loaded" = 0 ] || rmmod test_memmap_digest 2>/dev/null
}

if [ ! -e "$DIGEST" ]; then
	grep -q ' /sys/kernel/debug ' /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	insmod "$DIGEST_KO" 2>"$MI_TMP/insmod.out" ||
		mi_skip_all "cannot load $DIGEST_KO: $(cat "$MI_TMP/insmod.out")"
	loaded=1
fi
[ -e "$DIGEST" ] || mi_skip_all "$DIGEST missing (debugfs not mounted?)"

ktap_print_header
ktap_set_plan $(((${#MI_NS_TYPES[@]} + 1) * 2 + ${#MI_NS_TYPES[@]}))

# digests OUT REQUEST TYPE ALTMAP COUNT BIND...: bind with REQUEST, check
# the backend, and write the digests of the ranges the events report to OUT.
digests() {
	local out=$1 req=$2 type=$3 altmap=$4 count=$5 want events e start nr poisoned
	shift 5
	want=$(mi_expected_backend "$req" "$altmap")
	"$@" "$req" || return 1
	events=$(mi_trace_wait "${count#-}")
	mi_check_events "$events" "$count" "$type" "$altmap" "$want" >"$MI_TMP/events" || {
		cat "$MI_TMP/events"
		ktap_print_msg "the $want backend did not run"
		return 1
	}
	: >"$out"
	while IFS= read -r e; do
		start=$(mi_field "$e" start_pfn)
		nr=$(mi_field "$e" nr_pages)
		if ! echo "$start $nr" >"$DIGEST" 2>"$MI_TMP/digest.err"; then
			ktap_print_msg "digest of $start+$nr failed: $(cat "$MI_TMP/digest.err")"
			return 1
		fi
		cat "$DIGEST" >>"$out"
	done < <(sort -t= -k2 <<<"$events")
	# No page left poisoned: on a CONFIG_DEBUG_VM kernel memory hotplug
	# poisons the memmap it adds, so a page memmap init skipped still is.
	poisoned=$(awk '$1 == "poisoned" { n += $2 }
		$1 == "first_poisoned_pfn" && $2 != "none" && f == "" { f = $2 }
		END { if (n) printf "%d struct page(s), the first at PFN %s", n, f }' "$out")
	if [ -n "$poisoned" ]; then
		ktap_print_msg "after a $want bind $poisoned still hold the poison" \
			"pattern: never written"
		return 1
	fi
	# Sanity: every page read, every pgmap the one of the range.
	if awk '$1 == "nr_pages" { nr = $2 } $1 == "pages" && $2 != nr { bad = 1 }
		$1 == "pgmap_mismatch" && $2 != 0 { bad = 1 } END { exit !bad }' "$out"; then
		ktap_print_msg "bad digest after a $want bind:"
		mi_indent <"$out"
		return 1
	fi
}

# compare DESC REF OUT: the digests match; otherwise name what differs.
compare() {
	local desc=$1 ref=$2 out=$3
	if cmp -s "$ref" "$out"; then
		ktap_print_msg "$desc: $(awk '$1 == "pages" { r++; n += $2 }
			$1 == "raw" { d = d " " $2 }
			END { printf "%d range(s), %d pages, raw digest(s)%s", r, n, d }' "$out")"
		ktap_test_pass "$desc"
		return
	fi
	ktap_print_msg "$desc: digests differ (slow path | this backend):"
	paste -d'|' "$ref" "$out" | awk -F'|' '$1 != $2' | mi_indent
	ktap_test_fail "$desc"
}

# equivalence NAME TYPE ALTMAP COUNT BIND...: with first_req set, the
# digest of the first bind is in $MI_TMP/first (when first_rc is 0) and is
# compared as well.
equivalence() {
	local name=$1 ref=$MI_TMP/slow req backend slow_req=on rc desc
	shift
	[ "$streaming" = 1 ] || slow_req=default
	mi_pageref_on && digests "$ref" "$slow_req" "$@"
	rc=$?
	mi_pageref_off
	if [ -n "$first_req" ]; then
		desc="$name: $FIRST_DESC, request $first_req: digest matches the slow path"
		if [ "$rc" -ne 0 ]; then
			mi_result "$desc" 1 "no slow path digest"
		elif [ "$first_rc" -ne 0 ]; then
			mi_result "$desc" 1 "no digest of the first bind"
		else
			compare "$desc" "$ref" "$MI_TMP/first"
		fi
	fi
	for req in off on; do
		backend=template
		[ "$req" = off ] || backend=template+streaming
		desc="$name: $backend digest matches the slow path"
		if [ "$rc" -ne 0 ]; then
			mi_result "$desc" 1 "no slow path digest"
		elif [ "$req" = on ] && [ "$streaming" = 0 ]; then
			mi_skip "$desc" "kernel built without CONFIG_MEMMAP_STREAMING"
		elif ! digests "$MI_TMP/$req" "$req" "$@"; then
			mi_result "$desc" 1 "no $backend digest"
		else
			compare "$desc" "$ref" "$MI_TMP/$req"
		fi
	done
}

FIRST_DESC="first bind, by create-namespace -f -e"
first_req=
first_rc=0
for t in "${MI_NS_TYPES[@]}"; do
	IFS='|' read -r name opts type altmap <<<"$t"
	if [ "$have_ns" = 0 ]; then
		mi_skip "$name: $FIRST_DESC: digest matches the slow path" "$MI_NS_WHY"
		mi_skip "$name: template digest matches the slow path" "$MI_NS_WHY"
		mi_skip "$name: template+streaming digest matches the slow path" "$MI_NS_WHY"
		continue
	fi
	# The request the namespace has is the one its first bind uses.
	req=$(mi_ns_request)
	mi_trace_clear
	# shellcheck disable=SC2086 # opts holds several options
	if ! mi_ns_reconfig $opts; then
		for b in "$FIRST_DESC:" template template+streaming; do
			mi_result "$name: $b digest matches the slow path" 1 \
				"cannot configure $MI_NS"
		done
		continue
	fi
	# The bind already happened: digest what it left.
	first_req=$req
	first_rc=0
	digests "$MI_TMP/first" "$req" "$type" "$altmap" 1 true || first_rc=1
	equivalence "$name" "$type" "$altmap" 1 mi_ns_rebind
done
first_req=
[ "$have_ns" = 0 ] || mi_ns_reset

name="device-private (test_hmm)"
if [ "$have_hmm" = 0 ]; then
	mi_skip "$name: template digest matches the slow path" "$MI_HMM_WHY"
	mi_skip "$name: template+streaming digest matches the slow path" "$MI_HMM_WHY"
else
	equivalence "$name" private 0 -1 mi_hmm_load
	mi_hmm_unload
fi

mi_finished
