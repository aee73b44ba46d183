#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # mz_opt and mz_flag set the options' variables
# ndctl-compare.sh: the verdict on the ndctl suite runs check-ndctl.sh made.
#
#   ndctl-compare.sh --runs R,R --names FILE --expect FILE --logs DIR [--summary FILE]
#
# Reads, for each run R, DIR/R.out (the guest's KTAP: "ok N NAME", "ok N
# NAME # SKIP SAID", "not ok N NAME"), DIR/R.log (its console) and, when
# there, DIR/R.info ("SECONDS ACCEL") and DIR/not-run.txt ("SUITE COUNT
# REASON"), as check-ndctl.sh writes them.  Prints the table test x run
# and every skip with what the test said, to stderr and DIR/table.txt,
# writes the JSON summary, and exits 1 naming every difference from the
# base and from --expect (what counts as one: docs/matrix.md).
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_opt --runs runs '' R,R "$(mz_list_re "$MZ_NDCTL_RUNS")" 'the runs to compare (needed)'
mz_opt --names namesf '' FILE . 'the tests that were to run, a "NAME [SUITE]" line each (needed)'
mz_opt --expect expect '' FILE . 'the expected results on base, "TEST fail|skip|new REASON" lines (needed)'
mz_opt --logs logs '' DIR . "the runs' outputs and consoles (needed)"
mz_opt --summary summary '' FILE '^.*[^/]$' 'the JSON summary (default: DIR/summary.json)'
mz_parse "$@"
[ ${#MZ_OPERANDS[@]} -eq 0 ] || mz_arg_error "unexpected argument '${MZ_OPERANDS[0]}'"
for o in runs:"$runs" names:"$namesf" expect:"$expect" logs:"$logs"; do
	[ -n "${o#*:}" ] || mz_arg_error "--${o%%:*} is needed"
done
IFS=, read -r -a runlist <<<"$runs"
[ -n "$summary" ] || summary=$logs/summary.json
[ -f "$namesf" ] || mz_arg_error "--names '$namesf': no such file"
[ -f "$expect" ] || mz_arg_error "--expect '$expect': no such file"
for r in "${runlist[@]}"; do [ -f "$logs/$r.out" ] || die "$logs/$r.out: no such file (run $r did not run)"; done
names=()
declare -A suite=()
while read -r t su; do
	[ -n "$t" ] || continue
	names+=("$t")
	suite[$t]=$su
done <"$namesf"
[ ${#names[@]} -gt 0 ] || die "$namesf names no test"

# The expectations on base.
declare -A want=() why=()
while read -r t res reason; do
	case "$t" in ''|'#'*) continue ;; esac
	case "$res" in fail|skip|new) ;; *) die "$expect: '$t $res': the result must be fail, skip or new" ;; esac
	[ -n "$reason" ] || die "$expect: $t: no reason given"
	want[$t]=$res why[$t]=$reason
done <"$expect"
# expected TEST [RUN]: the result TEST must have on base (or on RUN).
expected() {
	case "${want[$1]:-pass}:${2:-base}" in
	new:base) echo skip ;;
	new:*) echo pass ;;
	*) echo "${want[$1]:-pass}" ;;
	esac
}

# The results.
declare -A res=() reports=() secs=() accel=() said=()
re='^(not )?ok [0-9]+ ([^ ]+)( # SKIP ?(.*))?'
for r in "${runlist[@]}"; do
	while IFS= read -r line; do
		[[ "$line" =~ $re ]] || continue
		if [ -n "${BASH_REMATCH[1]}" ]; then
			res[$r:${BASH_REMATCH[2]}]=fail
		elif [ -n "${BASH_REMATCH[3]}" ]; then
			res[$r:${BASH_REMATCH[2]}]=skip
			said[$r:${BASH_REMATCH[2]}]=${BASH_REMATCH[4]}
		else
			res[$r:${BASH_REMATCH[2]}]=pass
		fi
	done <"$logs/$r.out"
	reports[$r]=0
	[ ! -f "$logs/$r.log" ] ||
		reports[$r]=$(grep -cE '^\[ *[0-9]+\.[0-9]+\] .*(WARNING:|BUG:|Oops|Call Trace:|Kernel panic)' \
			"$logs/$r.log" || true)
	secs[$r]=0 accel[$r]=unknown
	if [ -f "$logs/$r.info" ]; then
		read -r sec acc <"$logs/$r.info"
		secs[$r]=$sec accel[$r]=$acc
	fi
