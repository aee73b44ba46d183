#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of the benchmark (Debian's bats):
#
#   bats tests/bats/bench.bats
#
# bench.sh's argument checks (each a one-line reason, exit 2, before any
# build or boot), its boots with a stand-in for vm.sh that prints canned
# guest output, guest/tests/bench's own argument checks, and
# bench-report.py on the canned guest output in tests/bats/fixtures/bench/
# (two devices, three rebinds, numbers chosen so the medians are easy to
# check; *-threads.out are the threaded boots, on 2 threads), a few
# seconds.  The real guest/tests/bench in a guest is
# tests/bats/system/bench.bats.  Every test runs with MZ_CACHE in its own
# temporary directory.

# shellcheck disable=SC2154 # $stderr is set by run --separate-stderr
bats_require_minimum_version 1.5.0
load common

setup_file() {
	export FIX=$BATS_TEST_DIRNAME/fixtures/bench
}

setup() {
	mz_test_dirs
	# Plenty of room unless a test says otherwise (MEM=, DISK=): the
	# checks must not depend on this host.
	MEM=65536 DISK=1048576
	# Never a real build: build directories that do not exist.
	BASEB=$T/no-base PATB=$T/no-patched
	BENCH=$H/bench/bench.sh
}

# bench ARGS...: bench.sh (BENCH) with the host figures MEM and DISK and
# the kernels BASEB and PATB.
bench() {
	"$BENCH" --assume-mem-avail "$MEM" --assume-disk-free "$DISK" \
		--base-build "$BASEB" --patched-build "$PATB" "$@"
}

# bench_bad ARGS...: bench.sh must fail with exit 2 and one line on
# stderr, before building or booting anything.
bench_bad() {
	run -2 --separate-stderr bench "$@"
	[ "$(wc -l <<<"$stderr")" -eq 1 ]
	[[ "$stderr" == "bench.sh: error: "* ]]
	[ ! -e "$MZ_CACHE/build" ] && [ ! -e "$MZ_CACHE/bench" ] && [ ! -e "$MZ_LOGS" ]
}

# rep ARGS...: bench-report.py with a plan, as bench.sh writes it, made
# of these arguments: --run RUN=OUT[@BYTES] (one boot of RUN, its output
# OUT, BYTES its size, 4 GiB without), --devices LIST and --rebinds N
# (default fsdax-dev,devprivate and 3), --boot-summary RUN=OUT[@BYTES].
# A run's expect= and threads= are what bench.sh gives it.
rep() {
	local args=() runs=() devs=fsdax-dev,devprivate reb=3 r f e t summary=
	while [ $# -gt 0 ]; do
		case "$1" in
		--run) runs+=("$2"); shift 2 ;;
		--devices) devs=$2; shift 2 ;;
		--rebinds) reb=$2; shift 2 ;;
		--boot-summary) runs+=("$2"); summary=${2#*=}; summary=${summary%@*}; shift 2 ;;
		*) args+=("$1"); shift ;;
		esac
	done
	: >"$T/plan"
	for r in ${runs[@]+"${runs[@]}"}; do
		f=${r#*=}
		case "${r%%=*}" in
		base) e=base t=1 ;;
		base-cpus) e=base t=auto ;;
		first) e=template t=1 ;;
		template-threads) e=template t=auto ;;
		template+streaming-threads) e=template+streaming t=auto ;;
		template-busy) e=template t=busy1 ;;
		template-threads-busy) e=template t=busy ;;
		*) e=${r%%=*} t=1 ;;
		esac
		printf 'run=%s out=%q devices=%s rebinds=%s size_bytes=%s expect=%s threads=%s\n' \
			"${r%%=*}" "${f%@*}" "${devs//,/+}" "$reb" "$([ "$f" = "${f%@*}" ] && echo 4294967296 || echo "${f##*@}")" \
			"$e" "$t" >>"$T/plan"
	done
	"$H/bench/bench-report.py" --plan "$T/plan" ${summary:+--boot-summary "$summary"} ${args[@]+"${args[@]}"}
}

report() {
	rep --run "base=$FIX/base.out" --run "template=$FIX/template.out" \
		--run "template+streaming=$FIX/streaming.out" "$@"
}

# report_threads ARGS...: report with the two threaded runs too.
report_threads() {
	report --run "template-threads=$FIX/template-threads.out" \
		--run "template+streaming-threads=$FIX/streaming-threads.out" "$@"
}

# instant_sleep: a sleep first on PATH that returns at once.  bench.sh
# samples the host's load over a 1 s sleep before it builds and before
# each boot (cpu_busy); no test here reads those samples, and they were
# most of a run's time with the fake vm.sh.  The only sleep bench.sh and
# what these tests run of it call.
instant_sleep() {
	mkdir -p "$T/bin"
	printf '#!/bin/sh\nexit 0\n' >"$T/bin/sleep"
	chmod +x "$T/bin/sleep"
	case ":$PATH:" in *":$T/bin:"*) ;; *) export PATH=$T/bin:$PATH ;; esac
}

# jq-free JSON look-ups.
pyjson() {
	python3 -c "import json, sys; d = json.load(open(sys.argv[1])); $2" "$1"
}

# --- bench.sh argument validation ------------------------------------------

@test "the bench's devices: harness/bench/devices.txt's; bench.sh takes each, the guest binds each" {
	local d names defaults hot
	[ ! -d /mz/tests ] || skip "/mz/tests exists: this host looks like a bench guest"
	names=$(awk '!/^#/ && NF { print $1 }' "$H/bench/devices.txt")
	defaults=$(awk '!/^#/ && $2 == "yes" { n++ } END { print n }' "$H/bench/devices.txt")
	# The memory hotplug devices, as the report has them (INIT).
	hot=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from benchreport import lines; print(" ".join(sorted(lines.HOTPLUG)))' "$H/bench")
	[ -n "$hot" ]
	for d in $names; do
		run -0 bench --check-args --devices "$d" --size 1G --no-probe
		# bench.sh runs them as such, and them alone.
		case " $hot " in
		*" $d "*) [[ "$output" == *"(streaming and threaded boots skipped: memory hotplug: "* ]] ;;
		*) [[ "$output" != *"memory hotplug"* ]] ;;
		esac
		# The guest takes it: it stops only at the host check after its
		# own, where it would start binding.
		run -1 "$ROOT/guest/tests/bench" "devices=$d" rebinds=1 size_bytes=1073741824 expect=base threads=1
		[[ "$output" == "BENCH-ERROR no /mz/tests: this test runs in a guest"* ]] || { echo "$d: $output"; false; }
	done
	run -0 --separate-stderr bench --check-args --no-probe
	[[ "$output" == *": $defaults device(s),"* ]]
}

@test "bench.sh: unknown device" {
	bench_bad --devices fsdax-dev,nvme
	[[ "$stderr" == *"unknown device 'nvme'"* ]]
	bench_bad --devices ''
	bench_bad --devices devprivate,devprivate
	[[ "$stderr" == *"named twice"* ]]
}

@test "bench.sh: rebinds 0, non-numeric, too many" {
	bench_bad --rebinds 0
	[[ "$stderr" == *"--rebinds '0': at least 1"* ]]
	bench_bad --rebinds ten
	[[ "$stderr" == *"--rebinds 'ten': want N ("* ]]
	bench_bad --rebinds -3
	bench_bad --rebinds 100000
	[[ "$stderr" == *"at most"* ]]
}

@test "bench.sh: unparsable sizes" {
	bench_bad --size 4X
	[[ "$stderr" == *"--size '4X': want SIZE ("* ]]
	bench_bad --size 4.5G
	bench_bad --size ''
	bench_bad --size 0G
	bench_bad --size 100M
	[[ "$stderr" == *"at least 256M"* ]]
	bench_bad --size 1000M
	[[ "$stderr" == *"multiple of 128M"* ]]
}

@test "bench.sh: --sizes lists are checked element by element" {
	bench_bad --sizes 1G,4X
	[[ "$stderr" == *"--sizes '1G,4X': want LIST ("* ]]
	bench_bad --sizes 1G,,4G
	bench_bad --sizes 1G,1024M
	[[ "$stderr" == *"named twice"* ]]
	bench_bad --size 1G,4G
	[[ "$stderr" == *"(--sizes: several)"* ]]
	# The largest size sizes the host checks.
	DISK=1000 bench_bad --sizes 1G,100G --nvdimm-memory file
	[[ "$stderr" == *"--size 100G: the map=dev metadata needs up to"* ]]
}

@test "bench.sh: --check-args validates and exits before anything is built" {
	run -0 --separate-stderr bench --check-args --sizes 1G,4G,16G --rebinds 3 --no-probe
	[ "$output" = "bench.sh: arguments OK: 4 device(s), 3 rebinds, size(s) 1G,4G,16G, 2 vCPU(s), 6 boots per size" ]
	[ ! -e "$MZ_CACHE" ]
	bench_bad --check-args --rebinds 0
}

@test "bench.sh: --smp takes 1 to 64 vCPUs" {
	bench_bad --smp 0
	[[ "$stderr" == *"--smp '0': the guest takes 1 to 64 vCPUs"* ]]
	bench_bad --smp 65
	[[ "$stderr" == *"--smp '65': the guest takes 1 to 64 vCPUs"* ]]
	bench_bad --smp two
	[[ "$stderr" == *"--smp 'two': want N (guest vCPUs, 1..64)"* ]]
	bench_bad --smp -2
	bench_bad --smp ''
	bench_bad --smp
	[[ "$stderr" == *"--smp needs a value"* ]]
	run -0 bench --check-args --smp=64 --no-probe
	[[ "$output" == *", 64 vCPU(s), 6 boots per size" ]]
}

@test "bench.sh: --no-threads and --smp 1 skip the threaded boots, and say so" {
	run -0 bench --check-args --no-threads --no-probe
	[[ "$output" == *", 2 vCPU(s), 3 boots per size (threaded boots skipped: --no-threads)" ]]
	run -0 bench --check-args --smp 1 --no-probe
	[[ "$output" == *", 1 vCPU(s), 3 boots per size (threaded boots skipped: --smp 1: one vCPU"* ]]
	run -0 bench --check-args --smp 3 --no-probe
	[[ "$output" == *", 3 vCPU(s), 6 boots per size" ]]
}

@test "bench.sh: --size 128M only for device-private memory alone" {
	bench_bad --size 128M
	[[ "$stderr" == *"--size 128M: at least 256M"*"128M only with --devices devprivate"* ]]
	bench_bad --devices fsdax-dev,devprivate --size 128M
	[[ "$stderr" == *"128M only with --devices devprivate"* ]]
	bench_bad --devices fsdax-mem --sizes 128M,1G
	[[ "$stderr" == *"128M only with --devices devprivate"* ]]
	bench_bad --devices devprivate --size 64M
	[[ "$stderr" == *"--size 64M: at least 128M (one memory section)"* ]]
	run -0 bench --check-args --devices devprivate --size 128M --no-probe
	[[ "$output" == *"1 device(s), 10 rebinds, size(s) 128M,"* ]]
	run -0 bench --check-args --devices devprivate --sizes 128M,8G --no-probe
	[[ "$output" == *"size(s) 128M,8G,"* ]]
}

@test "make bench: bad BENCH_ARGS stop before the packages are installed" {
	# A copy of the repository whose deps.sh records that it ran.
	mkdir -p "$T/repo"
	cp -r "$ROOT/Makefile" "$ROOT/harness" "$T/repo/"
	printf '#!/bin/sh\ntouch "%s/deps-ran"\n' "$T" >"$T/repo/harness/deps.sh"
	run -2 --separate-stderr make -s -C "$T/repo" bench BENCH_ARGS='--rebinds 0'
	[[ "$stderr" == *"bench.sh: error: --rebinds '0'"* ]]
	[ ! -e "$T/deps-ran" ]
}

@test "bench.sh: absurd size: more than the guest can address" {
	bench_bad --size 100000G
	[[ "$stderr" == *"guest physical address space"* ]]
	bench_bad --size 2T
}

@test "bench.sh: size larger than the host's disk can back" {
	instant_sleep
	DISK=1000 bench_bad --size 100G --nvdimm-memory file
	[[ "$stderr" == *"map=dev metadata needs up to 2112 MiB"*"only 1000 MiB free"* ]]
	# Without a pmem device, or with its contents in QEMU's memory (the
	# default), nothing is written to disk.
	DISK=1000 run -1 --separate-stderr bench --size 100G --devices devprivate --no-probe --nvdimm-memory file
	[[ "$stderr" != *"bench.sh: error: --size"* ]]
	DISK=1000 run -1 --separate-stderr bench --size 100G --no-probe
	[[ "$stderr" != *"bench.sh: error: --size"* ]]
	# vm.sh backs the CXL pmem device with a file, always.
	DISK=1000 bench_bad --size 100G --devices cxl-fsdax-dev --no-probe
	[[ "$stderr" == *"map=dev metadata needs up to 2112 MiB"*"only 1000 MiB free"* ]]
	DISK=3000 bench_bad --size 100G --devices fsdax-dev,cxl-fsdax-dev --nvdimm-memory file --no-probe
	[[ "$stderr" == *"map=dev metadata needs up to 3712 MiB"* ]]
	DISK=1000 run -1 --separate-stderr bench --size 100G --devices cxl-devdax --no-probe
	[[ "$stderr" != *"bench.sh: error: --size"* ]]
}

@test "bench.sh: the CXL devices: by name only, sizes in CXL's 256 MiB unit, QEMU 10 after the arguments" {
	run -0 bench --check-args --devices cxl-fsdax-dev,cxl-devdax --size 1G --no-probe
	[[ "$output" == *"arguments OK: 2 device(s)"* ]]
	bench_bad --devices cxl-devdax --size 384M --no-probe
	[[ "$stderr" == *"--size 384M: a multiple of 256M with a CXL device"* ]]
	bench_bad --devices devprivate,cxl-fsdax-dev --sizes 256M,640M --no-probe
	[[ "$stderr" == *"--size 640M: a multiple of 256M"* ]]
	# The default list is the NVDIMM and device-private devices.
	run -0 bench --check-args --no-probe
	[[ "$output" == *"arguments OK: 4 device(s)"* ]]
	# Without QEMU 10 a run with a CXL device stops, saying how to get it,
	# before anything is built.
	MZ_QEMU_CXL='' MZ_QEMU=/bin/false MZ_QEMU_DIR=$T/noqemu \
		run -1 --separate-stderr bench --devices cxl-devdax --size 1G --no-probe
	[[ "$stderr" == *"--devices cxl-devdax: CXL memory needs QEMU 10 or newer"*"make qemu"* ]]
	[[ "$stderr" != *"build-kernel.sh"* ]]
}

@test "bench.sh: size larger than the host's memory can back" {
	MEM=4096 bench_bad --size 100G --no-probe
	[[ "$stderr" == *"guest needs 5888 MiB of RAM"*"NVDIMM and CXL pmem metadata (in QEMU's memory)"*"MemAvailable is 4096 MiB"* ]]
	MEM=2000 bench_bad --no-probe
}

@test "bench.sh: the store probe needs memory unless --no-probe" {
	MEM=2700 bench_bad
	[[ "$stderr" == *"store probe"*"--no-probe"* ]]
}

@test "bench.sh: --help prints the options and exits 0" {
	run -0 bench --help
	[[ "$output" == *"--devices LIST"*"--rebinds N"*"--size SIZE"*"--sizes LIST"*"--smp N"*"--no-threads"*"--no-probe"*"--check-args"* ]]
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
	bench_bad --timeout 0
	[[ "$stderr" == *"--timeout '0': want SECONDS ("* ]]
	bench_bad --timeout=soon
	bench_bad --assume-mem-avail lots
	[[ "$stderr" == *"--assume-mem-avail 'lots': want MIB ("* ]]
	bench_bad --assume-disk-free -1
	bench_bad --nvdimm-memory disk
	[[ "$stderr" == *"--nvdimm-memory 'disk': want WHERE (ram or file"* ]]
	bench_bad --nvdimm-memory
}

