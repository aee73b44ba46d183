#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of the benchmark (Debian's bats), no VM, a few seconds:
#
#   bats tests/bats/bench.bats
#
# bench.sh's argument checks (each a one-line reason, exit 2, before any
# build or boot) and bench-report.py on the canned guest output in
# tests/bats/fixtures/bench/ (two devices, three rebinds, numbers chosen so
# the medians are easy to check).  Every test runs with MZ_CACHE in its own
# temporary directory.

# shellcheck disable=SC2154 # $stderr is set by run --separate-stderr
bats_require_minimum_version 1.5.0

setup_file() {
	export ROOT H FIX
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	H=$ROOT/harness
	FIX=$BATS_TEST_DIRNAME/fixtures/bench
}

setup() {
	export MZ_CACHE=$BATS_TEST_TMPDIR/cache
	export MZ_LOGS=$MZ_CACHE/logs
	T=$BATS_TEST_TMPDIR
	# Plenty of room unless a test says otherwise: the checks must not
	# depend on this host.
	export BENCH_MEMAVAIL_MIB=65536 BENCH_DISKFREE_MIB=1048576
	# Never a real build: a build directory that does not exist.
	export BENCH_BASE_BUILD=$T/no-base BENCH_PATCHED_BUILD=$T/no-patched
}

# bench_bad ARGS...: bench.sh must fail with exit 2 and one line on
# stderr, before building or booting anything.
bench_bad() {
	run -2 --separate-stderr "$H/bench.sh" "$@"
	[ "$(wc -l <<<"$stderr")" -eq 1 ]
	[[ "$stderr" == "bench.sh: error: "* ]]
	[ ! -e "$MZ_CACHE/build" ] && [ ! -e "$MZ_CACHE/bench" ] && [ ! -e "$MZ_LOGS" ]
}

report() {
	"$H/bench-report.py" --run "base=$FIX/base.out" --run "template=$FIX/template.out" \
		--run "template+streaming=$FIX/streaming.out" "$@"
}

# jq-free JSON look-ups.
pyjson() {
	python3 -c "import json, sys; d = json.load(open(sys.argv[1])); $2" "$1"
}

# --- bench.sh argument validation ------------------------------------------

@test "bench.sh: unknown device" {
	bench_bad --devices fsdax-dev,nvme
	[[ "$stderr" == *"unknown device 'nvme'"* ]]
	bench_bad --devices ''
	bench_bad --devices devprivate,devprivate
	[[ "$stderr" == *"named twice"* ]]
}

@test "bench.sh: rebinds 0, non-numeric, too many" {
	bench_bad --rebinds 0
	[[ "$stderr" == *"--rebinds 0"* ]]
	bench_bad --rebinds ten
	[[ "$stderr" == *"not a number"* ]]
	bench_bad --rebinds -3
	bench_bad --rebinds 100000
	[[ "$stderr" == *"at most"* ]]
}

@test "bench.sh: unparsable sizes" {
	bench_bad --size 4X
	[[ "$stderr" == *"not a size"* ]]
	bench_bad --size 4.5G
	bench_bad --size ''
	bench_bad --size 0G
	bench_bad --size 100M
	[[ "$stderr" == *"at least 256M"* ]]
	bench_bad --size 1000M
	[[ "$stderr" == *"multiple of 128M"* ]]
}

@test "bench.sh: absurd size: more than the guest can address" {
	bench_bad --size 100000G
	[[ "$stderr" == *"guest physical address space"* ]]
	bench_bad --size 2T
}

@test "bench.sh: size larger than the host's disk can back" {
	BENCH_DISKFREE_MIB=1000 bench_bad --size 100G
	[[ "$stderr" == *"map=dev metadata needs up to 2112 MiB"*"only 1000 MiB free"* ]]
	# Without a pmem device nothing is written to disk.
	BENCH_DISKFREE_MIB=1000 run -1 --separate-stderr "$H/bench.sh" --size 100G --devices devprivate --no-probe
	[[ "$stderr" != *"bench.sh: error: --size"* ]]
}

@test "bench.sh: size larger than the host's memory can back" {
	BENCH_MEMAVAIL_MIB=4096 bench_bad --size 100G --no-probe
	[[ "$stderr" == *"guest needs 5888 MiB of RAM"*"MemAvailable is 4096 MiB"* ]]
	BENCH_MEMAVAIL_MIB=2000 bench_bad --no-probe
}

