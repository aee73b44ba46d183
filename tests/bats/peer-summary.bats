#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# harness/peers/peer-summary.py (make peer-summary): every peer suite in
# one table, from the summaries ndctl-compare.sh and hmm-compare.sh write.
#
#   bats tests/bats/peer-summary.bats

bats_require_minimum_version 1.5.0

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	S=$ROOT/harness/peers/peer-summary.py
	T=$BATS_TEST_TMPDIR
	# ndctl: two suites, base and on; base skips one test, on fails one.
	cat >"$T/ndctl.json" <<-'J'
	{"counts": [
	  {"suite": "ndctl:ndctl", "run": "base", "pass": 1, "fail": 0, "skip": 1, "missing": 0},
	  {"suite": "ndctl:ndctl", "run": "on", "pass": 2, "fail": 0, "skip": 0, "missing": 0},
	  {"suite": "ndctl:cxl", "run": "base", "pass": 1, "fail": 0, "skip": 0, "missing": 0},
	  {"suite": "ndctl:cxl", "run": "on", "pass": 0, "fail": 1, "skip": 0, "missing": 0}],
	 "results": [
	  {"run": "base", "test": "a.sh", "suite": "ndctl:ndctl", "result": "pass"},
	  {"run": "base", "test": "b.sh", "suite": "ndctl:ndctl", "result": "skip", "said": "kernel RELEASE: no attribute"},
	  {"run": "base", "test": "c.sh", "suite": "ndctl:cxl", "result": "pass"},
	  {"run": "on", "test": "a.sh", "suite": "ndctl:ndctl", "result": "pass"},
	  {"run": "on", "test": "b.sh", "suite": "ndctl:ndctl", "result": "pass"},
	  {"run": "on", "test": "c.sh", "suite": "ndctl:cxl", "result": "fail"}]}
	J
	cat >"$T/hmm.json" <<-'J'
	{"variant": "stream-y",
	 "base": {"totals": "Totals: pass:3 fail:0 xfail:0 xpass:0 skip:2 error:0, 9 s, exit 0", "failed": [],
	          "skipped": [{"case": "hmm.x.huge", "reason": "Not enough huge pages"},
	                      {"case": "hmm.y.huge", "reason": "Not enough huge pages"}], "warnings": []},
	 "series": {"totals": "Totals: pass:4 fail:1 xfail:0 xpass:0 skip:0 error:0, 9 s, exit 1", "failed": ["hmm.x.huge"],
	            "skipped": [], "warnings": []}}
	J
}

@test "one table: each suite's pass/fail/skip per run, - where a suite did not run" {
	run -0 "$S" "$T/ndctl.json" "$T/hmm.json" --json "$T/out.json"
	[[ "$output" == *$'\n  ndctl:ndctl          1/0/1             -         2/0/0             -\n'* ]]
	[[ "$output" == *$'\n  ndctl:cxl            1/0/0             -         0/1/0             -\n'* ]]
	[[ "$output" == *$'\n  hmm-tests            3/0/2             -             -         4/1/0\n'* ]]
	[ "$(jq -c '[.counts[] | select(.suite == "hmm-tests")] | map([.run, .pass, .fail, .skip])' "$T/out.json")" = \
		'[["base",3,0,2],["series",4,1,0]]' ]
}

@test "every failure by suite, run and name" {
	run -0 "$S" "$T/ndctl.json" "$T/hmm.json"
	[[ "$output" == *$'failed: 2\n  ndctl:cxl on: c.sh (fail)\n  hmm-tests series: hmm.x.huge (fail)\n'* ]]
}

@test "every skip with the suite's own reason, grouped, with its runs" {
	run -0 "$S" "$T/ndctl.json" "$T/hmm.json" --json "$T/out.json"
	[[ "$output" == *$'  ndctl:ndctl: kernel RELEASE: no attribute\n    b.sh (base)\n'* ]]
	[[ "$output" == *$'  hmm-tests: Not enough huge pages\n    hmm.x.huge (base)\n    hmm.y.huge (base)'* ]]
	[ "$(jq '.skipped | length' "$T/out.json")" = 3 ]
}

@test "a summary it cannot read or of the wrong kind: exit 1, naming the file" {
	run -1 "$S" "$T/none.json" "$T/hmm.json"
	[[ "$output" == *"cannot read $T/none.json"* ]]
	run -1 "$S" "$T/hmm.json" "$T/hmm.json"
	[[ "$output" == *"$T/hmm.json has no counts, results"* ]]
	echo '{"base": {"totals": "no totals", "failed": [], "skipped": []}, "series": {}}' >"$T/bad.json"
	run -1 "$S" "$T/ndctl.json" "$T/bad.json"
	[[ "$output" == *"hmm-tests' base run has no totals"* ]]
}