@test "bench.sh: valid arguments get past validation to the builds" {
	# The fake build directories stop it right after validation (exit 1,
	# not a usage error).
	instant_sleep
	run -1 --separate-stderr bench --devices fsdax-dev --rebinds 3 --size 1G \
		--accel tcg --no-probe --results "$T/r.json"
	[[ "$stderr" == *"base kernel: $T/no-base"* ]]
	[[ "$stderr" == *"bzImage missing"* ]]
	run -1 --separate-stderr bench --devices=devprivate --rebinds=1 --size=512M --no-probe
}

# fake_bench: a copy of the harness whose vm.sh prints the canned guest
# output for the EXPECT and THREADS it is given (and logs its arguments
# to $T/vm.log), with fake kernel builds: bench.sh runs its boots and
# the report, and nothing is built or booted (nor waited for: instant_sleep).
fake_bench() {
	mkdir -p "$T/repo" "$T/bin"
	cp -r "$ROOT/harness" "$ROOT/guest" "$ROOT/patches" "$T/repo/"
	# Answers --version (bench.sh records it) and boots nothing.
	# shellcheck disable=SC2016 # expanded by the script it writes
	printf '#!/bin/sh\n[ "$1" = --version ] || exit 1\necho "QEMU emulator version 7.2.0 (fake)"\n' \
		>"$T/bin/qemu-system-x86_64"
	: >"$T/fake.ko"
	printf '#!/bin/sh\necho "%s/fake.ko"\n' "$T" >"$T/repo/harness/build/build-bench-module.sh"
	# initramfs.sh [--add X]... BUILD OUT
	# shellcheck disable=SC2016 # expanded by the script it writes
	printf '#!/bin/bash\nmkdir -p "$(dirname "${!#}")" && : >"${!#}" && echo "${!#}"\n' \
		>"$T/repo/harness/vm/initramfs.sh"
	cat >"$T/repo/harness/vm/vm.sh" <<-VMEOF
	#!/bin/bash
	echo "\$*" >>"$T/vm.log"
	k=" \$* "
	while [ \$# -gt 0 ] && [ "\$1" != bench ]; do shift; done
	shift
	echo "BENCH-PLAN \$*"
	case "\${4#expect=}/\${5#threads=}" in
	base/1) f=base ;;
	base/auto) f=base-cpus ;;
	template/1) f=template
		# A memory hotplug run's control, on the first series' kernel.
		case "\$k" in *"/first-x "*) [ ! -f "$FIX/first.out" ] || f=first ;; esac ;;
	template+streaming/1) f=streaming ;;
	template/auto) f=template-threads ;;
	template+streaming/auto) f=streaming-threads ;;
	template/busy1) f=template-busy ;;
	template/busy) f=template-threads-busy ;;
	*) echo "fake vm.sh: unexpected words '\$*'" >&2; exit 1 ;;
	esac
	grep -v '^BENCH-PLAN ' "$FIX/\$f.out"
	VMEOF
	chmod +x "$T/bin/qemu-system-x86_64" "$T"/repo/harness/*/*.sh
	instant_sleep
	for k in base first patched; do
		mkdir -p "$T/build/$k-x/arch/x86/boot" "$T/build/$k-x/include/config" "$T/build/$k-x/modroot"
		: >"$T/build/$k-x/arch/x86/boot/bzImage"
		echo "7.3.4-mz-$k" >"$T/build/$k-x/include/config/kernel.release"
		printf 'CONFIG_FUNCTION_GRAPH_TRACER=y\nCONFIG_DYNAMIC_FTRACE=y\n' >"$T/build/$k-x/.config"
	done
	echo CONFIG_MEMMAP_STREAMING=y >>"$T/build/first-x/.config"
	echo CONFIG_MEMMAP_STREAMING=y >>"$T/build/patched-x/.config"
	BASEB=$T/build/base-x FIRSTB=$T/build/first-x PATB=$T/build/patched-x BENCH=$T/repo/harness/bench/bench.sh
	export MZ_TREE=$T/no-tree PATH=$T/bin:$PATH
}

@test "bench.sh: the CXL devices boot QEMU 10 with CXL memory of --size, and ndctl 81 (fake vm.sh)" {
	fake_bench
	# vm.sh logs the QEMU it was given; the canned output names the CXL
	# devices; build-ndctl.sh and initramfs.sh log their calls.
	sed -i "s|^echo \"\\\$\*\" >>\"$T/vm.log\"|echo \"MZ_QEMU=\\\$MZ_QEMU \\\$*\" >>\"$T/vm.log\"|" "$T/repo/harness/vm/vm.sh"
	sed -i "s|^grep -v '^BENCH-PLAN ' \"\\(.*\\)\"\$|& \\| sed -e s/device=fsdax-dev/device=cxl-fsdax-dev/ -e s/device=devprivate/device=cxl-devdax/|" \
		"$T/repo/harness/vm/vm.sh"
	printf '#!/bin/sh\necho "%s/ndctl-root"\n' "$T" >"$T/repo/harness/build/build-ndctl.sh"
	# shellcheck disable=SC2016 # expanded by the script it writes
	printf '#!/bin/bash\necho "$*" >>"%s/initramfs.log"\nmkdir -p "$(dirname "${!#}")" && : >"${!#}" && echo "${!#}"\n' "$T" \
		>"$T/repo/harness/vm/initramfs.sh"
	cp "$T/bin/qemu-system-x86_64" "$T/qemu10"
	sed -i 's/7\.2\.0/10.0.2/' "$T/qemu10"
	MZ_QEMU_CXL=$T/qemu10 run -0 --separate-stderr bench --devices cxl-fsdax-dev,cxl-devdax \
		--rebinds 3 --size 4G --accel tcg --no-probe --no-threads --results "$T/r.json"
	[ "$(wc -l <"$T/vm.log")" -eq 3 ]
	[ "$(grep -c "^MZ_QEMU=$T/qemu10 .* --cxl-pmem 4096M --cxl-ram 4096M .*bench devices=cxl-fsdax-dev+cxl-devdax rebinds=3 size_bytes=4294967296 " "$T/vm.log")" -eq 3 ]
	grep -q -- '--nvdimms 0 ' "$T/vm.log"
	[ "$(grep -c -- "^--ndctl $T/ndctl-root .*-ndctl.cpio.gz$" "$T/initramfs.log")" -eq 2 ]
	[[ "$stderr" == *"accel tcg (QEMU 10.0.2 (fake))"* ]]
	[[ "$output" == *"cxl-fsdax-dev, 4 GiB"* ]] && [[ "$output" == *"cxl-devdax, 4 GiB"* ]]
	# Headings are wrapped.
	[[ "$(tr -s '\n ' ' ' <<<"$output")" == *"cxl-devdax: daxctl enable-device"* ]]
	pyjson "$T/r.json" 'assert {r["device"] for r in d["results"]} == {"cxl-fsdax-dev", "cxl-devdax"}
assert {r["instrument"] for r in d["results"] if r["device"] == "cxl-devdax" and r["metric"] == "enable_ns"} == {"EPOCHREALTIME around daxctl"}
assert d["qemu"] == "QEMU 10.0.2 (fake)"'
	ls "$MZ_LOGS"/bench-base-4096M-cxl.out
}

@test "bench.sh: six boots per size, base-cpus and the threaded two with THREADS=auto (fake vm.sh)" {
	fake_bench
	run -0 --separate-stderr bench --devices fsdax-dev,devprivate \
		--rebinds 3 --size 4G --accel tcg --no-probe --results "$T/r.json" --smp 4
	[ "$(wc -l <"$T/vm.log")" -eq 6 ]
	table=$output
	# The boots, in order: vCPUs, EXPECT and THREADS; then the policies.
	sed -n 's/.*--smp \([0-9]*\) .*bench devices=fsdax-dev+devprivate rebinds=3 size_bytes=4294967296 expect=\([^ ]*\) threads=/\1 \2 /p' "$T/vm.log" >"$T/calls"
	[ "$(cat "$T/calls")" = "4 base 1
4 template 1
4 template+streaming 1
4 base auto
4 template auto
4 template+streaming auto" ]
	[ "$(grep -n 'memmap_streaming=off' "$T/vm.log" | cut -d: -f1 | tr '\n' ' ')" = "2 5 " ]
	[ "$(grep -n 'memmap_streaming=on' "$T/vm.log" | cut -d: -f1 | tr '\n' ' ')" = "3 6 " ]
	# Both base boots run the base kernel, with no policy.
	[ "$(grep -c -- "--nvdimm-memory ram .*$T/build/base-x " "$T/vm.log")" -eq 2 ]
	run -1 grep -- 'memmap_streaming=.*bench devices=fsdax-dev+devprivate rebinds=3 size_bytes=4294967296 expect=base' "$T/vm.log"
	[[ "$stderr" == *"boot 4/6: base-cpus done in "*"(8 binds, 1 thread(s))"* ]]
	[[ "$stderr" == *"boot 5/6: template-threads done in "*"(8 binds, 2 thread(s))"* ]]
	[[ "$stderr" == *"boot 6/6: template+streaming-threads done in "* ]]
	[[ "$stderr" == *"NVDIMM contents in QEMU's memory"* ]]
	[[ "$table" == *$'\n'"  base, all CPUs "*$'\n'"  template, 2 threads"$'\n'*$'\n'"  template+streaming, 2 threads"$'\n'* ]]
	# The header is wrapped where the host's CPU model name ends: match it
	# with the lines joined.
	flat=$(tr '\n' ' ' <<<"$table" | tr -s ' ')
	[[ "$flat" == *"NVDIMM contents in QEMU's anonymous memory"* ]]
	# The threaded whole bind against the base with every vCPU online:
	# fsdax-dev enable medians 140 ms (base-cpus), 68 ms (template on 2).
	grep -E '^Whole bind on N threads, median ms and x base with every vCPU online' <<<"$table"
	grep -E '^  fsdax-dev +4 GiB +140\.00 +68\.00 0\.49x ' <<<"$table"
	pyjson "$T/r.json" 'assert {(x["backend"], x["threads"]) for x in d["results"]} == {("base", 1), ("base-cpus", 1), ("template", 1), ("template+streaming", 1), ("template-threads", 2), ("template+streaming-threads", 2), ("floor", 1)}
assert d["guest_vcpus"] == 4 and "threads_skipped" not in d and d["nvdimm_memory"] == "ram"
assert d["qemu"] == "QEMU 7.2.0 (fake)", d.get("qemu")
assert d["kernels"]["base"]["cpus_online"] == {"base": None, "base-cpus": "0-1"}, d["kernels"]["base"]'
	[ -f "$T/r.svg" ] && [ -f "$T/r.txt" ]
	# One base bar in the chart: base-cpus initializes the memmap as base.
	run -1 grep -F 'base, all CPUs' "$T/r.svg"
}

@test "bench.sh: --busy adds the busy host's two boots per size on both series' kernel (fake vm.sh)" {
	fake_bench
	run -0 --separate-stderr bench --first-build "$FIRSTB" --busy --devices fsdax-dev,devprivate \
		--rebinds 3 --sizes 4G --accel tcg --no-probe --results "$T/r.json"
	sed -n 's|.* '"$T"'/build/\([a-z]*\)-x .*bench devices=fsdax-dev+devprivate rebinds=3 size_bytes=4294967296 expect=\([a-z+]*\) threads=\([a-z0-9]*\).*|\1 \2 \3|p' \
		"$T/vm.log" >"$T/calls"
	[ "$(sed -n '7,$p' "$T/calls")" = "patched template busy1
patched template busy" ]
	[ "$(wc -l <"$T/calls")" -eq 8 ]
	[ "$(grep -n 'memmap_streaming=off' "$T/vm.log" | cut -d: -f1 | tr '\n' ' ')" = "2 5 7 8 " ]
	[[ "$stderr" == *"8 boots per size"* ]]
	[[ "$stderr" == *"boot 7/8: template-busy done in "*"(8 binds, 1 thread(s))"* ]]
	[[ "$stderr" == *"boot 8/8: template-threads-busy done in "*"(8 binds, 2 thread(s))"* ]]
	grep -qx '== Part 3: a busy host ==' <<<"$output"
	ls "$MZ_LOGS/bench-template-busy-4096M.out" "$MZ_LOGS/bench-template-threads-busy-4096M.out"
	pyjson "$T/r.json" 'assert set(d["kernels"]["patched"]["policies"]) == {"template-threads", "template+streaming-threads", "template-busy", "template-threads-busy"}, d["kernels"]'
	# Without the threaded boots there is nothing to compare with.
	rm -r "$MZ_CACHE"
	bench_bad --busy --no-threads --devices fsdax-dev
	[ "$stderr" = "bench.sh: error: --busy: the busy host's boots need the threaded ones, which are skipped (--no-threads) (see --help)" ]
	bench_bad --busy --smp 1 --devices fsdax-dev
	[ "$stderr" = "bench.sh: error: --busy: the busy host's boots need the threaded ones, which are skipped (--smp 1: one vCPU runs the threaded init on one thread) (see --help)" ]
	run -0 bench --busy --check-args
	[[ "$output" == *"8 boots per size"* ]]
}

@test "bench.sh: the first series' kernel runs the single-threaded boots, both series' the threaded ones (fake vm.sh)" {
	fake_bench
	run -0 --separate-stderr bench --first-build "$FIRSTB" --devices fsdax-dev,devprivate \
		--rebinds 3 --size 4G --accel tcg --no-probe --results "$T/r.json"
	# Which kernel each boot ran: base twice, first for the two
	# single-threaded patched boots, patched for the threaded two.
	sed -n 's|.* '"$T"'/build/\([a-z]*\)-x .*bench devices=fsdax-dev+devprivate rebinds=3 size_bytes=4294967296 expect=\([a-z+]*\) threads=\([a-z0-9]*\).*|\1 \2 \3|p' \
		"$T/vm.log" >"$T/calls"
	[ "$(cat "$T/calls")" = "base base 1
first template 1
first template+streaming 1
base base auto
patched template auto
patched template+streaming auto" ]
	[[ "$stderr" == *"first kernel: $FIRSTB (--first-build)"* ]]
	# A part per series, each naming its kernels.
	grep -A1 -x '== Part 1: the first series (patches/), one thread ==' <<<"$output" |
		grep -x 'Kernels: base 7.3.4-mz-base, the first series 7.3.4-mz-first.'
	grep -A2 -x '== Part 2: the follow-up series (patches/threads/), N threads ==' <<<"$output" |
		tr '\n' ' ' | tr -s ' ' | grep -F 'Kernels: one thread on 7.3.4-mz-first, N threads on 7.3.4-mz-patched; base 7.3.4-mz-base with every vCPU online as well.'

	[[ "$output" == "memmap_init_zone_device(): base 7.3.4-mz-base vs the first series"*"7.3.4-mz-first and both series 7.3.4-mz-patched;"* ]]
	# Part 1 has no threaded row, Part 2 no floor row and the threads'
	# verdicts and speedup.
	part1=$(sed -n '/^== Part 1/,/^== Part 2/p' <<<"$output")
	part2=$(sed -n '/^== Part 2/,$p' <<<"$output")
	[[ "$part1" != *"2 threads"* ]] && [[ "$part1" != *"base, all CPUs"* ]]
	[[ "$part2" == *"  base, all CPUs "* ]]
	[[ "$part1" == *"  floor (movq8) "* ]] && [[ "$part2" != *"floor (movq8)"* ]]
	[[ "$part2" == *"  template, 2 threads vs template: "* ]] && [[ "$part2" == *"speedup of 2 threads over 1"* ]]
	[[ "$part1" == *"  template+streaming vs template: "* ]] && [[ "$part2" != *"template+streaming vs template: "* ]]
	pyjson "$T/r.json" 'k = d["kernels"]
assert k["first"]["release"] == "7.3.4-mz-first" and k["patched"]["release"] == "7.3.4-mz-patched", k
assert set(k["first"]["policies"]) == {"template", "template+streaming"}, k
assert set(k["patched"]["policies"]) == {"template-threads", "template+streaming-threads"}, k
assert k["first"]["build"] == "first-x"'
	# With --no-threads the patched kernel is not needed: every patched
	# boot runs the first series.
	rm "$T/vm.log"
	run -0 --separate-stderr "$BENCH" --assume-mem-avail "$MEM" --assume-disk-free "$DISK" \
		--base-build "$BASEB" --first-build "$FIRSTB" --devices fsdax-dev,devprivate \
		--rebinds 3 --size 4G --accel tcg --no-probe --results "$T/n.json" --no-threads
	[ "$(grep -c -- "$T/build/first-x " "$T/vm.log")" -eq 2 ]
	[[ "$stderr" != *"patched kernel"* ]]
	[[ "$output" != *"== Part"* ]]
	# Two patched kernels with one release would not tell their runs apart.
	echo 7.3.4-mz-patched >"$FIRSTB/include/config/kernel.release"
	run -1 --separate-stderr bench --first-build "$FIRSTB" --devices fsdax-dev \
		--rebinds 3 --size 4G --accel tcg --no-probe --results "$T/x.json"
	[[ "$stderr" == *"the first series' kernel $FIRSTB and $PATB have the same release"* ]]
	# --first-build where the kernels are not built apart is refused.
	MZ_BUILD_KIND=upstream run -2 --separate-stderr bench --first-build "$FIRSTB" --devices fsdax-dev
	[ "$stderr" = "bench.sh: error: --first-build: MZ_BUILD_KIND=upstream builds the series and its follow-up together, so one patched kernel runs every patched boot (--patched-build) (see --help)" ]
	MZ_PATCHES=$T/nowhere run -2 --separate-stderr bench --first-build "$FIRSTB" --devices fsdax-dev
	[ "$stderr" = "bench.sh: error: --first-build: $T/nowhere has no follow-up series (threads/series), so one patched kernel runs every patched boot (--patched-build) (see --help)" ]
}

@test "bench.sh: a boot whose output the report cannot read stops the run after that boot (fake vm.sh)" {
	# bench-report.py --boot-summary reads each boot's lines with the
	# report's parser: the count of binds and their threads, or an error.
	run -0 rep --boot-summary "template=$FIX/template.out" --devices fsdax-dev,devprivate --rebinds 3
	[ "$output" = "8 binds, 1 thread(s)" ]
	run -0 rep --boot-summary "template-threads=$FIX/template-threads.out" --devices fsdax-dev,devprivate --rebinds 3
	[ "$output" = "8 binds, 2 thread(s)" ]
	# The template boot's output with one bind line cut short.
	mkdir -p "$T/fix"
	cp "$FIX"/*.out "$T/fix/"
	sed -i '/^BENCH device=fsdax-dev bind=2 /{s/ threads=1$//; s/ tp_ns=[0-9]*//}' "$T/fix/template.out"
	run -1 --separate-stderr rep --boot-summary "template=$T/fix/template.out" --devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"run template: malformed line $T/fix/template.out:"* ]]
	FIX=$T/fix fake_bench
	run -1 --separate-stderr bench --devices fsdax-dev,devprivate \
		--rebinds 3 --size 4G --accel tcg --no-probe --results "$T/r.json"
	[[ "$stderr" == *"boot 2/6 (template, 4096 MiB): bench-report.py cannot read its output"* ]]
	[ "$(wc -l <"$T/vm.log")" -eq 2 ] && [ ! -e "$T/r.json" ]
}