done

problems=()
have_base=0
for r in "${runlist[@]}"; do [ "$r" != base ] || have_base=1; done
for t in "${names[@]}"; do
	for r in "${runlist[@]}"; do
		got=${res[$r:$t]:-missing}
		if [ "$got" = missing ]; then
			problems+=("$t: no result in run $r")
			continue
		fi
		if [ "$r" = base ] || [ "$have_base" = 0 ] || [ "${want[$t]:-}" = new ]; then
			w=$(expected "$t" "$r")
			if [ "$got" = "$w" ]; then
				:
			elif [ "$w" != pass ] && [ "$got" = pass ]; then
				problems+=("$t: passes on $r, but $expect lists it as '${want[$t]}' (${why[$t]}): drop the stale entry")
			else
				problems+=("$t: $got on $r, expected $w${why[$t]:+ (${why[$t]})}")
			fi
			continue
		fi
		b=${res[base:$t]:-missing}
		if [ "$b" = pass ] && [ "$got" != pass ]; then
			problems+=("$t: passes on base, $got on $r")
		elif [ "$b" = skip ] && [ "$got" != skip ]; then
			problems+=("$t: skipped on base, $got on $r (the sets of skips differ)")
		elif [ "$b" = fail ] && [ "$got" = pass ]; then
			info "$t: fails on base, passes on $r"
		fi
	done
done
if [ "$have_base" = 1 ]; then
	for r in "${runlist[@]}"; do
		if [ "$r" != base ] && [ "${reports[$r]}" -gt 0 ] && [ "${reports[base]}" -eq 0 ]; then
			problems+=("run $r: ${reports[$r]} kernel report line(s) on the console, base none; see $logs/$r.log")
		fi
	done
fi

# counts: "SUITE RUN PASS FAIL SKIP MISSING" per suite (in the order of
# --names) and run, for the tests --names gives a suite.
counts() {
	local su r t p f k m
	for su in $(for t in "${names[@]}"; do echo "${suite[$t]}"; done | awk 'NF && !s[$0]++'); do
		for r in "${runlist[@]}"; do
			p=0 f=0 k=0 m=0
			for t in "${names[@]}"; do
				[ "${suite[$t]}" = "$su" ] || continue
				case "${res[$r:$t]:-}" in
				pass) p=$((p + 1)) ;;
				fail) f=$((f + 1)) ;;
				skip) k=$((k + 1)) ;;
				*) m=$((m + 1)) ;;
				esac
			done
			echo "$su $r $p $f $k $m"
		done
	done
}