@test "bench.sh: the store probe needs memory unless --no-probe" {
	BENCH_MEMAVAIL_MIB=2700 bench_bad
	[[ "$stderr" == *"store probe"*"--no-probe"* ]]
}

@test "bench.sh: --help prints the options and exits 0" {
	run -0 "$H/bench.sh" --help
	[[ "$output" == *"--devices LIST"*"--rebinds N"*"--size SIZE"*"--no-probe"* ]]
	[[ "$output" != *SPDX* ]]
}

@test "bench.sh: other argument errors" {
	bench_bad --accel xen
	bench_bad --chart out.png
	[[ "$stderr" == *"SVG"* ]]
	bench_bad --results ''
	bench_bad --bogus
	bench_bad --rebinds
	bench_bad extra
}

@test "bench.sh: valid arguments get past validation to the builds" {
	# The fake build directories stop it right after validation (exit 1,
	# not a usage error).
	run -1 --separate-stderr "$H/bench.sh" --devices fsdax-dev --rebinds 3 --size 1G \
		--accel tcg --no-probe --results "$T/r.json"
	[[ "$stderr" == *"base kernel: $T/no-base"* ]]
	[[ "$stderr" == *"bzImage missing"* ]]
	run -1 --separate-stderr "$H/bench.sh" --devices=devprivate --rebinds=1 --size=512M --no-probe
}

# --- bench-report.py on canned output ---------------------------------------

@test "bench-report.py: aggregation, table and JSON" {
	run -0 --separate-stderr report --devices fsdax-dev,devprivate --rebinds 3 --accel tcg \
		--fact cpu_model=TestCPU --fact host_kernel=6.1-test --fact nvdimm_bytes=4294967296 \
		--fact wall_s=42 --json "$T/r.json" --text "$T/r.txt"
	# The TCG caveat, stated plainly.
	[[ "$output" == *"Accelerator: TCG"* ]]
	[[ "$output" == *"not the memory system"*"user-space probe on the real CPU"* ]]
	[[ "$output" == *"4 ms resolution (HZ=250)"* ]]
	# fsdax-dev memmap_init: base rebinds 40, 32, 36 ms; template 12, 10, 11.
	grep -E '^fsdax-dev +memmap_init +base +36\.000 +\[32\.000 - 40\.000\] +80\.000 +1\.00$' <<<"$output"
	grep -E '^ +template +11\.000 +\[10\.000 - 12\.000\] +110\.000 +0\.31$' <<<"$output"
	[ "$(cat "$T/r.txt")" = "$output" ]

	pyjson "$T/r.json" 'assert d["accel"] == "tcg" and d["cpu_model"] == "TestCPU"
assert d["host_kernel"] == "6.1-test" and d["wall_s"] == 42 and d["rebinds"] == 3
assert d["sizes"]["nvdimm_bytes"] == 4 << 30
assert d["kernels"]["patched"]["policies"] == {"template": "off", "template+streaming": "on"}
r = d["results"]
assert len(r) == 2 * 3 * 2
assert all(sorted(x) == ["backend", "device", "first", "max", "median", "metric", "min"] for x in r)
assert {x["backend"] for x in r} == {"base", "template", "template+streaming"}
assert {x["metric"] for x in r} == {"memmap_init_ns", "enable_ns"}
x = [x for x in r if x["device"] == "devprivate" and x["backend"] == "template+streaming" and x["metric"] == "enable_ns"][0]
assert (x["first"], x["median"], x["min"], x["max"]) == (60000000, 6200000, 5500000, 6500000), x'
}

@test "bench-report.py: an even number of rebinds takes the mean of the middle two" {
	for f in base template streaming; do grep -v ' bind=3 ' "$FIX/$f.out" >"$T/$f.out"; done
	run -0 "$H/bench-report.py" --run "base=$T/base.out" --run "template=$T/template.out" \
		--run "template+streaming=$T/streaming.out" --devices fsdax-dev,devprivate --rebinds 2 \
		--json "$T/r.json"
	pyjson "$T/r.json" 'r = {(x["device"], x["backend"], x["metric"]): x for x in d["results"]}
assert r["fsdax-dev", "base", "memmap_init_ns"]["median"] == 36000000
assert r["devprivate", "base", "enable_ns"]["median"] == 18500000'
}