@test "bench.sh: --nvdimm-memory file keeps the NVDIMM in a file and checks the disk (fake vm.sh)" {
	fake_bench
	run -0 --separate-stderr bench --devices fsdax-dev,devprivate --nvdimm-memory file \
		--rebinds 3 --size 4G --accel tcg --no-probe --results "$T/f.json" --no-threads
	[ "$(grep -c -- '--nvdimm-memory file ' "$T/vm.log")" -eq 3 ]
	[[ "$stderr" == *"NVDIMM contents in a file in $MZ_CACHE/vm-bench"* ]]
	pyjson "$T/f.json" 'assert d["nvdimm_memory"] == "file"'
	flat=$(tr '\n' ' ' <<<"$output" | tr -s ' ')
	[[ "$flat" == *"NVDIMM contents in a file on the host"* ]]
}

@test "bench.sh: kernels configured differently beyond the series are refused before any boot" {
	fake_bench
	# As results/ once had: a base without NUMA, a patched kernel with it.
	printf 'CONFIG_NUMA=y\nCONFIG_NODES_SHIFT=6\n' >>"$T/build/patched-x/.config"
	echo '# CONFIG_NUMA is not set' >>"$T/build/base-x/.config"
	run -1 --separate-stderr bench --devices fsdax-dev \
		--rebinds 3 --size 4G --accel tcg --no-probe --results "$T/r.json"
	[[ "$stderr" == *"  CONFIG_NODES_SHIFT: base not set, patched 6"$'\n'"  CONFIG_NUMA: base not set, patched y"* ]]
	[[ "$stderr" == *"the base kernel and $T/build/patched-x are configured differently beyond the series' own options"* ]]
	[ ! -e "$T/vm.log" ] && [ ! -e "$T/r.json" ]
	# The series' own symbols do not count.
	sed -i '/NUMA\|NODES_SHIFT/d' "$T/build/base-x/.config" "$T/build/patched-x/.config"
	printf 'CONFIG_MEMMAP_STREAMING=y\nCONFIG_ARCH_HAS_MEMCPY_NONTEMPORAL=y\n' \
		>>"$T/build/patched-x/.config"
	run -0 "$T/repo/harness/build/config-diff.sh" "$T/build/base-x/.config" "$T/build/patched-x/.config"
	[ -z "$output" ]
	run -2 "$T/repo/harness/build/config-diff.sh" "$T/build/base-x/.config"
}

@test "bench.sh: --no-threads and --smp 1 boot three times per size (fake vm.sh)" {
	fake_bench
	run -0 --separate-stderr bench --devices fsdax-dev,devprivate \
		--rebinds 3 --size 4G --accel tcg --no-probe --results "$T/n.json" --no-threads
	[ "$(wc -l <"$T/vm.log")" -eq 3 ]
	run -1 grep ' auto$' "$T/vm.log"
	[[ "$stderr" == *"threaded boots skipped (--no-threads)"* ]]
	[[ "$output" != *"thread"* ]]
	rm "$T/vm.log"
	run -0 --separate-stderr bench --devices fsdax-dev,devprivate \
		--rebinds 3 --size 4G --accel tcg --no-probe --results "$T/s.json" --smp 1
	[ "$(grep -c -- '--smp 1 ' "$T/vm.log")" -eq 3 ]
	[ "$(wc -l <"$T/vm.log")" -eq 3 ]
	[[ "$stderr" == *"threaded boots skipped (--smp 1: one vCPU runs the threaded init on one thread)"* ]]
	[[ "$output" == *"Threaded boots skipped (--smp 1: one vCPU runs the threaded init on"* ]]
	pyjson "$T/s.json" 'assert d["guest_vcpus"] == 1 and d["threads_skipped"].startswith("--smp 1")
assert {x["backend"] for x in d["results"]} == {"base", "template", "template+streaming", "floor"}'
}

# --- bench-report.py on canned output ---------------------------------------

@test "bench-report.py: aggregation, table and JSON" {
	run -0 --separate-stderr report --devices fsdax-dev,devprivate --rebinds 3 --accel tcg \
		--fact cpu_model=TestCPU --fact host_kernel=6.1-test \
		--fact wall_s=42 --json "$T/r.json" --text "$T/r.txt"
	# The TCG caveat, stated plainly.
	[[ "$output" == *"Accelerator: TCG"* ]]
	[[ "$output" == *"not the memory system"*"on the real CPU by the user-space probe"* ]]
	[[ "$output" == *"function_graph tracer filtered to"*"memmap_init_zone_device() alone"* ]]
	# fsdax-dev memmap_init: base rebinds 40, 32, 36 ms; template 12, 10,
	# 11; floor (template boot) 4.0, 4.4, 4.2 after a first 5.1.
	grep -E '^  base +36\.000 +32\.000-40\.000 +80\.000 +1\.00 +8\.57$' <<<"$output"
	grep -E '^  template +11\.000 +10\.000-12\.000 +110\.000 +0\.31 +2\.62$' <<<"$output"
	grep -E '^  floor \(movq8\) +4\.200 +4\.000-4\.400 +5\.100 +0\.12 +1\.00$' <<<"$output"
	[ "$(cat "$T/r.txt")" = "$output" ]

	pyjson "$T/r.json" 'assert d["accel"] == "tcg" and d["cpu_model"] == "TestCPU"
assert d["host_kernel"] == "6.1-test" and d["wall_s"] == 42 and d["rebinds"] == 3
assert d["sizes"]["list_bytes"] == [4 << 30]
assert d["kernels"]["patched"]["policies"] == {"template": "off", "template+streaming": "on"}
assert d["kernels"]["base"]["release"] == "7.3.4-mz-base"
assert d["kernels"]["patched"]["release"] == "7.3.4-mz-series"
r = d["results"]
assert len(r) == 2 * (3 * 2 + 1)
keys = ["backend", "device", "first", "instrument", "max", "median", "metric", "min", "n", "nr_pages", "samples", "size_bytes", "threads"]
assert all(sorted(k for k in x if k not in ("ns_per_page", "candidate", "bytes")) == keys for x in r), r[0]
# Single-threaded runs (these lines have no threads=) and the floor: 1.
assert all(x["threads"] == 1 for x in r), r
assert "speedup" not in d
assert {x["backend"] for x in r} == {"base", "template", "template+streaming", "floor"}
assert {x["metric"] for x in r} == {"memmap_init_ns", "enable_ns"}
# One instrument for the memmap init time of both kernels.
assert {x["instrument"] for x in r if x["metric"] == "memmap_init_ns" and x["backend"] != "floor"} == {"function_graph"}
x = [x for x in r if x["device"] == "devprivate" and x["backend"] == "template+streaming" and x["metric"] == "enable_ns"][0]
assert (x["first"], x["median"], x["min"], x["max"]) == (60000000, 6200000, 5500000, 6500000), x
f = [x for x in r if x["device"] == "fsdax-dev" and x["backend"] == "floor"][0]
assert f["metric"] == "memmap_init_ns" and f["candidate"] == "movq8" and f["bytes"] == 1030144 * 64
assert (f["first"], f["median"], f["samples"]) == (5100000, 4200000, [4000000, 4400000, 4200000]), f
b = [x for x in r if x["device"] == "fsdax-dev" and x["backend"] == "base" and x["metric"] == "memmap_init_ns"][0]
assert b["ns_per_page"] == round(36000000 / 1030144, 3), b
c = d["crosscheck"]
assert {(x["device"], x["backend"]) for x in c} == {(dv, be) for dv in ("fsdax-dev", "devprivate") for be in ("template", "template+streaming")}
assert all(x["median_diff_ns"] == 1500 and x["max_abs_diff_ns"] == 1500 for x in c), c'
	# One record a line: each result, samples and all, is one line of
	# the file, and nothing else is.
	[ "$(grep -c '^    {"device": .*"samples": \[' "$T/r.json")" -eq 14 ]
	run -1 grep -cE '^ *-?[0-9][0-9.]*,?$' "$T/r.json"
}

@test "bench-report.py: the table is at most 72 columns wide" {
	run -0 report --devices fsdax-dev,devprivate --rebinds 3 --accel tcg \
		--fact "cpu_model=Intel(R) Xeon(R) Platinum 8480+ Processor with a long model name" \
		--probe "$FIX/probe.json"
	[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' <<<"$output")" -le 72 ]
	[[ "$output" == *"Cost per page, ns"* ]]
}

@test "bench-report.py: the probe's copy-read ratio when the probe has it, not before" {
	run -0 report --devices fsdax-dev,devprivate --rebinds 3 --accel tcg --probe "$FIX/probe-read.json"
	grep -E '^  copy_read_nt +4\.59 GB/s  \[4\.40 - 4\.70\]$' <<<"$output"
	tr -s '\n ' '  ' <<<"$output" | grep -F 'warm destination 3.00, cold destination read back at once 0.75'
	run -0 report --devices fsdax-dev,devprivate --rebinds 3 --accel tcg --probe "$FIX/probe.json"
	tr -s '\n ' '  ' <<<"$output" | grep -F 'cold destination 2.90, warm destination 3.00'
	[[ "$output" != *"read back"* ]]
}

@test "bench-report.py: verdicts with their confidence (Welch's t at 95%)" {
	run -0 --separate-stderr report --devices fsdax-dev,devprivate --rebinds 3 --accel tcg --json "$T/r.json"
	# fsdax-dev: base 40/32/36 vs template 12/10/11: the means differ by
	# -25 ms of 36, CI half-width t(0.975, 2.08 df) * sqrt(16/3 + 1/3) ms.
	grep -E '^  template vs base: +-69\.4% \+- 25\.6%$' <<<"$output"
	# template+streaming 9/8/10 vs template 12/10/11: overlapping.
	grep -E '^  template\+streaming vs template: +no difference proven at 95%$' <<<"$output"
	pyjson "$T/r.json" 'c = {(x["device"], x["a"], x["b"]): x for x in d["comparisons"]}
assert len(c) == 6
x = c["fsdax-dev", "template", "base"]
assert x["significant"] is True and x["test"] == "welch_t" and x["confidence"] == 0.95
assert x["instrument"] == "function_graph"
assert c["fsdax-dev", "template+streaming", "template"]["significant"] is False'
	# The t quantiles against the textbook table, and hand-checked tests.
	python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from benchreport import stats as m
for df, t in ((1, 12.706), (2, 4.303), (10, 2.228), (30, 2.042)):
    assert abs(m.t_quantile(0.975, df) - t) < 1e-3, (df, m.t_quantile(0.975, df))
w = m.welch([10, 11, 12], [20, 21, 22])
assert w["verdict"] == "-47.6% +- 10.8%", w
assert m.welch([1, 2, 3], [1, 2, 3])["verdict"] == "no difference proven at 95%"
' "$H/bench"
}

@test "bench-report.py: a floor slower than the template path is flagged and fails the run" {
	sed 's/\(phase=run cand=movq8 rep=[0-9]* .*ns=\)[0-9]*/\199000000/' "$FIX/template.out" >"$T/t.out"
	run -3 --separate-stderr rep --run "base=$FIX/base.out" --run "template=$T/t.out" \
		--run "template+streaming=$FIX/streaming.out" --devices fsdax-dev,devprivate \
		--rebinds 3 --json "$T/r.json"
	[[ "$output" == *"FLAG: the floor is slower than template, template+streaming"* ]]
	[[ "$output" == *"WARNING: the floor came out slower than a template path"* ]]
	[[ "$stderr" == *"error: the floor is slower than a template path on fsdax-dev"*"the results are written but are not a bound"* ]]
	pyjson "$T/r.json" 'assert [x["slower_than"] for x in d["floor"]] == [["template", "template+streaming"]] * 2'
	run -3 "$H/bench/bench-report.py" --cover "$T/r.json"
	run -0 report --devices fsdax-dev,devprivate --rebinds 3
	[[ "$output" != *"FLAG"* ]]
}

@test "bench-report.py: a run without the function_graph instrument or the floor is an error" {
	grep -v 'instrument=function_graph' "$FIX/base.out" >"$T/b.out"
	run -1 --separate-stderr rep --run "base=$T/b.out" \
		--run "template=$FIX/template.out" --run "template+streaming=$FIX/streaming.out" \
		--devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"run base: memmap init not timed by function_graph"* ]]
	grep -v 'device=devprivate phase=run cand=movq8 rep=3 ' "$FIX/streaming.out" >"$T/s.out"
	run -1 --separate-stderr rep --run "base=$FIX/base.out" \
		--run "template=$FIX/template.out" --run "template+streaming=$T/s.out" \
		--devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"devprivate lacks the floor's 4 timed writes"* ]]
}

