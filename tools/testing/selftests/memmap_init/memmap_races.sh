#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Writers hammer the memmap_streaming attribute of a namespace while a loop
# disables and enables it, for MEMMAP_INIT_RACE_SECS seconds (default 3)
# per mode (fsdax, then devdax), on a machine with at least two CPUs so
# that writers and binds really run at the same time.  Before it claims
# anything, each run must show that they interleaved: over its iterations
# the writers saw both accepted writes (namespace disabled) and EBUSY
# (namespace bound) while the loop bound and unbound it.  On a slow
# machine (a debug kernel in an emulator, where one disable/enable cycle
# can take seconds) a round may not show both: then it runs another round
# twice as long, up to four rounds.  Every write must succeed or fail with
# EBUSY (EOPNOTSUPP for "on" without CONFIG_MEMMAP_STREAMING), every
# enable and disable must succeed, the attribute must read one of the three
# requests afterwards and the next bind must use it.
#
# Two more writers flip the debugfs knobs of the multithreaded init at the
# same time, so that binds read them while they change: max_threads
# through 0, 1 and 2, min_chunk_pages through a section, 512 and two
# sections (the default), each with a garbage write ("abc") in between.  Every
# numeric write must succeed and every garbage one fail with EINVAL.
# After the race the knobs go back to their defaults and the next bind
# must run on the threads they allow (mi_threads_expected).  Before the
# races, writes of "abc", "-1", "1x" and nothing must fail with EINVAL and
# leave each knob as it was: debugfs parses them with kstrtoull(), which
# takes no sign and no trailing garbage.
#
# Last, the kernel log must not show a report (MI_REPORTS: warnings,
# oopses, BUGs, lockdep, KASAN).  The races run on the namespace that
# MEMMAP_INIT_NAMESPACE names (memmap_lib.sh) and skip without it; the
# knobs' garbage writes and the log check run on any machine.

# shellcheck disable=SC2317 # functions run indirectly: mi_cleanup_hook, BIND
# shellcheck source=memmap_lib.sh
. "$(dirname "$0")/memmap_lib.sh"

SECS=${MEMMAP_INIT_RACE_SECS:-3}

mi_init
[ -x "$MI_WRITE" ] || mi_skip_all "$MI_WRITE not built"
have_ns=1
mi_ns_init || have_ns=0
mi_probe
ncpus=$(nproc)
race_why=
[ "$ncpus" -ge 2 ] ||
	race_why="needs 2 CPUs so that writes and binds run at once (this machine has $ncpus)"
[ "$have_ns" = 1 ] || race_why=$MI_NS_WHY
have_threads=1
mi_threads_init || have_threads=0