@test "bench-report.py: a run with the wrong backend fails loudly" {
	sed 's/backend=template+streaming/backend=template/' "$FIX/streaming.out" >"$T/s.out"
	run -1 --separate-stderr "$H/bench-report.py" --run "base=$FIX/base.out" \
		--run "template=$FIX/template.out" --run "template+streaming=$T/s.out" \
		--devices fsdax-dev,devprivate --rebinds 3 --json "$T/r.json"
	[[ "$stderr" == *"WRONG BACKEND"*"must measure 'template+streaming'"* ]]
	[ ! -e "$T/r.json" ]
}

@test "bench-report.py: missing binds, guest errors and unfinished runs are errors" {
	grep -v 'device=devprivate bind=2 ' "$FIX/base.out" >"$T/b.out"
	run -1 --separate-stderr "$H/bench-report.py" --run "base=$T/b.out" \
		--run "template=$FIX/template.out" --run "template+streaming=$FIX/streaming.out" \
		--devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"run base: devprivate lacks bind(s) 2, expected binds 0..3"* ]]
	# A device asked for but never run.
	run -1 --separate-stderr report --devices fsdax-dev,devprivate,devdax-2m --rebinds 3
	[[ "$stderr" == *"devdax-2m has no lines"* ]]
	{ grep -v BENCH-DONE "$FIX/base.out"; echo "BENCH-ERROR device=fsdax-dev bind=2: boom"; } >"$T/e.out"
	run -1 --separate-stderr "$H/bench-report.py" --run "base=$T/e.out" \
		--run "template=$FIX/template.out" --run "template+streaming=$FIX/streaming.out" \
		--devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"the guest failed: BENCH-ERROR device=fsdax-dev bind=2: boom"* ]]
	grep -v BENCH-DONE "$FIX/base.out" >"$T/u.out"
	run -1 --separate-stderr "$H/bench-report.py" --run "base=$T/u.out" \
		--run "template=$FIX/template.out" --run "template+streaming=$FIX/streaming.out" \
		--devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"no BENCH-DONE"* ]]
}

@test "bench-report.py: usage errors exit 2" {
	run -2 "$H/bench-report.py" --devices fsdax-dev --rebinds 3 --run "base=$FIX/base.out"
	run -2 report --devices nvme --rebinds 3
	run -2 report --devices fsdax-dev --rebinds 0
	run -2 report --devices fsdax-dev --rebinds 3 --run "fast=$FIX/base.out"
	run -2 report
}

@test "bench-report.py: SVG chart, probe summary, KVM wording" {
	run -0 report --devices fsdax-dev,devprivate --rebinds 3 --accel kvm \
		--probe "$FIX/probe.json" --json "$T/r.json" --svg "$T/c.svg"
	[[ "$output" == *"Accelerator: KVM"* ]]
	[[ "$output" != *"TCG"* ]]
	[[ "$output" == *"copy_nt_cold"*"25.72 GB/s"* ]]
	[[ "$output" == *"cold destination 2.90, warm destination 3.00"* ]]
	pyjson "$T/r.json" 'assert d["probe"]["ratios"]["nt_over_cached_cold"] == 2.902'
	# Well-formed, one bar per device and backend, with whiskers.
	python3 - "$T/c.svg" <<'EOF'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
bars = [r for r in root.iter(ns + "rect") if r.find(ns + "title") is not None]
assert len(bars) == 2 * 3, len(bars)
text = " ".join(t.text or "" for t in root.iter(ns + "text"))
assert "fsdax-dev" in text and "devprivate" in text and "template+streaming" in text
assert "0.31x" in text, text
EOF
	run -0 report --devices fsdax-dev,devprivate --rebinds 3 --accel tcg --no-probe --json "$T/n.json"
	[[ "$output" == *"not run (--no-probe)"* ]]
	pyjson "$T/n.json" 'assert d["probe"] is None'
}

@test "bench-report.py: a busy host is reported in the table and the JSON" {
	run -0 report --devices fsdax-dev,devprivate --rebinds 3 --accel tcg \
		--fact "busy=the host was busy: up to 90% of its 2 CPUs" --fact other_qemu_max=1 \
		--fact nproc=2 --json "$T/r.json"
	[[ "$output" == *"WARNING: the host was busy: up to 90% of its 2 CPUs: timings are noisy."* ]]
	pyjson "$T/r.json" 'assert d["host"] == {"nproc": 2, "other_qemu_max": 1, "busy": "the host was busy: up to 90% of its 2 CPUs"}, d["host"]'
	run -0 report --devices fsdax-dev,devprivate --rebinds 3 --accel tcg
	[[ "$output" != *"WARNING"* ]]
}