@test "bench-report.py: several sizes give ns per page per size" {
	for f in base template streaming; do
		sed 's/size_bytes=4294967296/size_bytes=1073741824/' "$FIX/$f.out" >"$T/$f-1G.out"
	done
	run -0 --separate-stderr report --run "base=$T/base-1G.out@1073741824" --run "template=$T/template-1G.out@1073741824" \
		--run "template+streaming=$T/streaming-1G.out@1073741824" --devices fsdax-dev,devprivate --rebinds 3 \
		--json "$T/r.json"
	grep -E '^  fsdax-dev +1 GiB +34\.9 +10\.7 +8\.7 +4\.1$' <<<"$output"
	grep -E '^  fsdax-dev +4 GiB +34\.9 +10\.7 +8\.7 +4\.1$' <<<"$output"
	[[ "$output" == *"fsdax-dev, 1 GiB"*"fsdax-dev, 4 GiB"* ]]
	pyjson "$T/r.json" 'assert d["sizes"]["list_bytes"] == [1 << 30, 4 << 30]
assert len(d["results"]) == 2 * 2 * 7'
	# The same size twice is an error, and so is a size missing a backend.
	run -1 --separate-stderr report --run "base=$FIX/base.out" --devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"two runs of base at size 4096 MiB"* ]]
	run -1 --separate-stderr report --run "base=$T/base-1G.out@1073741824" --devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"size 1024 MiB has no run of template, template+streaming"* ]]
	# The size is the plan's: a guest that was given another is refused.
	run -1 --separate-stderr rep --run "base=$T/base-1G.out" --run "template=$FIX/template.out" \
		--run "template+streaming=$FIX/streaming.out"
	[[ "$stderr" == *"run base: the guest ran 'devices=fsdax-dev+devprivate rebinds=3 size_bytes=1073741824 "*"the plan says 'devices=fsdax-dev+devprivate rebinds=3 size_bytes=4294967296 "* ]]
}

@test "bench-report.py: provenance in the JSON, no host paths; --cover prints the table again" {
	for k in base patched; do
		mkdir -p "$T/build/$k-x/include/config"
		echo "CONFIG_TEST_$k=y" >"$T/build/$k-x/.config"
		echo "7.3.4-mz-$k" >"$T/build/$k-x/include/config/kernel.release"
	done
	run -0 --separate-stderr report --devices fsdax-dev,devprivate --rebinds 3 --accel tcg \
		--kernel "base=$T/build/base-x" --kernel "patched=$T/build/patched-x" \
		--fact series_commit=0123456789abcdef0123456789abcdef01234567 --fact guest_vcpus=2 \
		--fact guest_ram_bytes=2147483648 --fact cpu_model=TestCPU \
		--json "$T/r.json" --text "$T/r.txt"
	sum_base=$(sha256sum "$T/build/base-x/.config" | cut -d' ' -f1)
	pyjson "$T/r.json" "k = d['kernels']
assert k['base']['release'] == '7.3.4-mz-base' and k['patched']['release'] == '7.3.4-mz-patched'
assert k['base']['config_sha256'] == '$sum_base' == d['kernel_config_sha256']['base']
assert k['base']['build'] == 'base-x'
assert d['series_commit'] == '0123456789abcdef0123456789abcdef01234567'
assert d['guest_vcpus'] == 2 and d['sizes']['guest_ram_bytes'] == 2 << 30 and d['accel'] == 'tcg'"
	[[ "$output" == *"guest vCPUs 2; guest RAM 2 GiB; series 0123456789ab"* ]]
	run -1 grep -q "$T" "$T/r.json"
	run -0 "$H/bench/bench-report.py" --cover "$T/r.json"
	[ "$output" = "$(cat "$T/r.txt")" ]
	echo '{"foo": 1}' >"$T/x.json"
	run -1 --separate-stderr "$H/bench/bench-report.py" --cover "$T/x.json"
	[[ "$stderr" == *"not a bench-report.py results file"* ]]
	run -2 "$H/bench/bench-report.py" --cover "$T/r.json" --json "$T/y.json"
}

@test "bench-report.py: an even number of rebinds takes the mean of the middle two" {
	for f in base template streaming; do
		grep -v -e ' bind=3 ' -e ' phase=run .* rep=3 ' "$FIX/$f.out" | sed 's/^\(BENCH-PLAN .*\) rebinds=3 /\1 rebinds=2 /' >"$T/$f.out"
	done
	run -0 rep --run "base=$T/base.out" --run "template=$T/template.out" \
		--run "template+streaming=$T/streaming.out" --devices fsdax-dev,devprivate --rebinds 2 \
		--json "$T/r.json"
	pyjson "$T/r.json" 'r = {(x["device"], x["backend"], x["metric"]): x for x in d["results"]}
assert r["fsdax-dev", "base", "memmap_init_ns"]["median"] == 36000000
assert r["devprivate", "base", "enable_ns"]["median"] == 18500000'
}

@test "bench-report.py: a run with the wrong backend fails loudly" {
	sed 's/backend=template+streaming/backend=template/' "$FIX/streaming.out" >"$T/s.out"
	run -1 --separate-stderr rep --run "base=$FIX/base.out" \
		--run "template=$FIX/template.out" --run "template+streaming=$T/s.out" \
		--devices fsdax-dev,devprivate --rebinds 3 --json "$T/r.json"
	[[ "$stderr" == *"WRONG BACKEND"*"must measure 'template+streaming'"* ]]
	[ ! -e "$T/r.json" ]
}

@test "bench-report.py: missing binds, guest errors and unfinished runs are errors" {
	grep -v 'device=devprivate bind=2 ' "$FIX/base.out" >"$T/b.out"
	run -1 --separate-stderr rep --run "base=$T/b.out" \
		--run "template=$FIX/template.out" --run "template+streaming=$FIX/streaming.out" \
		--devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"run base: devprivate lacks bind(s) 2, expected binds 0..3"* ]]
	# A device the plan asks for and the guest was not given.
	run -1 --separate-stderr report --devices fsdax-dev,devprivate,devdax-2m --rebinds 3
	[[ "$stderr" == *"run base: the guest ran 'devices=fsdax-dev+devprivate rebinds=3 "*"the plan says 'devices=fsdax-dev+devprivate+devdax-2m rebinds=3 "* ]]
	# A device the guest was given and never ran.
	sed 's/^BENCH-PLAN devices=fsdax-dev+devprivate /&/; s/^\(BENCH-PLAN devices=fsdax-dev+devprivate\) /\1+devdax-2m /' "$FIX/base.out" >"$T/d.out"
	run -1 --separate-stderr rep --run "base=$T/d.out" --run "template=$FIX/template.out" \
		--run "template+streaming=$FIX/streaming.out" --devices fsdax-dev,devprivate,devdax-2m --rebinds 3
	[[ "$stderr" == *"devdax-2m has no lines"* ]]
	{ grep -v BENCH-DONE "$FIX/base.out"; echo "BENCH-ERROR device=fsdax-dev bind=2: boom"; } >"$T/e.out"
	run -1 --separate-stderr rep --run "base=$T/e.out" \
		--run "template=$FIX/template.out" --run "template+streaming=$FIX/streaming.out" \
		--devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"the guest failed: BENCH-ERROR device=fsdax-dev bind=2: boom"* ]]
	grep -v BENCH-DONE "$FIX/base.out" >"$T/u.out"
	run -1 --separate-stderr rep --run "base=$T/u.out" \
		--run "template=$FIX/template.out" --run "template+streaming=$FIX/streaming.out" \
		--devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"no BENCH-DONE"* ]]
}

@test "bench-report.py: the plan's output paths may hold spaces and quotes" {
	mkdir -p "$T/a dir's"
	cp "$FIX/base.out" "$T/a dir's/base out"
	run -0 rep --run "base=$T/a dir's/base out" --run "template=$FIX/template.out" \
		--run "template+streaming=$FIX/streaming.out" --json "$T/r.json"
	grep -qF "a\\ dir\\'s/base\\ out devices=" "$T/plan"
	run -0 rep --boot-summary "base=$T/a dir's/base out"
	[ "$output" = "8 binds, 1 thread(s)" ]
}

@test "bench-report.py: usage errors exit 2" {
	run -2 "$H/bench/bench-report.py" --accel tcg
	[[ "$output" == *"--plan is required"* ]]
	run -2 rep --boot-summary "base=$FIX/base.out" --json "$T/r.json"
	run -2 "$H/bench/bench-report.py" --cover "$T/r.json" --plan "$T/plan"
	# The plan is bench.sh's: a bad one is an error (exit 1).
	run -1 --separate-stderr rep --devices fsdax-dev --rebinds 3 --run "base=$FIX/base.out"
	[[ "$stderr" == *"plan: no run of template, template+streaming"* ]] || [[ "$stderr" == *"the guest ran"* ]]
	run -1 --separate-stderr report --devices nvme --rebinds 3
	[[ "$stderr" == *"devices 'nvme' unknown or twice"* ]]
	run -1 --separate-stderr report --devices fsdax-dev --rebinds 0
	[[ "$stderr" == *"rebinds"* ]]
	run -1 --separate-stderr report --devices fsdax-dev --rebinds 3 --run "fast=$FIX/base.out"
	[[ "$stderr" == *"unknown run 'fast'"* ]]
	# A run given the words of another.
	sed 's/ expect=base / expect=template /' "$T/plan" >"$T/p"
	run -1 --separate-stderr "$H/bench/bench-report.py" --plan "$T/p"
	[[ "$stderr" == *"run base is expect=base threads=1, not expect=template threads=1"* ]]
	sed 's/ threads=1$/ threads=auto/' "$T/plan" >"$T/p"
	run -1 --separate-stderr "$H/bench/bench-report.py" --plan "$T/p"
	[[ "$stderr" == *"run base is expect=base threads=1, not expect=base threads=auto"* ]]
	sed 's/ size_bytes=4294967296 / size_bytes=4294967295 /' "$T/plan" >"$T/p"
	run -1 --separate-stderr "$H/bench/bench-report.py" --plan "$T/p"
	[[ "$stderr" == *"size_bytes '4294967295' is not whole MiB"* ]]
	echo "run=base out=$FIX/base.out devices=fsdax-dev" >"$T/p"
	run -1 --separate-stderr "$H/bench/bench-report.py" --plan "$T/p"
	[[ "$stderr" == *"want run= out= devices= rebinds= size_bytes= expect= threads="* ]]
	run -1 --separate-stderr rep
	[[ "$stderr" == *"has no boot"* ]]
}

