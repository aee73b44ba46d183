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
# Where MEMMAP_INIT_CPU_HOTPLUG=1 allows it, one more writer takes the
# last online CPU offline and back online over and over at the same time
# (CONFIG_HOTPLUG_CPU), so that binds count the node's CPUs and queue
# their helpers while the CPUs change.  Every offline and online write
# must succeed, the CPU must be online after the race, and the next bind
# must run on the threads mi_threads_expected allows.  Naming a namespace
# does not allow it: the machine's CPUs are not the namespace's.
#
# Last, the kernel log must not show a report (MI_REPORTS: warnings,
# oopses, BUGs, lockdep, KASAN).  The races run on the namespace that
# MEMMAP_INIT_NAMESPACE names (memmap_lib.sh) and skip without it; the
# log check runs on any machine.

# shellcheck disable=SC2317 # functions run indirectly: mi_cleanup_hook, BIND
# shellcheck source=guest/memmap_init/memmap_lib_lab.sh
. "$(dirname "$0")/memmap_lib_lab.sh"

SECS=${MEMMAP_INIT_RACE_SECS:-3}

mi_lab_init
[ -x "$MI_WRITE" ] || mi_skip_all "$MI_WRITE not built"
have_ns=1
mi_ns_init || have_ns=0
mi_probe
ncpus=$(nproc)
race_why=
[ "$ncpus" -ge 2 ] ||
	race_why="needs 2 CPUs so that writes and binds run at once (this machine has $ncpus)"
[ "$have_ns" = 1 ] || race_why=$MI_NS_WHY
# The CPU the hotplug writer takes offline and online: the last online
# one, never the first (CPU 0 often cannot go offline).
hp_cpu=$(mi_cpulist "$(cat /sys/devices/system/cpu/online)" | tail -n 1)
hp_file=/sys/devices/system/cpu/cpu$hp_cpu/online
hp_why=
first_cpu=$(mi_cpulist "$(cat /sys/devices/system/cpu/online)" | head -n 1)
if [ "$ncpus" -lt 2 ] || [ "$hp_cpu" = "$first_cpu" ]; then
	hp_why="needs a second online CPU to take offline"
elif [ "${MEMMAP_INIT_CPU_HOTPLUG:-0}" != 1 ]; then
	hp_why="set MEMMAP_INIT_CPU_HOTPLUG=1 to let it take CPU $hp_cpu"
	hp_why+=" offline and online during the race"
elif [ ! -w "$hp_file" ]; then
	hp_why="CPU $hp_cpu cannot go offline ($hp_file missing: CONFIG_HOTPLUG_CPU)"
fi

pids=()
mi_cleanup_hook() {
	[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	[ -z "$hp_why" ] || return 0
	[ "$(cat "$hp_file" 2>/dev/null)" = 1 ] || echo 1 >"$hp_file" 2>/dev/null
}

ktap_print_header
ktap_set_plan 15

mi_kmsg_mark "races start"

# cpu_writer SECS: for SECS seconds, take hp_cpu offline and online again;
# prints a line for each write that failed, then "cpu cycles N".
cpu_writer() {
	local end=$((SECONDS + $1)) n=0 v
	while [ "$SECONDS" -lt "$end" ]; do
		for v in 0 1; do
			echo "$v" 2>/dev/null >"$hp_file" ||
				echo "bad write: $v to $hp_file failed"
		done
		n=$((n + 1))
	done
	echo "cpu cycles $n"
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
	# The CPU hotplug writer.
	if [ -z "$hp_why" ]; then
		cpu_writer "$secs" >>"$MI_TMP/cpus.all" 2>&1 &
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
	for i in 2 3; do
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
		"$name: every offline and online of a CPU during the binds succeeded, the CPU online after"
		"$name: every disable and enable succeeded, namespace enabled after"
		"$name: attribute reads one of default, on, off"
		"$name: next bind uses the request left by the race"
		"$name: the next bind runs on the threads and node the CPUs allow"
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
	: >"$MI_TMP/cpus.all"
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

	# The CPU hotplug writes, and the threads the binds of the race ran on.
	if [ -n "$hp_why" ]; then
		mi_skip "${descs[2]}" "$hp_why"
	else
		if [ "$have_trace" = 1 ]; then
			ktap_print_msg "$name: binds during the race:" \
				"$(mi_trace_events | sed -n 's/.* threads=\([0-9]*\).*/\1/p' |
					sort -n | uniq -c |
					awk '{ printf "%s%s on %s thread(s)", s, $1, $2
						s = ", " }')"
		fi
		bad=$(grep 'bad write' "$MI_TMP/cpus.all")
		nk=$(awk '$1 == "cpu" && $2 == "cycles" { n += $3 } END { print n + 0 }' \
			"$MI_TMP/cpus.all")
		ktap_print_msg "$name: CPU $hp_cpu went offline and online $nk times"
		[ -z "$bad" ] && [ "$nk" -gt 0 ] && [ "$(cat "$hp_file")" = 1 ]
		mi_result "${descs[2]}" $? "$(head -n 5 <<<"$bad")"
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

	# The next bind uses what the attribute says, on the threads and
	# node the CPUs allow.
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

	bad=$(mi_threads_check "$events" "$compound" "$(mi_ns_node)" "")
	[ -n "$events" ] || bad="no event"
	[ -z "$bad" ]
	mi_result "${descs[6]}" $? "$bad"
}

race fsdax --mode=fsdax --map=dev
race devdax --mode=devdax --map=dev --align=2M

mi_log_clean "races start" "kernel log clean after the races"

mi_finished