pids=()
mi_cleanup_hook() {
	[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
}

ktap_print_header
ktap_set_plan 16

mi_kmsg_mark "races start"

# Garbage the knobs must refuse.
desc="max_threads and min_chunk_pages reject 'abc', '-1', '1x' and an empty write"
desc+=" with EINVAL, unchanged"
if [ "$have_threads" = 0 ]; then
	mi_skip "$desc" "$MI_THREADS_WHY"
elif ! mi_threads_default; then
	mi_result "$desc" 1 "$MI_THREADS_WHY"
else
	rc=0
	for k in max_threads min_chunk_pages; do
		before=$(mi_threads_get $k)
		for v in abc -1 1x ""; do
			out=$(mi_knob_write "$MI_THREADS_DIR/$k" "$v")
			after=$(mi_threads_get $k)
			if [ "$out" != EINVAL ] || [ "$after" != "$before" ]; then
				ktap_print_msg "$k: writing '$v' gave $out, it reads '$after'" \
					"(was '$before')"
				rc=1
			fi
		done
	done
	mi_result "$desc" $rc
fi

# knob_writer KNOB SECS VALUE...: for SECS seconds, write each VALUE and
# then "abc" to the knob in turn; prints a line for each write that did not
# give ok (EINVAL for "abc"), then "knob writes N".
knob_writer() {
	local f=$MI_THREADS_DIR/$1 end=$((SECONDS + $2)) n=0 v want out
	shift 2
	while [ "$SECONDS" -lt "$end" ]; do
		for v in "$@" abc; do
			want=ok
			[ "$v" != abc ] || want=EINVAL
			out=$(mi_knob_write "$f" "$v")
			n=$((n + 1))
			[ "$out" = "$want" ] || echo "bad write: '$v' to $f gave $out, want $want"
		done
	done
	echo "knob writes $n"
}

# race_round: one round of race(), secs long: writers, a reader and the
# bind loop; adds to race()'s counters.
race_round() {
	local i out n_ok n_busy
	pids=()
	for i in 1 2; do
		"$MI_WRITE" -l "$secs" "$MI_NS_ATTR" >"$MI_TMP/writer$i" 2>&1 &
		pids+=($!)
	done
	# A reader, checking the format at every read.
	(
		end=$((SECONDS + secs))
		while [ "$SECONDS" -lt "$end" ]; do
			v=$(cat "$MI_NS_ATTR")
			[[ "$v" =~ $MI_NS_ATTR_RE ]] || echo "bad read: '$v'"
		done
	) >>"$MI_TMP/reader.all" 2>&1 &
	pids+=($!)
	# The knob writers.
	if [ "$have_threads" = 1 ]; then
		knob_writer max_threads "$secs" 0 1 2 >>"$MI_TMP/knobs.all" 2>&1 &
		pids+=($!)
		knob_writer min_chunk_pages "$secs" "$MI_SECTION_PAGES" "$MI_MANY_CHUNKS" \
			"$MI_DEFAULT_CHUNK" >>"$MI_TMP/knobs.all" 2>&1 &
		pids+=($!)
	fi

	end=$((SECONDS + secs))
	while [ "$SECONDS" -lt "$end" ]; do
		ndctl disable-namespace "$MI_NS" >"$MI_TMP/ndctl.out" 2>&1 || {
			fails=$((fails + 1))
			mi_indent <"$MI_TMP/ndctl.out"
		}
		ndctl enable-namespace "$MI_NS" >"$MI_TMP/ndctl.out" 2>&1 || {
			fails=$((fails + 1))
			mi_indent <"$MI_TMP/ndctl.out"
		}
		n=$((n + 1))
	done
	for i in 0 1; do
		wait "${pids[$i]}" || rc=1
		out=$(cat "$MI_TMP/writer$((i + 1))")
		ktap_print_msg "$name: writer $((i + 1)): $out"
		# "on" may only fail with EOPNOTSUPP where there is no streaming.
		if [ "$streaming" = 1 ] && ! grep -q 'EOPNOTSUPP 0 ' <<<"$out"; then rc=1; fi
		n_ok=$(sed -n 's/.* ok \([0-9]*\) .*/\1/p' <<<"$out")
		n_busy=$(sed -n 's/.* EBUSY \([0-9]*\) .*/\1/p' <<<"$out")
		accepted=$((accepted + ${n_ok:-0}))
		busy=$((busy + ${n_busy:-0}))
	done
	for i in 2 3 4; do
		[ -z "${pids[$i]:-}" ] || wait "${pids[$i]}"
	done
	pids=()
	ktap_print_msg "$name: $n disable/enable cycles so far," \
		"in rounds up to ${secs}s, $fails failed"
}

# race NAME OPTIONS...: one run in the mode OPTIONS select, seven results.
race() {
	local name=$1 i n=0 fails=0 rc req want events altmap=1 type dev compound
	local accepted=0 busy=0 why interleaved round secs bad nk
	local -a descs=(
		"$name: writes and binds interleaved (accepted writes and EBUSY both seen)"
		"$name: every write succeeded or failed with EBUSY"
		"$name: every max_threads and min_chunk_pages write succeeded, garbage failed with EINVAL"
		"$name: every disable and enable succeeded, namespace enabled after"
		"$name: attribute reads one of default, on, off"
		"$name: next bind uses the request left by the race"
		"$name: with the knobs back at their defaults, the next bind runs on the threads they allow"
	)
	shift
	if [ -n "$race_why" ]; then
		for i in "${descs[@]}"; do mi_skip "$i" "$race_why"; done
		return
	fi
	if ! mi_ns_reconfig "$@"; then
		for i in "${descs[@]}"; do mi_result "$i" 1 "cannot configure $MI_NS"; done
		return
	fi
	case "$*" in *fsdax*) type=fs_dax ;; *) type=generic ;; esac
	compound=$(mi_compound_pages "$@")

	rc=0
	: >"$MI_TMP/reader.all"
	: >"$MI_TMP/knobs.all"
	[ "$have_trace" = 0 ] || mi_trace_clear
	for ((round = 1, secs = SECS; round <= 4; round++, secs *= 2)); do
		race_round
		[ "$accepted" -eq 0 ] || [ "$busy" -eq 0 ] || [ "$n" -eq 0 ] || break
		[ "$round" -eq 4 ] ||
			ktap_print_msg "$name: no proof of interleaving after" \
				"$secs s; another round"
	done
	[ "$accepted" -gt 0 ] && [ "$busy" -gt 0 ] && [ "$n" -gt 0 ]
	interleaved=$?
	why="$accepted accepted writes, $busy EBUSY over $n cycles on $ncpus CPUs"
	mi_result "${descs[0]}" $interleaved "$why: no proof of a race"
	mi_result "${descs[1]}" $rc

	# The knob writes, and the threads the binds of the race ran on.
	if [ "$have_threads" = 0 ]; then
		mi_skip "${descs[2]}" "$MI_THREADS_WHY"
	else
		if [ "$have_trace" = 1 ]; then
			ktap_print_msg "$name: binds during the race:" \
				"$(mi_trace_events | sed -n 's/.* threads=\([0-9]*\).*/\1/p' |
					sort -n | uniq -c |
					awk '{ printf "%s%s on %s thread(s)", s, $1, $2
						s = ", " }')"
		fi
		bad=$(grep 'bad write' "$MI_TMP/knobs.all")
		nk=$(awk '$1 == "knob" && $2 == "writes" { n += $3 } END { print n + 0 }' \
			"$MI_TMP/knobs.all")
		ktap_print_msg "$name: $nk knob writes"
		[ -z "$bad" ] && [ "$nk" -gt 0 ]
		mi_result "${descs[2]}" $? "$(head -n 5 <<<"$bad")"
		# The knobs as the kernel boots with them, for the next bind.
		mi_threads_default || ktap_print_msg "$MI_THREADS_WHY"
	fi

	ndctl enable-namespace "$MI_NS" >/dev/null 2>&1
	dev=chardev
	[ "$type" != fs_dax ] || dev=blockdev
	[ "$fails" -eq 0 ] && [ "$n" -gt 0 ] && [ -n "$(mi_ns_dev "$dev")" ]
	mi_result "${descs[3]}" $?

	req=$(mi_ns_request)
	! grep -q . "$MI_TMP/reader.all" && [[ "$req" =~ ^(default|on|off)$ ]]
	mi_result "${descs[4]}" $? \
		"request '$req'; $(head -n 3 "$MI_TMP/reader.all" | tr '\n' ' ')"

	# The next bind uses what the attribute says, on the threads the
	# knobs' defaults allow.
	if [ "$have_trace" = 0 ]; then
		mi_skip "${descs[5]}" "${MI_TRACE_WHY:-kernel configuration unknown}"
		mi_skip "${descs[6]}" "${MI_TRACE_WHY:-kernel configuration unknown}"
		return
	fi
	want=$(mi_expected_backend "$req" "$altmap")
	events=
	mi_ns_disable && mi_trace_clear && mi_ns_enable &&
		events=$(mi_trace_wait 1) &&
		mi_check_events "$events" 1 "$type" "$altmap" "$want"
	mi_result "${descs[5]}" $?

	bad=$(mi_threads_check "$events" "$compound")
	[ -n "$events" ] || bad="no event"
	[ -z "$bad" ]
	mi_result "${descs[6]}" $? "$bad"
}

race fsdax --mode=fsdax --map=dev
race devdax --mode=devdax --map=dev --align=2M

mi_log_clean "races start" "kernel log clean after the races"

mi_finished