@test "bench-report.py: SVG chart, probe summary, KVM wording" {
	run -0 report --devices fsdax-dev,devprivate --rebinds 3 --accel kvm \
		--probe "$FIX/probe.json" --json "$T/r.json" --svg "$T/c.svg"
	[[ "$output" == *"Accelerator: KVM"* ]]
	[[ "$output" != *"TCG"* ]]
	[[ "$output" == *"copy_nt_cold"*"25.72 GB/s"* ]]
	[[ "$output" == *"cold destination 2.90, warm"*"destination 3.00"* ]]
	pyjson "$T/r.json" 'assert d["probe"]["ratios"]["nt_over_cached_cold"] == 2.902'
	# Well-formed, one bar per device and backend, with whiskers.
	python3 - "$T/c.svg" <<'EOF'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
bars = [r for r in root.iter(ns + "rect") if r.find(ns + "title") is not None]
assert len(bars) == 2 * 4, len(bars)
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

@test "bench-report.py: threaded runs: rows with threads, comparisons, speedup" {
	run -0 --separate-stderr report_threads --devices fsdax-dev,devprivate --rebinds 3 \
		--accel tcg --json "$T/r.json" --text "$T/r.txt"
	# Each threaded row next to its single-threaded one, named with the
	# threads its binds ran on; the long name on a line of its own.
	# fsdax-dev: template 6.5/5.5/6 ms on 2 threads, first 60.
	grep -A1 -E '^  template +11\.000 ' <<<"$output" | tail -n 1 | grep -x '  template, 2 threads'
	grep -A1 -x '  template, 2 threads' <<<"$output" | sed -n 2p |
		grep -E '^ {20} +6\.000 +5\.500-6\.500 +60\.000 +0\.17 +1\.43$'
	grep -A1 -x '  template+streaming, 2 threads' <<<"$output" | sed -n 2p |
		grep -E '^ {20} +5\.000 +4\.500-5\.500 +55\.000 +0\.14 +1\.19$'
	# The same Welch test: threaded vs single-threaded and vs base.
	grep -E '^  template, 2 threads vs template: -45\.5% \+- 18\.9%$' <<<"$output"
	grep -E '^  template\+streaming, 2 threads vs template\+streaming: -44\.4% \+- 23\.1%$' <<<"$output"
	grep -E '^  template, 2 threads vs base: +-83\.3% \+- 27\.0%$' <<<"$output"
	# Speedup, the ratio of medians: 11/6 and 9/5 on fsdax-dev.
	grep -A1 -E '^  speedup of 2 threads over 1 \(ratio of medians\): template 1\.83x,$' <<<"$output" |
		grep -x '  template+streaming 1.80x'
	# Per page on threads (6 ms / 1030144 pages) and the whole bind.
	grep -E '^  fsdax-dev +4 GiB +2 +5\.8 +4\.9$' <<<"$output"
	grep -E '^  fsdax-dev +4 GiB +2 +68\.00 0\.62x +64\.00 0\.58x$' <<<"$output"
	[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' <<<"$output")" -le 72 ]
	# A threaded row under the one-CPU floor is no flag (3.2 < 4.2 ms).
	[[ "$output" != *FLAG* ]]
	run -0 "$H/bench/bench-report.py" --cover "$T/r.json"
	[ "$output" = "$(cat "$T/r.txt")" ]
	pyjson "$T/r.json" 'r = {(x["device"], x["backend"], x["metric"]): x for x in d["results"]}
assert len(d["results"]) == 2 * (5 * 2 + 1)
assert all(x["threads"] == (2 if x["backend"].endswith("-threads") else 1) for x in d["results"])
x = r["fsdax-dev", "template-threads", "memmap_init_ns"]
assert (x["first"], x["median"], x["samples"], x["instrument"]) == (60000000, 6000000, [6500000, 5500000, 6000000], "function_graph"), x
assert x["ns_per_page"] == round(6000000 / 1030144, 3)
c = {(x["device"], x["a"], x["b"]): x for x in d["comparisons"]}
assert len(c) == 2 * 7
for dev in ("fsdax-dev", "devprivate"):
    for a, b in (("template-threads", "template"), ("template+streaming-threads", "template+streaming"), ("template-threads", "base"), ("template+streaming-threads", "base")):
        assert c[dev, a, b]["test"] == "welch_t" and c[dev, a, b]["metric"] == "memmap_init_ns"
assert c["fsdax-dev", "template-threads", "template"]["significant"] is True
s = {(x["device"], x["a"]): x for x in d["speedup"]}
assert s["fsdax-dev", "template-threads"] == {"device": "fsdax-dev", "size_bytes": 4 << 30, "metric": "memmap_init_ns", "a": "template-threads", "b": "template", "threads": 2, "ratio": 1.8333}
assert s["devprivate", "template+streaming-threads"]["ratio"] == 1.875
# The floor bounds the single-threaded rows only.
assert all(f["slower_than"] == [] for f in d["floor"])
assert len(d["crosscheck"]) == 2 * 4
assert d["kernels"]["patched"]["policies"]["template+streaming-threads"] == "on"'
}

@test "bench-report.py: a threaded row is named by its binds' most common thread count" {
	# 3 of the 4 fsdax-dev binds on one thread: "template, 1 thread".
	sed -e '/device=fsdax-dev bind=[012] /s/threads=2/threads=1/' "$FIX/template-threads.out" >"$T/t.out"
	# A tie (binds 1 and 2 on 3 threads) takes the larger count.
	sed -e '/device=fsdax-dev bind=[12] /s/threads=2/threads=3/' "$FIX/streaming-threads.out" >"$T/s.out"
	run -0 --separate-stderr report --run "template-threads=$T/t.out" \
		--run "template+streaming-threads=$T/s.out" --devices fsdax-dev,devprivate --rebinds 3 \
		--json "$T/r.json" --svg "$T/c.svg"
	grep -E '^  template, 1 thread +6\.000 ' <<<"$output"
	grep -x '  template+streaming, 3 threads' <<<"$output"
	grep -A1 -x '  speedup of N threads over 1 (ratio of medians): template 1.83x (N=1),' <<<"$output" |
		grep -x '  template+streaming 1.80x (N=3)'
	grep -E '^  fsdax-dev +4 GiB +1/3 +5\.8 +4\.9$' <<<"$output"
	pyjson "$T/r.json" 'r = {(x["device"], x["backend"], x["metric"]): x["threads"] for x in d["results"]}
assert r["fsdax-dev", "template-threads", "memmap_init_ns"] == 1
assert r["fsdax-dev", "template+streaming-threads", "enable_ns"] == 3
assert r["devprivate", "template-threads", "memmap_init_ns"] == 2'
	# The chart: a bar per device and run, the threaded runs named.
	python3 - "$T/c.svg" <<'EOF'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
bars = [r for r in root.iter(ns + "rect") if r.find(ns + "title") is not None]
assert len(bars) == 2 * 6, len(bars)
titles = [r.find(ns + "title").text for r in bars]
assert titles[2].startswith("fsdax-dev template, 1 thread: median 6.000 ms"), titles
legend = [t.text for t in root.iter(ns + "text") if t.get("y") == "62"]
assert legend == ["base", "template", "template, N threads", "template+streaming",
                  "template+streaming, N threads", "floor"], legend
EOF
}

@test "bench-report.py: threaded runs come in pairs, with threads=; single-threaded runs on one thread" {
	run -1 --separate-stderr report --run "template-threads=$FIX/template-threads.out" \
		--devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"plan: no run of template+streaming-threads (the threaded runs come in pairs)"* ]]
	run -1 --separate-stderr report --run "threads=$FIX/template-threads.out" \
		--devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"unknown run 'threads'"* ]]
	# A threaded run whose lines do not say how many threads ran.
	sed 's/ threads=2$//' "$FIX/template-threads.out" >"$T/t.out"
	run -1 --separate-stderr report --run "template-threads=$T/t.out" \
		--run "template+streaming-threads=$FIX/streaming-threads.out" --devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"run template-threads: fsdax-dev bind 0 has no threads="*"a threaded run must say how many threads ran"* ]]
	# A single-threaded run that ran on two.
	sed 's/ tp_ns=\([0-9]*\)$/ tp_ns=\1 threads=2/' "$FIX/template.out" >"$T/m.out"
	run -1 --separate-stderr rep --run "base=$FIX/base.out" --run "template=$T/m.out" \
		--run "template+streaming=$FIX/streaming.out" --devices fsdax-dev,devprivate --rebinds 3 --json "$T/r.json"
	[[ "$stderr" == *"run template: WRONG THREADS: fsdax-dev bind 0 ran on 2 threads, this run must be single-threaded"* ]]
	[ ! -e "$T/r.json" ]
	# On one thread and saying so (the guest test's lines now): fine.
	sed 's/ tp_ns=\([0-9]*\)$/ tp_ns=\1 threads=1/' "$FIX/template.out" >"$T/o.out"
	run -0 rep --run "base=$FIX/base.out" --run "template=$T/o.out" \
		--run "template+streaming=$FIX/streaming.out" --devices fsdax-dev,devprivate --rebinds 3
	# A threaded run of the wrong backend.
	run -1 --separate-stderr report --run "template-threads=$FIX/streaming-threads.out" \
		--run "template+streaming-threads=$FIX/streaming-threads.out" --devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"run template-threads: WRONG BACKEND"*"must measure 'template'"* ]]
}

@test "bench-report.py: the busy host's runs come in pairs with the threaded runs, and must have been busy" {
	threaded=(--run "template-threads=$FIX/template-threads.out" --run "template+streaming-threads=$FIX/streaming-threads.out")
	busy=(--run "template-busy=$FIX/template-busy.out" --run "template-threads-busy=$FIX/template-threads-busy.out")
	run -1 --separate-stderr report "${threaded[@]}" --run "template-busy=$FIX/template-busy.out" \
		--devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"plan: no run of template-threads-busy (the busy host's runs come in pairs, with the threaded runs)"* ]]
	run -1 --separate-stderr report "${busy[@]}" --devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"plan: no run of template-threads, template+streaming-threads (the busy host's runs come in pairs, with the threaded runs)"* ]]
	# A busy run from a boot that kept no CPU busy, an idle run from one that did.
	grep -v '^BENCH-INFO busy_cpus=' "$FIX/template-threads-busy.out" >"$T/nb.out"
	run -1 --separate-stderr report "${threaded[@]}" --run "template-busy=$FIX/template-busy.out" \
		--run "template-threads-busy=$T/nb.out" --devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"run template-threads-busy: not a busy-host boot (no 'BENCH-INFO busy_cpus=' line: THREADS busy or busy1)"* ]]
	# The busy boot's output for an idle run: its guest was given other
	# words, and with the words mended, its lines are still a busy host's.
	run -1 --separate-stderr report --run "template-threads=$FIX/template-threads-busy.out" \
		--run "template+streaming-threads=$FIX/streaming-threads.out" --devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"run template-threads: the guest ran '"*" threads=busy', the plan says '"*" threads=auto'"* ]]
	sed 's/^\(BENCH-PLAN .*\) threads=busy$/\1 threads=auto/' "$FIX/template-threads-busy.out" >"$T/ib.out"
	run -1 --separate-stderr report --run "template-threads=$T/ib.out" \
		--run "template+streaming-threads=$FIX/streaming-threads.out" --devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"run template-threads: a busy-host boot (busy_cpus=1) in an idle run"* ]]
	# The busy host's one thread on two.
	sed 's/ tp_ns=\([0-9]*\)$/ tp_ns=\1 threads=2/' "$FIX/template-busy.out" >"$T/b2.out"
	run -1 --separate-stderr report "${threaded[@]}" --run "template-busy=$T/b2.out" \
		--run "template-threads-busy=$FIX/template-threads-busy.out" --devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"run template-busy: WRONG THREADS: fsdax-dev bind 0 ran on 2 threads, this run must be single-threaded"* ]]
	# Both: Part 3, its verdicts, speedup and whole bind; JSON rows,
	# comparisons and speedups; no bar in the chart.
	run -0 --separate-stderr report "${threaded[@]}" "${busy[@]}" --devices fsdax-dev,devprivate \
		--rebinds 3 --json "$T/r.json" --svg "$T/r.svg"
	part3=$(sed -n '/^== Part 3: a busy host ==$/,$p' <<<"$output")
	[ -n "$part3" ]
	[[ "$(sed -n '/^== Part 2/,/^== Part 3/p' <<<"$output")" != *"busy host"$'\n'* ]]
	# fsdax-dev: one thread 11 ms, two 9 ms (medians), the idle host's two 6 ms.
	grep -A2 -x '  template, one vCPU, busy host' <<<"$part3" | grep -E '^ +11\.000 +10\.000-12\.000 '
	grep -A1 -x '  template, 2 threads, busy host' <<<"$part3" | grep -E '^ +9\.000 +8\.250-9\.750 '
	grep -x '  template, 2 threads, busy host vs template, 2 threads: +50.0% +- 25.6%' <<<"$part3"
	[[ "$(tr '\n' ' ' <<<"$part3" | tr -s ' ')" == *"speedup of 2 threads over 1 on the busy host (ratio of medians): template 1.22x"* ]]
	grep -E '^  fsdax-dev +4 GiB +90\.00 +102\.00 1\.13x$' <<<"$part3"
	pyjson "$T/r.json" 'rs = {(x["backend"], x["threads"]) for x in d["results"] if x["device"] == "fsdax-dev"}
assert ("template-busy", 1) in rs and ("template-threads-busy", 2) in rs, rs
cs = {(c["a"], c["b"]) for c in d["comparisons"] if c["device"] == "devprivate"}
assert {("template-threads-busy", "template-busy"), ("template-threads-busy", "template-threads")} <= cs, cs
sp = [s for s in d["speedup"] if s["a"] == "template-threads-busy"]
assert [(s["device"], s["b"], s["threads"], s["ratio"]) for s in sp] == [("fsdax-dev", "template-busy", 2, 1.2222), ("devprivate", "template-busy", 2, 1.1852)], sp'
	run -1 grep -F 'busy host' "$T/r.svg"
}

# --- guest/tests/bench without a VM -----------------------------------------

@test "guest/tests/bench: its plan's words, checked before it touches anything" {
	# It must stop at the checks: past them it would set kernel knobs.
	[ ! -d /mz/tests ] || skip "/mz/tests exists: this host looks like a bench guest"
	local p=(devices=fsdax-dev rebinds=3 size_bytes=268435456)
	run -1 "$ROOT/guest/tests/bench" "${p[@]}" expect=template threads=2
	[ "$output" = "BENCH-ERROR threads '2' is not 1, auto, busy or busy1" ]
	run -1 "$ROOT/guest/tests/bench" "${p[@]}" expect=base threads=0
	[ "$output" = "BENCH-ERROR threads '0' is not 1, auto, busy or busy1" ]
	run -1 "$ROOT/guest/tests/bench" "${p[@]}" expect=template threads=busy2
	[ "$output" = "BENCH-ERROR threads 'busy2' is not 1, auto, busy or busy1" ]
	run -1 "$ROOT/guest/tests/bench" devices=nvme rebinds=3 size_bytes=268435456 expect=template threads=1
	[ "$output" = "BENCH-ERROR unknown device 'nvme'" ]
	run -1 "$ROOT/guest/tests/bench" "${p[@]}" expect=template threads=auto extra
	[ "$output" = "BENCH-ERROR usage: bench devices=D rebinds=N size_bytes=B expect=E threads=T (got '${p[*]} expect=template threads=auto extra')" ]
	run -1 "$ROOT/guest/tests/bench" "${p[@]}" expect=template threads=1 rebinds=4
	[[ "$output" == "BENCH-ERROR usage: bench devices=D "* ]]
	run -1 "$ROOT/guest/tests/bench" "${p[@]}" expect=template
	[[ "$output" == "BENCH-ERROR usage: bench devices=D "* ]]
	# The words in any order.
	run -1 "$ROOT/guest/tests/bench" threads=1 expect=template size_bytes=268435456 rebinds=3 devices=fsdax-dev
	[[ "$output" == "BENCH-ERROR no /mz/tests: this test runs in a guest"* ]]
	# Good words pass, and on a host it stops: base with every CPU
	# online (auto) too, for the threaded boots' base.
	for a in "template auto" "base 1" "base auto" "template+streaming 1" "template busy" "template busy1"; do
		run -1 "$ROOT/guest/tests/bench" devices=fsdax-dev+devprivate rebinds=3 size_bytes=268435456 \
			"expect=${a% *}" "threads=${a#* }"
		[[ "$output" == "BENCH-ERROR no /mz/tests: this test runs in a guest"* ]]
	done
}

# --- the published results -----------------------------------------------

# published_json COVER: the results/ JSON that COVER's numbers come from,
# as harness/series/cover-results.txt lists it: one place for the fact.
published_json() {
	awk -v c="$1" '!/^#/ && $1 == c { print $2 }' "$H/series/cover-results.txt"
}

@test "cover letter: its results table is the published run's, not retyped, and names no file" {
	# From the table's first line to the end of its "Whole bind" table,
	# the block must be what bench-report.py --for-list prints from the
	# JSON cover-results.txt gives it.
	local cover=$ROOT/patches/0000-cover-letter.patch
	json=$(published_json 0000-cover-letter.patch)
	[ -n "$json" ] && [ -f "$ROOT/$json" ]
	awk '/^memmap_init_zone_device\(\): base/ { p = 1 } p && /^Whole bind/ { w = 1 }
		w && /^$/ { exit } p' "$cover" >"$T/cover.txt"
	grep -q '^Whole bind' "$T/cover.txt"
	"$H/bench/bench-report.py" --cover "$ROOT/$json" --for-list >"$T/report.txt"
	head -n "$(wc -l <"$T/cover.txt")" "$T/report.txt" | diff -u - "$T/cover.txt"
	# A mailing list has none of this repository's files or kernel names.
	run -1 grep -nE 'results/|harness/|patches/|-mz-|memremap_bench' "$cover" "$ROOT/patches/threads/0000-cover-letter.patch"
}

