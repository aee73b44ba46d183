#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the mm selftests' hmm-tests, which exercise device-private memory
# through test_hmm, once per backend of the device-private memmap: test_hmm
# loaded with memmap_streaming=default, on and off.  One result per run,
# which checks hmm-tests' own totals, not only its exit status: at least
# one test passed, none failed or errored, and every skip has a reason this
# machine explains (expected_skip below).
#
# Given MEMMAP_INIT_HMM_COHERENT, test_hmm is loaded with that range as the
# memory of its two device-coherent devices, and hmm-tests runs its
# device-coherent variants too (without it, they skip saying
# "DEVICE_COHERENT not available", which is then expected); the trace
# events must show both memory types with the request's backend.
#
# hmm-tests takes a while (about two minutes per run under QEMU TCG),
# so this is opt in: set MEMMAP_INIT_HMM=1 to run all three, or to a
# comma-separated list of requests (e.g. MEMMAP_INIT_HMM=on) to run only
# those.  The binary is looked for next to this script, then in ../mm.
#
# Every case runs, and a failed case fails the run with its assertions
# printed; nothing is run again.  That needs test_hmm's fixes: without
# "lib/test_hmm: map a device-coherent device's range only once" and the
# three patches with it, eight device-coherent cases fail, with a WARN
# each time a coherent range is mapped again, and the driver oopses;
# without "lib/test_hmm: retry exclusive access when an invalidation
# revokes it", the exclusive cases fail now and then, when khugepaged
# collapses their buffer.
#
# benchmark_thp_migration moves up to 256 MiB through device memory, more
# than any other case, within a limit of its own (120 s), which a debug
# kernel under QEMU TCG does not meet.  MEMMAP_INIT_HMM_EXCLUDE=CASE[,CASE]
# leaves cases out of every run (hmm-tests -T CASE), each reported as a
# skip that names the variable; a name hmm-tests does not have is an
# error.

# shellcheck source=guest/memmap_init/memmap_lib_lab.sh
. "$(dirname "$0")/memmap_lib_lab.sh"

mi_lab_init
case "${MEMMAP_INIT_HMM:-0}" in
0|"") mi_skip_all "set MEMMAP_INIT_HMM=1 (or a list such as on,off) to run hmm-tests" ;;
1) wanted=" default on off " ;;
*) wanted=" ${MEMMAP_INIT_HMM//,/ } " ;;
esac
hmm_tests=
for f in "$MI_DIR/hmm-tests" "$MI_DIR/../mm/hmm-tests"; do
	if [ -x "$f" ]; then hmm_tests=$f; break; fi
done
[ -n "$hmm_tests" ] || mi_skip_all "no hmm-tests binary next to $0 or in ../mm"
excluded=()
hmm_args=()
IFS=, read -r -a excluded <<<"${MEMMAP_INIT_HMM_EXCLUDE:-}"
for c in ${excluded[@]+"${excluded[@]}"}; do
	"$hmm_tests" -l 2>&1 | grep -Eq "[[:space:]]$c\$" ||
		mi_bail "MEMMAP_INIT_HMM_EXCLUDE: hmm-tests has no case $c" \
			"(hmm-tests -l lists them)"
	hmm_args+=(-T "$c")
done
mi_hmm_init || mi_skip_all "$MI_HMM_WHY"
mi_probe
have_coherent=1
mi_coherent_init || have_coherent=0
if [ "$have_coherent" = 1 ]; then
	load=mi_coherent_load
else
	load=mi_hmm_load
fi

# expected_skip REASON: why hmm-tests may skip with REASON here; false when
# it should not have.
expected_skip() {
	case "$1" in
	"DEVICE_COHERENT not available")
		[ "$have_coherent" = 0 ] || return 1
		echo "test_hmm has device-coherent devices only given" \
			"spm_addr_dev0/1: MEMMAP_INIT_HMM_COHERENT is not set" ;;
	"Not enough huge pages"|"Huge page could not be allocated")
		mi_config HUGETLBFS && return 1
		echo "kernel without CONFIG_HUGETLBFS" ;;
	*"could not find gup_test driver"*)
		mi_config GUP_TEST && return 1
		echo "kernel without CONFIG_GUP_TEST" ;;
	"userfaultfd not available")
		mi_config USERFAULTFD && return 1
		echo "kernel without CONFIG_USERFAULTFD" ;;
	*) return 1 ;;
	esac
}