{
	printf '%-24s' test
	for r in "${runlist[@]}"; do printf ' %-5s' "$r"; done
	printf '\n'
	for t in "${names[@]}"; do
		printf '%-24s' "$t"
		for r in "${runlist[@]}"; do
			v=${res[$r:$t]:--}
			[ "$v" != fail ] || v=FAIL
			printf ' %-5s' "$v"
		done
		case "${want[$t]:-}" in
		'') ;;
		new) printf '  new: skipped on base (%s), passes on the series' "${why[$t]}" ;;
		*) printf '  expected on base: %s (%s)' "${want[$t]}" "${why[$t]}" ;;
		esac
		printf '\n'
	done
	printf '%-24s' seconds
	for r in "${runlist[@]}"; do printf ' %-5s' "${secs[$r]}"; done
	printf '\n'
	if [ -s "$logs/not-run.txt" ]; then
		while read -r nsuite count reason; do
			printf 'not run: suite %s (%s tests): %s\n' "$nsuite" "$count" "$reason"
		done <"$logs/not-run.txt"
	fi
	# Each suite's counts per run: pass/fail/skip.
	counts | awk '{ k = $1; if (!(k in seen)) { seen[k] = 1; order[n++] = k }
			c[k, $2] = $3 "/" $4 "/" $5 ($6 ? " (" $6 " missing)" : ""); if (!($2 in rs)) { rs[$2] = 1; runs[m++] = $2 } }
		END { if (!n) exit
		      printf "%-24s", "suite (pass/fail/skip)"; for (j = 0; j < m; j++) printf " %-9s", runs[j]; printf "\n"
		      for (i = 0; i < n; i++) { printf "%-24s", order[i]
			for (j = 0; j < m; j++) printf " %-9s", c[order[i], runs[j]]; printf "\n" } }'
	# Each skip with what the test said last, once per different saying
	# (the kernel release do_skip names, which differs between base and
	# the series, made "RELEASE"; the JSON keeps it).
	for t in "${names[@]}"; do
		for r in "${runlist[@]}"; do
			[ "${res[$r:$t]:-}" = skip ] || continue
			printf '%s\037%s\037%s\n' "$t" "$r" "${said[$r:$t]:-(nothing)}"
		done
	done | sed 's/\o037kernel [^ :]*: /\o037kernel RELEASE: /' |
		awk -F '\037' '{ k = $1 "\037" $3; if (k in runs) runs[k] = runs[k] "," $2; else { order[n++] = k; runs[k] = $2 } }
		END { if (n) print "skipped, with what the test said last:"
		      for (i = 0; i < n; i++) { split(order[i], f, "\037"); printf "  %s (%s): %s\n", f[1], runs[order[i]], f[2] } }'
} | tee "$logs/table.txt" >&2

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
resj=$(for r in "${runlist[@]}"; do
	for t in "${names[@]}"; do
		jq -cn --arg run "$r" --arg test "$t" --arg result "${res[$r:$t]:-missing}" \
			--arg expected "$(expected "$t")" --arg want "$(expected "$t" "$r")" --arg reason "${why[$t]:-}" \
			--arg said "${said[$r:$t]:-}" --arg suite "${suite[$t]:-}" \
			'{run: $run, test: $test, result: $result, expected_on_base: $expected, expected: $want, reason: $reason}
			 + (if $suite != "" then {suite: $suite} else {} end)
			 + (if $result == "skip" then {said: $said} else {} end)'
	done
done | jq -s .)
runj=$(for r in "${runlist[@]}"; do
	jq -cn --arg run "$r" --argjson s "${secs[$r]}" --argjson rep "${reports[$r]}" --arg accel "${accel[$r]}" \
		'{run: $run, seconds: $s, accel: $accel, kernel_report_lines: $rep}'
done | jq -s .)
notj=$(if [ -s "$logs/not-run.txt" ]; then
	while read -r nsuite count reason; do
		jq -cn --arg s "$nsuite" --argjson n "$count" --arg w "$reason" '{suite: $s, tests: $n, reason: $w}'
	done <"$logs/not-run.txt"
fi | jq -s .)
cntj=$(counts | while read -r su r p f k m; do
	jq -cn --arg s "$su" --arg r "$r" --argjson p "$p" --argjson f "$f" --argjson k "$k" --argjson m "$m" \
		'{suite: $s, run: $r, pass: $p, fail: $f, skip: $k, missing: $m}'
done | jq -s .)
probj=$(printf '%s\n' ${problems[@]+"${problems[@]}"} | jq -R . | jq -s 'map(select(. != ""))')
mkdir -p "$(dirname "$summary")"
jq -n --arg cpu "$cpu" --arg ndctl "$MZ_NDCTL_VERSION" --arg kernel "$MZ_BASE_VERSION" \
	--argjson runs "$runj" --argjson results "$resj" --argjson problems "$probj" --argjson notrun "$notj" \
	--argjson counts "$cntj" \
	'{host_cpu: $cpu, ndctl: $ndctl, base_kernel: $kernel, runs: $runs, counts: $counts,
	  results: $results, not_run: $notrun, problems: $problems}' >"$summary"
if [ ${#problems[@]} -gt 0 ]; then
	printf '  %s\n' "${problems[@]}" >&2
	die "${#problems[@]} difference(s) from the base ($MZ_BASE_VERSION with patches/fixes/) or from $expect (listed above); summary: $summary"
fi
if [ "$have_base" = 1 ]; then
	info "runs $runs: every test as on the base ($MZ_BASE_VERSION with patches/fixes/), the base as $expect says; summary: $summary"
else
	info "runs $runs: every test as $expect says for the base ($MZ_BASE_VERSION with patches/fixes/); summary: $summary"
fi