@test "follow-up cover letter: its threads tables are the published run's, not retyped" {
	# Table 1, per memory and size (the devices and sizes of the run):
	# the template median on 1 thread and on 2 (ms) and the speedup
	# (ratio of the medians).  Table 2, per memory at the largest size: the whole bind as ndctl's enable and as
	# the kernel's probes (ms), base with every vCPU online and 2
	# threads, and their ratio.  All from the JSON cover-results.txt gives it.
	local cover=$ROOT/patches/threads/0000-cover-letter.patch
	json=$(published_json threads/0000-cover-letter.patch)
	[ -n "$json" ] && [ -f "$ROOT/$json" ]
	python3 - "$cover" "$ROOT/$json" <<'PY'
import json, re, sys
cover = open(sys.argv[1]).read().split("\n")
data = json.load(open(sys.argv[2]))
names = {"fsdax map=dev": "fsdax-dev", "fsdax map=mem": "fsdax-mem",
         "devdax align=2M": "devdax-2m", "device-private": "devprivate"}
med = {(r["device"], r["size_bytes"] >> 30, r["backend"], r["metric"]): r["median"]
       for r in data["results"]}
ratio = {(s["device"], s["size_bytes"] >> 30, s["a"]): s["ratio"] for s in data["speedup"]}
sizes = [s >> 30 for s in data["sizes"]["list_bytes"]]

def rows(header):
    """The table under header: its indented lines, across blank ones."""
    out = []
    for line in cover[cover.index(header) + 1:]:
        if line.strip() and not line.startswith("  "):
            break
        if line.strip():
            out.append(line)
    return out

devices = data["devices"]
t1 = rows("  memory             size   1 thread  2 threads  speedup")
assert len(t1) == len(devices) * len(sizes), t1
seen = set()
for line in t1:
    m = re.match(r"  (\S.*?\S) +(\d+) GiB +([0-9.]+) ms +([0-9.]+) ms +([0-9.]+)x$", line)
    assert m, line
    dev, gib = names[m.group(1)], int(m.group(2))
    seen.add((dev, gib))
    want = ("%.2f" % (med[dev, gib, "template", "memmap_init_ns"] / 1e6),
            "%.2f" % (med[dev, gib, "template-threads", "memmap_init_ns"] / 1e6),
            "%.2f" % ratio[dev, gib, "template-threads"])
    assert m.group(3, 4, 5) == want, (line, want)
assert seen == {(d, g) for d in devices for g in sizes}, seen
big = sizes[-1]
i = cover.index("  memory             base  2 threads            base  2 threads")
assert cover[i - 1].startswith(f"  at {big} GiB "), cover[i - 1]
t2 = rows(cover[i])
assert len(t2) == len(devices), t2
for line in t2:
    m = re.match(r"  (\S.*?\S) +([0-9.]+) +([0-9.]+) ([0-9.]+)x +([0-9.]+) +([0-9.]+) ([0-9.]+)x$", line)
    assert m, line
    dev = names[m.group(1)]
    want = []
    for metric in ("enable_ns", "probe_ns"):
        a = med[dev, big, "base-cpus", metric]
        b = med[dev, big, "template-threads", metric]
        want += ["%.1f" % (a / 1e6), "%.1f" % (b / 1e6), "%.2f" % (b / a)]
    assert list(m.group(2, 3, 4, 5, 6, 7)) == want, (line, want)
# Table 3, with the busy host's runs: per memory and size, held to one
# vCPU and on the kernel's threads (ms), the speedup, and the idle host's
# threads (ms).
if any(r["backend"] == "template-busy" for r in data["results"]):
    t3 = rows("  memory             size  one vCPU  2 threads  speedup  idle 2 thr.")
    assert len(t3) == len(devices) * len(sizes), t3
    for line in t3:
        m = re.match(r"  (\S.*?\S) +(\d+) GiB +([0-9.]+) ms +([0-9.]+) ms +([0-9.]+)x +([0-9.]+) ms$", line)
        assert m, line
        dev, gib = names[m.group(1)], int(m.group(2))
        want = ("%.2f" % (med[dev, gib, "template-busy", "memmap_init_ns"] / 1e6),
                "%.2f" % (med[dev, gib, "template-threads-busy", "memmap_init_ns"] / 1e6),
                "%.2f" % ratio[dev, gib, "template-threads-busy"],
                "%.2f" % (med[dev, gib, "template-threads", "memmap_init_ns"] / 1e6))
        assert m.group(3, 4, 5, 6) == want, (line, want)
print("ok")
PY
}

@test "README: its excerpts are the published runs' lines, not retyped" {
	# Every ```text block is a run of consecutive lines of the results
	# file the last "excerpted from `results/NAME.txt`" before it names.
	python3 - "$ROOT" <<'PY'
import re, sys
root = sys.argv[1]
text = open(f"{root}/README.md").read()
n = 0
for m in re.finditer(r"```text\n(.*?)\n```", text, re.S):
    srcs = re.findall(r"excerpted from\s+`(results/[^`]+\.txt)`", text[:m.start()], re.I)
    assert srcs, ("no source named before", m.group(1)[:200])
    src = open(f"{root}/{srcs[-1]}").read()
    assert "\n" + m.group(1) + "\n" in "\n" + src, (srcs[-1], m.group(1)[:200])
    n += 1
assert n >= 2, n
print(n, "blocks")
PY
}

# with_phases FILE: FILE's output with BENCH-PHASE and BENCH-NDCTL lines
# for each fsdax-dev bind: nd_pmem_probe = memmap init + 2 ms, its
# devm_memremap_pages = memmap init + 1 ms around memmap_init_zone_device,
# a 100 ns nd_pfn_validate, and a 20 ms ndctl list.
with_phases() {
	awk '{ print }
	     /^BENCH device=fsdax-dev / {
		split($3, b, "="); split($4, m, "="); t = m[2]
		printf "BENCH-PHASE device=fsdax-dev %s path=nd_pmem_probe/nd_pfn_validate calls=1 ns=100\n", $3
		printf "BENCH-PHASE device=fsdax-dev %s path=nd_pmem_probe/devm_memremap_pages/memmap_init_zone_device calls=1 ns=%d\n", $3, t
		printf "BENCH-PHASE device=fsdax-dev %s path=nd_pmem_probe/devm_memremap_pages calls=1 ns=%d\n", $3, t + 1000000
		printf "BENCH-PHASE device=fsdax-dev %s path=nd_pmem_probe calls=2 ns=%d\n", $3, t + 2000000
		printf "BENCH-NDCTL device=fsdax-dev %s list_ns=20000000\n", $3
	     }' "$1"
}

# phased NAME...: with_phases of each canned run NAME (base, base-cpus,
# template, streaming, ...) into $T/NAME.out, and in PHASED the --run
# arguments that give them to bench-report.py under their run labels.
phased() {
	local r
	PHASED=()
	for r in "$@"; do
		with_phases "$FIX/$r.out" >"$T/$r.out"
		PHASED+=(--run "${r/#streaming/template+streaming}=$T/$r.out")
	done
}

@test "bench-report.py: the breakdown of the whole enable, nested, with shares and rest" {
	phased base template template-threads streaming streaming-threads
	run -0 --separate-stderr rep "${PHASED[@]}" \
		--devices fsdax-dev,devprivate --rebinds 3 --accel tcg --json "$T/r.json"
	[[ "$output" == *"Where the whole enable goes"* ]]
	# base: enable median 110, probe 38 (memmap 36 + 2): outside 72.
	grep -E '^fsdax-dev, 4 GiB +base +template +2 threads$' <<<"$output"
	grep -E '^  enable \(whole bind\) +110\.00 100% +90\.00 100% +68\.00 100%$' <<<"$output"
	grep -E '^   outside traced functions +72\.00  65% +77\.00  86% +60\.00  88%$' <<<"$output"
	grep -E '^    ndctl list, no bind +20\.00  18% +20\.00  22% +20\.00  29%$' <<<"$output"
	grep -E '^   nd_pmem_probe +38\.00  35% +13\.00  14% +8\.00  12%$' <<<"$output"
	grep -E '^     memmap_init_zone_device +36\.00  33% +11\.00  12% +6\.00   9%$' <<<"$output"
	# The 100 ns info block read is folded into the probe's rest (1 ms
	# beyond devm_memremap_pages), and marked in the JSON.
	[[ "$output" != *nd_pfn_validate* ]]
	grep -E '^    rest +1\.00   1% +1\.00   1% +1\.00   1%$' <<<"$output"
	# devprivate has no phases in these runs: no breakdown for it, and
	# no table of the kernel's part of the bind (it needs every device).
	[[ "$output" != *"devprivate, 4 GiB  "*base* ]]
	[[ "$output" != *"The kernel's part of the whole bind"* ]]
	pyjson "$T/r.json" 'b = d["breakdown"]
assert {(x["device"], x["run"]) for x in b} == {("fsdax-dev", r) for r in ("base", "template", "template+streaming", "template-threads", "template+streaming-threads")}, b
x = [x for x in b if x["run"] == "base"][0]
assert x["enable_median_ns"] == 110000000 and x["ndctl_list_median_ns"] == 20000000
p = {y["path"]: y for y in x["phases"]}
assert p["nd_pmem_probe"]["median_ns"] == 38000000 and p["nd_pmem_probe"]["calls"] == 2
assert p["nd_pmem_probe"]["first_ns"] == 82000000
assert p["nd_pmem_probe/nd_pfn_validate"]["nvdimm"] is True and p["nd_pmem_probe"]["nvdimm"] is False
assert p["nd_pmem_probe/devm_memremap_pages/memmap_init_zone_device"]["share"] == round(36 / 110, 4)'
	long=$(awk 'length > 72' <<<"$output")
	[ -z "$long" ]
}

@test "bench-report.py: the kernel's part of the whole bind, the probes' outermost calls" {
	# fsdax-dev as with_phases gives it (probe = memmap init + 2 ms, in
	# two outermost nd_pmem_probe calls), devprivate an outermost
	# memremap_pages() of memmap init + 0.5 ms.
	phased base base-cpus template template-threads streaming streaming-threads
	for r in base base-cpus template template-threads streaming streaming-threads; do
		awk '{ print }
		     /^BENCH device=devprivate / {
			split($4, m, "=")
			printf "BENCH-PHASE device=devprivate %s path=memremap_pages/memmap_init_zone_device calls=1 ns=%d\n", $3, m[2]
			printf "BENCH-PHASE device=devprivate %s path=memremap_pages calls=1 ns=%d\n", $3, m[2] + 500000
		     }' "$T/$r.out" >"$T/$r.priv" && mv "$T/$r.priv" "$T/$r.out"
	done
	run -0 --separate-stderr rep "${PHASED[@]}" \
		--devices fsdax-dev,devprivate --rebinds 3 --accel tcg --json "$T/r.json"
	# One vCPU: base 36 + 2 ms, template 11 + 2 ms; apart from ndctl's
	# 110 and 90 ms enables.
	part1=$(sed -n '/^== Part 1/,/^== Part 2/p' <<<"$output")
	part2=$(sed -n '/^== Part 2/,$p' <<<"$output")
	sed -n "/^The kernel's part of the whole bind, median/,/^\$/p" <<<"$part1" |
		grep -E '^  fsdax-dev +4 GiB +38\.00 +13\.00 0\.34x '
	sed -n "/^The kernel's part of the whole bind, median/,/^\$/p" <<<"$part1" |
		grep -E '^  devprivate +4 GiB +16\.50 +8\.50 0\.52x '
	# Every vCPU: base-cpus 36 + 2 ms, the template's 2 threads 6 + 2 ms.
	sed -n "/^The kernel's part of the whole bind on N threads/,/^\$/p" <<<"$part2" |
		grep -E '^  fsdax-dev +4 GiB +38\.00 +8\.00 0\.21x '
	pyjson "$T/r.json" 'm = {(x["device"], x["backend"]): x for x in d["results"] if x["metric"] == "memmap_init_ns"}
p = {(x["device"], x["backend"]): x for x in d["results"] if x["metric"] == "probe_ns"}
assert len(p) == 2 * 6, sorted(p)
for k, x in p.items():
    add = 2000000 if k[0] == "fsdax-dev" else 500000
    assert x["samples"] == [y + add for y in m[k]["samples"]], (k, x["samples"])
    assert x["first"] == m[k]["first"] + add and x["threads"] == m[k]["threads"], k
assert p["fsdax-dev", "base"]["instrument"] == "function_graph on the outermost nd_pmem_probe() and dax_pmem_probe()"
assert p["devprivate", "base"]["instrument"] == "function_graph on the outermost memremap_pages()"'
	long=$(awk 'length > 72' <<<"$output")
	[ -z "$long" ]
	# A CXL ram region's device-dax: its kernel part is device_dax's probe.
	for r in "${PHASED[@]}"; do
		[ "$r" != --run ] || continue
		sed -i -e 's/device=devprivate/device=cxl-devdax/' -e 's/path=memremap_pages/path=dev_dax_probe/' \
			-e 's/^\(BENCH-PLAN devices=fsdax-dev\)+devprivate /\1+cxl-devdax /' "${r#*=}"
	done
	run -0 --separate-stderr rep "${PHASED[@]}" \
		--devices fsdax-dev,cxl-devdax --rebinds 3 --accel tcg --json "$T/r.json"
	sed -n "/^The kernel's part of the whole bind, median/,/^\$/p" <<<"$output" |
		grep -E '^  cxl-devdax +4 GiB +16\.50 +8\.50 0\.52x '
	[[ "$(tr -s '\n ' ' ' <<<"$output")" == *"cxl-devdax: dev_dax_probe()"* ]]
	pyjson "$T/r.json" 'p = {(x["device"], x["backend"]): x for x in d["results"] if x["metric"] == "probe_ns"}
assert p["cxl-devdax", "base"]["instrument"] == "function_graph on the outermost dev_dax_probe()"
e = {(x["device"], x["backend"]): x for x in d["results"] if x["metric"] == "enable_ns"}
assert e["cxl-devdax", "base"]["instrument"] == "EPOCHREALTIME around daxctl"'
}

@test "bench-report.py: with several sizes, the breakdown of the largest; every size's in the JSON" {
	local r small=()
	phased base template streaming
	for r in base template streaming; do
		sed 's/size_bytes=4294967296/size_bytes=1073741824/' "$T/$r.out" >"$T/$r-1G.out"
		small+=(--run "${r/#streaming/template+streaming}=$T/$r-1G.out@1073741824")
	done
	run -0 --separate-stderr rep "${PHASED[@]}" "${small[@]}" \
		--devices fsdax-dev,devprivate --rebinds 3 --accel tcg --json "$T/r.json"
	grep -E '^fsdax-dev, 4 GiB +base +template$' <<<"$output"
	[[ "$output" == *"Breakdown of the whole bind at the largest size, 4 GiB (every"* ]]
	run -1 grep -E '^fsdax-dev, 1 GiB +base' <<<"$output"
	pyjson "$T/r.json" 'assert sorted({x["size_bytes"] >> 30 for x in d["breakdown"]}) == [1, 4]'
}

@test "bench-report.py: with base-cpus, one breakdown table per set of online vCPUs" {
	phased base base-cpus template template-threads streaming streaming-threads
	run -0 --separate-stderr rep "${PHASED[@]}" \
		--devices fsdax-dev,devprivate --rebinds 3 --accel tcg --json "$T/r.json"
	# One vCPU online: base and template, as before.
	grep -E '^fsdax-dev, 4 GiB, one vCPU online +base +template$' <<<"$output"
	grep -E '^  enable \(whole bind\) +110\.00 100% +90\.00 100%$' <<<"$output"
	# Every vCPU online: base-cpus (enable median 140, probe 38) and the
	# template on 2 threads.
	grep -E '^fsdax-dev, 4 GiB, every vCPU online +base +2 threads$' <<<"$output"
	grep -E '^  enable \(whole bind\) +140\.00 100% +68\.00 100%$' <<<"$output"
	grep -E '^   outside traced functions +102\.00  73% +60\.00  88%$' <<<"$output"
	[ "$(grep -c '^fsdax-dev, 4 GiB, ' <<<"$output")" -eq 2 ]
	# What no faster memmap init removes: 68 - 6 ms of memmap init = 62
	# ms, 140 / 62 = 2.26x at most; one vCPU: 90 - 11 = 79, 110 / 79.
	[[ "$output" == *"Bound, 2 threads: the enable less its memmap init is 62.00 ms, so no"*"more than 2.26x as fast as base's"*"140.00 ms."* ]]
	[[ "$output" == *"Bound, template: the enable less its memmap init is 79.00 ms"*"more than 1.39x as fast as base's"*"110.00 ms."* ]]
	pyjson "$T/r.json" 'b = {x["run"]: x for x in d["breakdown"]}
assert b["base-cpus"]["enable_median_ns"] == 140000000 and b["base-cpus"]["threads"] == 1'
	long=$(awk 'length > 72' <<<"$output")
	[ -z "$long" ]
	# base-cpus without the threaded runs is refused.
	run -1 --separate-stderr rep --run "base=$T/base.out" --run "template=$T/template.out" \
		--run "template+streaming=$T/streaming.out" --run "base-cpus=$T/base-cpus.out" \
		--devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"plan: base-cpus, the base with every vCPU online, goes with the threaded runs"* ]]
	# A base-cpus run whose lines name another backend is refused.
	run -1 --separate-stderr rep --run "base=$T/base.out" --run "template=$T/template.out" \
		--run "template+streaming=$T/streaming.out" --run "template-threads=$T/template-threads.out" \
		--run "template+streaming-threads=$T/streaming-threads.out" --run "base-cpus=$T/template.out" \
		--devices fsdax-dev,devprivate --rebinds 3
	[[ "$stderr" == *"run base-cpus: WRONG BACKEND"*"must measure 'base'"* ]]
}