# show_failures OUTPUT: hmm-tests' failures with their assertion messages
# and, for a case that did not end by itself, how the harness ended it (a
# timeout, a signal), and nothing of its KTAP that could pass for ours.
show_failures() {
	grep -E -e '^(not ok|Bail out)|FAIL|^# +[^ ]+\.c:[0-9]+:' \
		-e '^# [^ ]+: Test (terminated|ended) ' "$1" |
		head -n 40 | sed 's/^/# hmm-tests: /'
}

# total FIELD TOTALS: a count from a "# Totals: pass:N fail:N ..." line.
total() {
	sed -n "s/.* $1:\\([0-9]*\\).*/\\1/p" <<<"$2"
}

# check_totals OUTPUT STATUS: hmm-tests passed something, failed nothing,
# exited 0, and only skipped what expected_skip explains.  Prints what is wrong.
check_totals() {
	local out=$1 status=$2 totals pass fail error reason n why rc=0
	totals=$(grep -E '^# Totals: ' "$out" | tail -n 1)
	if [ -z "$totals" ]; then
		ktap_print_msg "hmm-tests printed no totals"
		return 1
	fi
	pass=$(total pass "$totals")
	fail=$(total fail "$totals")
	error=$(total error "$totals")
	if [ "${pass:-0}" -eq 0 ] || [ "${error:-1}" -ne 0 ]; then
		ktap_print_msg "hmm-tests: want passes and no error: ${totals#\# }"
		rc=1
	elif [ "${fail:-1}" -ne 0 ]; then
		ktap_print_msg "hmm-tests: want no failure: ${totals#\# }"
		rc=1
	elif [ "$status" -ne 0 ]; then
		ktap_print_msg "hmm-tests exited $status with no failure in its totals"
		rc=1
	fi
	while read -r n reason; do
		if why=$(expected_skip "$reason"); then
			ktap_print_msg "hmm-tests: $n skipped, expected: $reason ($why)"
		else
			ktap_print_msg "hmm-tests: $n skipped, not expected here: $reason"
			rc=1
		fi
	done < <(sed -n 's/^ok [0-9]* .* # SKIP \{0,1\}\(.*\)$/\1/p' "$out" |
		sed 's/[[:space:]]*$//' | sort | uniq -c)
	return $rc
}

ktap_print_header
ktap_set_plan $((${#MI_REQUESTS[@]} + ${#excluded[@]}))
[ "$have_coherent" = 1 ] || ktap_print_msg "no device-coherent memory: $MI_COHERENT_WHY"

for req in "${MI_REQUESTS[@]}"; do
	desc="hmm-tests with test_hmm memmap_streaming=$req"
	if [[ "$wanted" != *" $req "* ]]; then
		mi_skip "$desc" "not in MEMMAP_INIT_HMM=$MEMMAP_INIT_HMM"
		continue
	fi
	if [ "$req" = on ] && [ "$streaming" = 0 ]; then
		mi_skip "$desc" "kernel built without CONFIG_MEMMAP_STREAMING"
		continue
	fi
	if ! "$load" "$req"; then
		mi_result "$desc" 1 "cannot load test_hmm"
		continue
	fi
	rc=0
	if [ "$have_trace" = 1 ]; then
		want=$(mi_expected_backend "$req" 0)
		desc="$desc ($want)"
		MI_TRACE_TYPE=private
		mi_check_events "$(mi_trace_wait 1)" -1 private 0 "$want" || rc=1
		if [ "$have_coherent" = 1 ]; then
			MI_TRACE_TYPE=coherent
			mi_check_events "$(mi_trace_wait 2)" 2 coherent 0 "$want" || rc=1
		fi
		MI_TRACE_TYPE=
	fi
	start=$SECONDS
	status=0
	"$hmm_tests" ${hmm_args[@]+"${hmm_args[@]}"} >"$MI_TMP/hmm.out" 2>&1 || status=$?
	show_failures "$MI_TMP/hmm.out"
	totals=$(grep -E '^# Totals' "$MI_TMP/hmm.out" | tail -n 1 | cut -c3-)
	ktap_print_msg "hmm-tests: ${totals:-no totals}, $((SECONDS - start)) s"
	check_totals "$MI_TMP/hmm.out" "$status" || rc=1
	mi_hmm_unload
	mi_result "$desc" $rc
done
for c in ${excluded[@]+"${excluded[@]}"}; do
	mi_skip "hmm-tests case $c" "left out: MEMMAP_INIT_HMM_EXCLUDE=$MEMMAP_INIT_HMM_EXCLUDE"
done

mi_finished