@test "bench-report.py: a malformed or stray phase line is an error" {
	with_phases "$FIX/base.out" | sed 's/path=nd_pmem_probe calls=2/path=nd_pmem_probe calls=x/' >"$T/base.out"
	run -1 --separate-stderr report_run_base "$T/base.out"
	[[ "$stderr" == *"malformed line"*"BENCH-PHASE"* ]]
	{ cat "$FIX/base.out"; echo "BENCH-PHASE device=fsdax-dev bind=9 path=nd_pmem_probe calls=1 ns=5"; } >"$T/base.out"
	run -1 --separate-stderr report_run_base "$T/base.out"
	[[ "$stderr" == *"fsdax-dev has phases of bind(s) 9 but no BENCH line for them"* ]]
	{ cat "$FIX/base.out"; echo "BENCH-PHASE device=fsdax-dev bind=1 path=a calls=1 ns=5"; echo "BENCH-PHASE device=fsdax-dev bind=1 path=a calls=1 ns=5"; } >"$T/base.out"
	run -1 --separate-stderr report_run_base "$T/base.out"
	[[ "$stderr" == *"phase a appears twice"* ]]
}

# report_run_base FILE: the report with FILE as the base run.
report_run_base() {
	rep --run "base=$1" --run "template=$FIX/template.out" \
		--run "template+streaming=$FIX/streaming.out" --devices fsdax-dev,devprivate --rebinds 3
}

@test "guest bench: the phase parser nests function_graph's calls per task" {
	sed -n '/^phases() {/,/^}/p' "$ROOT/guest/tests/bench" >"$T/phases.sh"
	[ -s "$T/phases.sh" ]
	mkdir -p "$T/ph"
	cat >"$T/ph/trace" <<'TRACE'
# tracer: function_graph
#
# CPU  TASK/PID         DURATION                  FUNCTION CALLS
# |     |    |           |   |                     |   |   |   |
 1)   ndctl-196    |               |  nd_pmem_probe [nd_pmem]() {
 1)   ndctl-196    | + 12.345 us   |    nd_pfn_validate [libnvdimm]();
 1)   ndctl-196    | + 50.000 us   |  } /* nd_pmem_probe [nd_pmem] */
 ------------------------------------------
 0)   ndctl-196    =>  kworker-12
 ------------------------------------------
 0) kworker-12    |               |  nd_pmem_probe [nd_pmem]() {
 0) kworker-12    |               |    devm_memremap_pages() {
 1) kworker-12    | $ 43210.123 us |      memmap_init_zone_device();
 1) kworker-12    | $ 50000.001 us |    } /* devm_memremap_pages */
 1) kworker-12    | $ 90001 us    |  } /* nd_pmem_probe [nd_pmem] */
 1)   insmod-1    |               |  memremap_pages() {
 1)   insmod-1    |   3.000 us    |    memmap_init_zone_device();
 1)   insmod-1    |   9.000 us    |  } /* memremap_pages */
 1)   insmod-1    |   8.000 us    |  memremap_pages();
 1)   insmod-1    |   5.000 us    |  mem_hotplug_begin();
TRACE
	run -0 bash -c ". '$T/phases.sh'; fail() { echo FAIL; exit 1; }; PH='$T/ph'; phases fsdax-dev 4"
	[[ "$output" == *"BENCH-PHASE device=fsdax-dev bind=4 path=nd_pmem_probe/nd_pfn_validate calls=1 ns=12345"* ]]
	[[ "$output" == *"BENCH-PHASE device=fsdax-dev bind=4 path=nd_pmem_probe calls=2 ns=90051000"* ]]
	[[ "$output" == *"BENCH-PHASE device=fsdax-dev bind=4 path=nd_pmem_probe/devm_memremap_pages/memmap_init_zone_device calls=1 ns=43210123"* ]]
	[[ "$output" == *"BENCH-PHASE device=fsdax-dev bind=4 path=memremap_pages calls=2 ns=17000"* ]]
	[[ "$output" == *"BENCH-PHASE device=fsdax-dev bind=4 path=mem_hotplug_begin calls=1 ns=5000"* ]]
	[ "$(grep -c '^BENCH-PHASE' <<<"$output")" -eq 7 ]
	# SPLIT: each outermost memremap_pages call ends a bind, and only
	# what runs inside those calls counts (the teardown between them,
	# and here the pmem probe, belong to no bind).
	run -0 bash -c ". '$T/phases.sh'; fail() { echo FAIL; exit 1; }; PH='$T/ph'; phases devprivate 0 memremap_pages"
	[[ "$output" == *"BENCH-PHASE device=devprivate bind=0 path=memremap_pages/memmap_init_zone_device calls=1 ns=3000"* ]]
	[[ "$output" == *"BENCH-PHASE device=devprivate bind=0 path=memremap_pages calls=1 ns=9000"* ]]
	[[ "$output" == *"BENCH-PHASE device=devprivate bind=1 path=memremap_pages calls=1 ns=8000"* ]]
	[[ "$output" != *nd_pmem_probe* && "$output" != *mem_hotplug_begin* ]]
	[ "$(grep -c '^BENCH-PHASE' <<<"$output")" -eq 3 ]
	rm "$T/ph/trace"
	run -1 bash -c ". '$T/phases.sh'; fail() { echo \"FAIL \$*\"; exit 1; }; PH='$T/ph'; phases fsdax-dev 4"
	[[ "$output" == *"FAIL no $T/ph/trace"* ]]
	# A phase of 2^31 ns (2.1 s) or more, as a 64 GiB bind's first probe
	# takes under TCG, printed whole by the host's awk and by the
	# guest's, busybox's (its %d gave -2147483648).
	mkdir -p "$T/ph2" "$T/bb"
	printf '%s\n' ' 0) kworker-12    | $ 2622937 us   |  nd_pmem_probe [nd_pmem]();' >"$T/ph2/trace"
	ln -s "$(command -v busybox)" "$T/bb/awk"
	for p in "$PATH" "$T/bb:$PATH"; do
		run -0 env PATH="$p" bash -c ". '$T/phases.sh'; fail() { echo FAIL; exit 1; }; PH='$T/ph2'; phases fsdax-dev 0"
		[ "$output" = "BENCH-PHASE device=fsdax-dev bind=0 path=nd_pmem_probe calls=1 ns=2622937000" ]
	done
}

# --- memory hotplug: devdax-ram ---------------------------------------------

# hotplug_report ARGS...: the report on the canned boots of a memory
# hotplug run, fixtures/bench/hotplug-*.out: devdax-ram's hot-adds of 31
# memory blocks (1015808 pages) per bind, with their phases, on base, on
# the first series' kernel (first: the hot-add path as on base) and on
# the kernel with every series (template: patches/hotplug/'s copy).
hotplug_report() {
	rep --run "base=$FIX/hotplug-base.out" --run "first=$FIX/hotplug-first.out" \
		--run "template=$FIX/hotplug-template.out" --devices devdax-ram --rebinds 3 "$@"
}

@test "bench-report.py: devdax-ram: memmap_init_range(), the onlining around it and daxctl's command on three kernels" {
	run -0 --separate-stderr hotplug_report --accel tcg --json "$T/r.json" --text "$T/r.txt" \
		--svg "$T/r.svg" --fact 'threads_skipped=memory hotplug: memmap_init_range() has no streaming backend and runs on one thread'
	table=$output
	flat=$(tr '\n' ' ' <<<"$output" | tr -s ' ')
	# Which kernel each row is, in words.
	[[ "$flat" == "memmap_init_range(): base 7.3.4-mz-base vs the first series 7.3.4-mz-first (no hot-add change) and 7.3.4-mz-series with the hot-add change; 1 device(s) at 4 GiB;"* ]]
	[[ "$flat" == *"Rows: base: 7.3.4 (7.3.4-mz-base); first: first series (patches/), no hot-add change (7.3.4-mz-first); template: with patches/hotplug/ (7.3.4-mz-series)."* ]]
	[[ "$flat" == *"Streaming and threaded boots skipped (memory hotplug: memmap_init_range() has no streaming backend and runs on one thread): one thread only."* ]]
	[[ "$flat" == *"Instrument, every kernel: the function_graph tracer, in an instance of its own filtered to memmap_init_range() alone and in another to online_pages(), which calls it"* ]]
	# Its memmap init block names the function: base 100/92/96 ms, first
	# 98/93/95, template 30/26/28, floor 8.0/8.4/8.2.
	grep -A9 -x 'devdax-ram, 4 GiB (1015808 pages, memmap_init_range())' <<<"$output" >"$T/init"
	grep -E '^  run +median +min-max +first +x base +x floor$' "$T/init"
	grep -E '^  base +96\.00 +92\.00-100\.00 +120\.00 +1\.00 +11\.71$' "$T/init"
	grep -E '^  first +95\.00 +93\.00-98\.00 +118\.00 +0\.99 +11\.59$' "$T/init"
	grep -E '^  template +28\.00 +26\.00-30\.00 +60\.00 +0\.29 +3\.41$' "$T/init"
	grep -E '^  first vs base: +no difference proven at 95%$' "$T/init"
	grep -E '^  template vs base: +-70\.8% \+- 8\.7%$' "$T/init"
	grep -E '^  template vs first: +-70\.6% \+- 5\.5%$' "$T/init"
	# daxctl's command, its parts and the onlining's, medians of the
	# per-bind differences: base 680 = 468 + 212, 212 = 96 + 116.
	sed -n '/^devdax-ram, 4 GiB, memory hotplug: /,/^$/p' <<<"$output" >"$T/hp"
	grep -E '^  part +base +first +template$' "$T/hp"
	grep -E '^  whole command +680\.00 +676\.00 0\.99x +610\.00 0\.90x$' "$T/hp"
	grep -E '^   daxctl, hot-add, rest +468\.00 +466\.00 1\.00x +464\.00 0\.99x$' "$T/hp"
	grep -E '^   onlining, online_pages\(\) +212\.00 +210\.00 0\.99x +146\.00 0\.69x$' "$T/hp"
	grep -E '^    memmap init +96\.00 +95\.00 0\.99x +28\.00 0\.29x$' "$T/hp"
	grep -E '^    rest of onlining +116\.00 +115\.00 0\.99x +118\.00 1\.02x$' "$T/hp"
	grep -E '^  onlining, first vs base: +no difference proven at 95%$' "$T/hp"
	grep -E '^  whole command, first vs base: +no difference proven at 95%$' "$T/hp"
	grep -E '^  onlining, template vs base: +-31\.1% \+- 7\.8%$' "$T/hp"
	grep -E '^  whole command, template vs base: +-10\.3% \+- 6\.1%$' "$T/hp"
	grep -E '^  onlining, template vs first: +-30\.9% \+- 5\.9%$' "$T/hp"
	grep -E '^  whole command, template vs first: +-10\.2% \+- 5\.2%$' "$T/hp"
	[[ "$(tr '\n' ' ' <"$T/hp" | tr -s ' ')" == *"1015808 pages in 31 memory block(s)"* ]]
	# The whole bind table counts the command as any device's bind.
	grep -E '^  device +size +base +first +template$' <<<"$output"
	grep -E '^  devdax-ram +4 GiB +680\.00 +676\.00 0\.99x +610\.00 0\.90x$' <<<"$output"
	[[ "$flat" == *"Whole bind, median ms and x base (devdax-ram: daxctl reconfigure-device --mode=system-ram, bash EPOCHREALTIME;"* ]]
	# The bound from its phases' memmap_init_range(): 610 - 28 ms.
	[[ "$flat" == *"Bound, template: the enable less its memmap init is 582.00 ms, so no faster memmap init makes this bind more than 1.17x as fast as base's 680.00 ms."* ]]
	# One thread alone: no part per series, no streaming or threaded row.
	[[ "$table" != *"== Part"* ]] && [[ "$table" != *"+streaming"* ]]
	run -1 grep -E '[0-9] threads|all CPUs' <<<"$table"
	[ -z "$(awk 'length > 72' <<<"$table")" ]
	run -0 "$H/bench/bench-report.py" --cover "$T/r.json"
	[ "$output" = "$(cat "$T/r.txt")" ]
	pyjson "$T/r.json" 'r = {(x["device"], x["backend"], x["metric"]): x for x in d["results"]}
x = r["devdax-ram", "base", "online_ns"]
assert (x["function"], x["first"], x["samples"], x["median"]) == ("online_pages", 260000000, [220000000, 204000000, 212000000], 212000000), x
assert r["devdax-ram", "template", "memmap_init_ns"]["function"] == "memmap_init_range"
assert r["devdax-ram", "first", "memmap_init_ns"]["nr_pages"] == 1015808
assert {b for _, b, _ in r} == {"base", "first", "template", "floor"}, r.keys()
assert not d["crosscheck"] and "speedup" not in d
h = {x["run"]: x for x in d["hotplug"]}
assert set(h) == {"base", "first", "template"}, h
assert (h["template"]["calls"], h["template"]["memmap_init_ns"], h["template"]["online_rest_ns"], h["template"]["outside_online_ns"], h["template"]["first_enable_ns"]) == (31, 28000000, 118000000, 464000000, 800000000), h
c = [(x["metric"], x["a"], x["b"]) for x in d["comparisons"]]
assert c == [(m, a, b) for m in ["memmap_init_ns"] for a, b in [("first", "base"), ("template", "base"), ("template", "first")]] + [(m, a, b) for a, b in [("first", "base"), ("template", "base"), ("template", "first")] for m in ("online_ns", "enable_ns")], c
k = d["kernels"]
assert (k["first"]["release"], k["first"]["policies"], k["patched"]["release"], k["patched"]["policies"]) == ("7.3.4-mz-first", {"first": "off"}, "7.3.4-mz-series", {"template": "off"}), k'
	grep -q '>memmap_init_range(): median of 3 rebinds' "$T/r.svg"
}

@test "bench-report.py: a memory hotplug run has base, template and its control first alone, and its devices alone" {
	# Without the first series' own kernel (one patched kernel): base
	# and template, and the table says so.
	run -0 --separate-stderr rep --run "base=$FIX/hotplug-base.out" --run "template=$FIX/hotplug-template.out" \
		--devices devdax-ram --rebinds 3
	[[ "$(tr '\n' ' ' <<<"$output" | tr -s ' ')" == *"Rows: base: 7.3.4 (7.3.4-mz-base); template: with patches/hotplug/ (7.3.4-mz-series). No first series' control: one patched kernel ran every patched boot."* ]]
	grep -E '^  template vs base: +-70\.8% \+- 8\.7%$' <<<"$output"
	grep -E '^  whole command, template vs base: +-10\.3% \+- 6\.1%$' <<<"$output"
	run -1 grep -E 'vs first|^  first ' <<<"$output"
	# No streaming or threaded run, and template is not optional.
	run -1 --separate-stderr hotplug_report --run "template+streaming=$FIX/hotplug-template.out"
	[ "$stderr" = "bench-report.py: error: plan: a memory hotplug run (devdax-ram) has the runs base, first, template, not template+streaming" ]
	run -1 --separate-stderr hotplug_report --run "template-threads=$FIX/hotplug-template.out"
	[[ "$stderr" == *"has the runs base, first, template, not template-threads" ]]
	run -1 --separate-stderr rep --run "base=$FIX/hotplug-base.out" --run "first=$FIX/hotplug-first.out" \
		--devices devdax-ram --rebinds 3
	[ "$stderr" = "bench-report.py: error: plan: no run of template" ]
	# first is a memory hotplug run's, and hot-added devices run alone.
	run -1 --separate-stderr report --run "first=$FIX/template.out"
	[ "$stderr" = "bench-report.py: error: plan: run first, the first series' control, is a memory hotplug run's; fsdax-dev, devprivate are not hot-added" ]
	run -1 --separate-stderr report --devices fsdax-dev,devdax-ram
	[ "$stderr" = "bench-report.py: error: plan: devdax-ram (memory hotplug) and fsdax-dev have other runs: run them separately" ]
}

@test "bench-report.py: devdax-ram's lines name no backend, and it alone may (devices.txt)" {
	# The one place: devices.txt's BACKEND column, "-" for devdax-ram alone.
	run -0 python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from benchreport import lines; print(sorted(lines.NO_BACKEND), sorted(lines.HOTPLUG))' "$H/bench"
	[ "$output" = "['devdax-ram'] ['devdax-ram']" ]
	# A hot-add that names a backend is refused: nothing on its path does.
	mkdir -p "$T/f"
	sed '/^BENCH device=devdax-ram bind=2 /s/ backend=- / backend=template /' "$FIX/hotplug-template.out" >"$T/f/hotplug-template.out"
	run -1 --separate-stderr rep --run "base=$FIX/hotplug-base.out" --run "first=$FIX/hotplug-first.out" \
		--run "template=$T/f/hotplug-template.out" --devices devdax-ram --rebinds 3
	[[ "$stderr" == *"run template: devdax-ram bind 2 names backend 'template', but nothing on its path names one (devices.txt: BACKEND -): want backend=-"* ]]
	# The other devices must still name their run's.
	sed '/^BENCH device=fsdax-dev bind=2 /s/ backend=template / backend=- /' "$FIX/template.out" >"$T/f/template.out"
	run -1 --separate-stderr rep --run "base=$FIX/base.out" --run "template=$T/f/template.out" \
		--run "template+streaming=$FIX/streaming.out"
	[[ "$stderr" == *"run template: WRONG BACKEND: fsdax-dev bind 2 used '-', this run must measure 'template'"* ]]
}

# hotplug_bad SED: the report with the base boot's devdax-ram lines
# edited by SED: it must fail (exit 1); its message in $stderr.
hotplug_bad() {
	sed "$1" "$FIX/hotplug-base.out" >"$T/b.out"
	run -1 --separate-stderr rep --run "base=$T/b.out" --run "first=$FIX/hotplug-first.out" \
		--run "template=$FIX/hotplug-template.out" --devices devdax-ram --rebinds 3
}

@test "bench-report.py: a hot-add whose memmap_init_range() or online_pages() was not traced is an error" {
	hotplug_bad '/^BENCH device=devdax-ram bind=1 /{s/ memmap_init_ns=[0-9]* / memmap_init_ns=0 /; s/ events=31 / events=0 /}'
	[[ "$stderr" == *"run base: devdax-ram bind 1: memmap_init_range() was not traced (events=0, nr_pages=1015808): no memmap init time"* ]]
	hotplug_bad '/^BENCH device=devdax-ram bind=2 /s/ online_ns=.*$//'
	[[ "$stderr" == *"run base: devdax-ram bind 2: no online_ns= and online_events=: a hot-add must give its online_pages() time"* ]]
	hotplug_bad '/^BENCH device=devdax-ram bind=3 /s/ online_events=31$/ online_events=30/'
	[[ "$stderr" == *"run base: devdax-ram bind 3: 31 memmap_init_range() call(s) of 96000000 ns, 30 online_pages() call(s) of 212000000 ns, in a command of 680000000 ns: want one of each per block, each inside the next"* ]]
	hotplug_bad '/^BENCH device=devdax-ram bind=3 /s/ online_ns=[0-9]* / online_ns=95000000 /'
	[[ "$stderr" == *"devdax-ram bind 3: 31 memmap_init_range() call(s) of 96000000 ns, 31 online_pages() call(s) of 95000000 ns"* ]]
	hotplug_bad '/^BENCH-INFO hotplug_instrument=/d'
	[[ "$stderr" == *"run base: memory hotplug not timed by function_graph (BENCH-INFO hotplug_instrument=None)"* ]]
	# A device that is not hot-added has no onlining.
	sed '/^BENCH device=fsdax-dev bind=1 /s/$/ online_ns=5 online_events=1/' "$FIX/base.out" >"$T/b.out"
	run -1 --separate-stderr rep --run "base=$T/b.out" --run "template=$FIX/template.out" \
		--run "template+streaming=$FIX/streaming.out"
	[[ "$stderr" == *"run base: fsdax-dev bind 1: online_ns= on a device that is not hot-added"* ]]
}

@test "guest bench: a hot-add's line from its two traces, and loud failures when they show nothing" {
	local f
	for f in need_traceable fg_times check_filter hp_report; do
		sed -n "/^$f() {/,/^}/p" "$ROOT/guest/tests/bench"
	done >"$T/hp.sh"
	[ "$(grep -c '^}' "$T/hp.sh")" -eq 4 ]
	mkdir -p "$T/tr" "$T/hpi" "$T/hpo" "$T/fg" "$T/mem/memory8" "$T/mem/memory9"
	printf '%s\n' 'memmap_init_range' 'online_pages' 'dev_dax_kmem_probe [kmem]' >"$T/tr/available_filter_functions"
	printf '# tracer: function_graph\n#\n' >"$T/hdr"
	{ cat "$T/hdr"; printf '%s\n' ' 0) # 1234.567 us |  memmap_init_range();' ' 0) # 1000.000 us |  memmap_init_range();'; } >"$T/hpi/trace"
	{ cat "$T/hdr"; printf '%s\n' ' 0) # 3000.000 us |  online_pages();' ' 0) # 2500.500 us |  online_pages();'; } >"$T/hpo/trace"
	cat "$T/hdr" >"$T/fg/trace"
	echo online >"$T/mem/memory8/state"
	echo online >"$T/mem/memory9/state"
	# hp DEVICE BIND ENABLE_NS BLOCKS PAGES KB: hp_report with the fakes.
	cat >"$T/run.sh" <<-EOF
	. '$T/hp.sh'
	fail() { echo "BENCH-ERROR \$*"; exit 1; }
	TR='$T/tr' HPI='$T/hpi' HPO='$T/hpo' FG='$T/fg' MEMDIR='$T/mem'
	FUNC=memmap_init_zone_device HP_INIT=memmap_init_range HP_ONLINE=online_pages
	need_traceable memmap_init_range online_pages
	hp_report devdax-ram 1 9000000 "\$(printf '8\n9')" 65536 262144
	EOF
	run -0 bash "$T/run.sh"
	[ "$output" = "BENCH device=devdax-ram bind=1 memmap_init_ns=2234567 enable_ns=9000000 backend=- events=2 nr_pages=65536 tp_ns=- threads=1 online_ns=5500500 online_events=2" ]
	# The trace shows no memmap_init_range() call.
	cp "$T/hdr" "$T/hpi/trace"
	run -1 bash "$T/run.sh"
	[ "$output" = "BENCH-ERROR device=devdax-ram bind=1: no memmap_init_range() call in $T/hpi during 'daxctl reconfigure-device --mode=system-ram': the hot-added memory's memmap init was not traced" ]
	# One call for two blocks.
	{ cat "$T/hdr"; echo ' 0) # 1234.567 us |  memmap_init_range();'; } >"$T/hpi/trace"
	run -1 bash "$T/run.sh"
	[ "$output" = "BENCH-ERROR device=devdax-ram bind=1: 1 memmap_init_range() call(s) for 2 online_pages() call(s): not one memmap init per onlined block" ]
	echo ' 0) # 1000.000 us |  memmap_init_range();' >>"$T/hpi/trace"
	run -0 bash "$T/run.sh"
	# The filter leaked: a callee in the instance.
	echo ' 0)   0.100 us |  __init_single_page();' >>"$T/hpi/trace"
	run -1 bash "$T/run.sh"
	[[ "$output" == "BENCH-ERROR function_graph traced other functions than memmap_init_range: "* ]]
	sed -i '$d' "$T/hpi/trace"
	# A block left offline; MemTotal grown by other than the blocks' pages.
	echo offline >"$T/mem/memory9/state"
	run -1 bash "$T/run.sh"
	[ "$output" = "BENCH-ERROR device=devdax-ram bind=1: after 'daxctl reconfigure-device --mode=system-ram' these blocks are not online: memory9:offline" ]
	echo online >"$T/mem/memory9/state"
	sed -i 's/ 262144$/ 131072/' "$T/run.sh"
	run -1 bash "$T/run.sh"
	[ "$output" = "BENCH-ERROR device=devdax-ram bind=1: MemTotal grew by 131072 kB (32768 pages), the 2 block(s) hold 65536 pages" ]
	sed -i 's/ 131072$/ 262144/' "$T/run.sh"
	# The onlining longer by the trace clock than the command by the wall
	# clock (a TSC calibrated several times too slow at boot).
	sed -i 's/ 1 9000000 / 1 5000000 /' "$T/run.sh"
	run -1 bash "$T/run.sh"
	[ "$output" = "BENCH-ERROR device=devdax-ram bind=1: memmap_init_range() 2234567 ns, online_pages() 5500500 ns (trace clock), the command 5000000 ns (wall clock): each must hold the one before; is the trace clock off? (clocksource unknown, TSC detected at ? MHz at boot)" ]
	sed -i 's/ 1 5000000 / 1 9000000 /' "$T/run.sh"
	# memmap_init_zone_device() during a hot-add: not the hotplug path.
	echo ' 0) ! 120.000 us |  memmap_init_zone_device();' >>"$T/fg/trace"
	run -1 bash "$T/run.sh"
	[ "$output" = "BENCH-ERROR device=devdax-ram bind=1: memmap_init_zone_device() ran during the hot-add: it is not the memory hotplug path" ]
	cp "$T/hdr" "$T/fg/trace"
	run -0 bash "$T/run.sh"
	# A kernel that cannot trace memmap_init_range() stops before any hot-add.
	echo online_pages >"$T/tr/available_filter_functions"
	run -1 bash "$T/run.sh"
	[ "$output" = "BENCH-ERROR memmap_init_range is not in $T/tr/available_filter_functions (inlined, notrace or __init on this kernel): the hot-added memory's memmap init cannot be timed" ]
}

@test "bench.sh: memory hotplug devices run alone, without streaming or threads, and say so" {
	bench_bad --devices fsdax-dev,devdax-ram
	[ "$stderr" = "bench.sh: error: --devices 'fsdax-dev,devdax-ram': devdax-ram (memory hotplug) and fsdax-dev have different boots: run them separately (make bench does: BENCH_HOTPLUG_ARGS) (see --help)" ]
	bench_bad --busy --devices devdax-ram
	[ "$stderr" = "bench.sh: error: --busy: the busy host's boots need the threaded ones, which are skipped (memory hotplug: memmap_init_range() has no streaming backend and runs on one thread) (see --help)" ]
	# base and template; first too where the first series' kernel is
	# built apart (not with --patched-build alone).
	run -0 bench --check-args --no-probe --devices devdax-ram --size 1G
	[ "$output" = "bench.sh: arguments OK: 1 device(s), 10 rebinds, size(s) 1G, 2 vCPU(s), 2 boots per size (streaming and threaded boots skipped: memory hotplug: memmap_init_range() has no streaming backend and runs on one thread)" ]
	# make bench's hotplug run.
	run -0 "$BENCH" --check-args --devices devdax-ram --sizes 1G,8G --no-probe --assume-mem-avail "$MEM"
	[[ "$output" == *": 1 device(s), 10 rebinds, size(s) 1G,8G, 2 vCPU(s), 3 boots per size (streaming and threaded boots skipped: memory hotplug: "* ]]
	# Not a default device: make bench's main run leaves it out.
	run -0 bench --check-args --no-probe
	[[ "$output" == *": 4 device(s),"* ]]
}

@test "bench.sh: devdax-ram boots base, the first series' kernel and every series', one thread each (fake vm.sh)" {
	local r
	mkdir -p "$T/hfix"
	for r in base first template; do
		cp "$FIX/hotplug-$r.out" "$T/hfix/$r.out"
	done
	FIX=$T/hfix fake_bench
	run -0 --separate-stderr bench --first-build "$FIRSTB" --devices devdax-ram \
		--rebinds 3 --size 4G --accel tcg --no-probe --results "$T/r.json"
	# Which kernel each boot ran, and what its guest was told.
	sed -n 's|.* '"$T"'/build/\([a-z]*\)-x .*bench devices=devdax-ram rebinds=3 size_bytes=4294967296 expect=\([a-z+]*\) threads=\([a-z0-9]*\).*|\1 \2 \3|p' \
		"$T/vm.log" >"$T/calls"
	[ "$(cat "$T/calls")" = "base base 1
first template 1
patched template 1" ]
	# 180 s, 4 x 9 + 10 s for the device and 4 x (5 + 2 x 4) s for the hot-adds.
	[ "$(grep -c -- '--timeout 278 ' "$T/vm.log")" -eq 3 ]
	[[ "$stderr" == *"3 boots per size"* ]]
	[[ "$stderr" == *"streaming and threaded boots skipped (memory hotplug: memmap_init_range() has no streaming backend and runs on one thread): the table has the single-threaded rows only"* ]]
	[[ "$stderr" == *"boot 2/3: first, 4096 MiB (first-x, memmap_streaming=off)"* ]]
	[[ "$stderr" == *"boot 3/3: template, 4096 MiB (patched-x, memmap_streaming=off)"* ]]
	# Their outputs apart from make bench's other runs'.
	[ "$(sed 's/ devices=.*//' "$T/r.plan")" = "run=base out=$MZ_LOGS/bench-base-4096M-hotplug.out
run=first out=$MZ_LOGS/bench-first-4096M-hotplug.out
run=template out=$MZ_LOGS/bench-template-4096M-hotplug.out" ]
	flat=$(tr '\n' ' ' <<<"$output" | tr -s ' ')
	[[ "$flat" == *"Rows: base: 7.3.4 (7.3.4-mz-base); first: first series (patches/), no hot-add change (7.3.4-mz-first); template: with patches/hotplug/ (7.3.4-mz-patched)."* ]]
	[[ "$output" == *"devdax-ram, 4 GiB, memory hotplug: daxctl"* ]] && [[ "$output" != *"== Part"* ]]
	pyjson "$T/r.json" 'assert d["devices"] == ["devdax-ram"] and [h["run"] for h in d["hotplug"]] == ["base", "first", "template"], d["hotplug"]
assert (d["kernels"]["first"]["build"], d["kernels"]["patched"]["build"]) == ("first-x", "patched-x"), d["kernels"]
assert d["threads_skipped"].startswith("memory hotplug: ")'
	# Without the first series' own kernel: base and template, and why.
	rm "$T/vm.log"
	run -0 --separate-stderr bench --devices devdax-ram \
		--rebinds 3 --size 4G --accel tcg --no-probe --results "$T/p.json"
	[ "$(sed 's|.* '"$T"'/build/\([a-z]*\)-x .*|\1|' "$T/vm.log" | tr '\n' ' ')" = "base patched " ]
	[[ "$stderr" == *"memory hotplug: no first series' control boot (--patched-build without --first-build)"* ]]
	pyjson "$T/p.json" 'assert [h["run"] for h in d["hotplug"]] == ["base", "template"] and "first" not in d["kernels"], d["kernels"]'
}
