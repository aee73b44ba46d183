#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# harness/matrix/matrix.sh booting guests: the kernel in MZ_TEST_BUILD for
# every variant (matrix.sh --build) runs the small guest tests of
# tests/guest/ (--add) instead of the kselftest target (--guest-test);
# without MZ_TEST_BUILD they are skipped.
#
#   MZ_TEST_BUILD=~/.cache/memmap-zone-device/build/series-stream-y bats tests/bats/system/matrix.bats
#
# matrix.sh's argument checks and ktap-count.awk are tests/bats/matrix.bats.

bats_require_minimum_version 1.5.0
load ../common

setup_file() {
	# Each test boots up to nproc guests at a time (matrix.sh --jobs):
	# one test at a time (bats --jobs).
	# shellcheck disable=SC2034 # read by bats
	BATS_NO_PARALLELIZE_WITHIN_FILE=true
	# make qemu's QEMU 10, in the real cache (make check fetches it first).
	export REAL_QEMU_CXL
	# shellcheck disable=SC2016
	REAL_QEMU_CXL=$(bash -c '. "$1/harness/lib.sh" && echo "$MZ_QEMU_DIR/bin/qemu-system-x86_64"' \
		_ "$BATS_TEST_DIRNAME/../../..")
	# The initramfs matrix.sh makes for every variant of the VM tests (the
	# kernel in MZ_TEST_BUILD, Debian's ndctl, tests/guest/ added), made
	# once here: need_vm copies it with its stamp into each test's cache,
	# where initramfs.sh finds its inputs unchanged and reuses it.
	export SEED_INITRAMFS=$BATS_FILE_TMPDIR/matrix.cpio.gz
	if [ -n "${MZ_TEST_BUILD:-}" ] && [ -f "$MZ_TEST_BUILD/arch/x86/boot/bzImage" ]; then
		local root
		root=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
		MZ_CACHE=$BATS_FILE_TMPDIR/cache "$root/harness/vm/initramfs.sh" \
			--add "$root/tests/guest:/mz/tests" "$MZ_TEST_BUILD" "$SEED_INITRAMFS" >/dev/null 2>&1 || true
	fi
}

setup() {
	mz_test_dirs
	export MZ_ACCEL=${MZ_ACCEL:-tcg}
	SUMMARY=$BATS_TEST_TMPDIR/summary.json
}

need_vm() {
	local v
	if [ -z "${MZ_TEST_BUILD:-}" ] || [ ! -f "$MZ_TEST_BUILD/arch/x86/boot/bzImage" ]; then
		skip "no kernel: set MZ_TEST_BUILD to a build-kernel.sh output directory"
	fi
	# setup_file's initramfs, as matrix.sh names it for each variant here
	# (when setup_file could not make it, matrix.sh makes its own).
	[ -f "$SEED_INITRAMFS.stamp" ] || return 0
	mkdir -p "$MZ_CACHE/initramfs"
	for v in stream-y stream-y-distro stream-n stream-n-distro lockdep debug-vm debug-vm-distro; do
		cp "$SEED_INITRAMFS" "$MZ_CACHE/initramfs/matrix-$v.cpio.gz"
		cp "$SEED_INITRAMFS.stamp" "$MZ_CACHE/initramfs/matrix-$v.cpio.gz.stamp"
	done
}

# matrix ARGS...: matrix.sh on the kernel in MZ_TEST_BUILD, with the
# harness's guest test fixtures in the initramfs.
# A fake guest starts its test within 10 s; one that stalls in the boot (a
# TCG hang, docs/matrix.md "Stalls") is booted again after 60 s.
# shellcheck disable=SC2153 # ROOT is common.bash's, not a misspelt root
matrix() {
	"$H/matrix/matrix.sh" --build "$MZ_TEST_BUILD" --add "$ROOT/tests/guest:/mz/tests" \
		--boot-timeout 60 "$@"
}

# skip_cells BUILD VARIANT: fake-skip's no-parameter and off cells of
# VARIANT on the kernel in BUILD, which fail; in cells each group's
# "PARAM GROUP UNEXPECTED-SKIPS", comma-separated.
skip_cells() {
	run "$H/matrix/matrix.sh" --build "$1" --add "$ROOT/tests/guest:/mz/tests" \
		--guest-test fake-skip --variants "$2" --params none,off --timeout 120 --summary "$SUMMARY"
	[ "$status" -ne 0 ]
	cells=$(jq -r --arg v "$2" '[.[] | select(.variant == $v) |
		"\(.boot_param) \(.group) \(.unexpected_skip)"] | join(",")' "$SUMMARY")
}

@test "matrix.sh: VARIANT:P1+P2 runs that variant with those parameters only" {
	need_vm
	run matrix --guest-test fake-kselftest --variants stream-y:bogus+on,debug-vm \
		--params none --timeout 120 --summary "$SUMMARY"
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.variant, .boot_param]] | unique' "$SUMMARY")" = \
		'[["debug-vm","none"],["stream-y","bogus"],["stream-y","on"]]' ]
	[[ "$output" == *"running 3 cells (2 variants)"* ]]
	[[ "$output" == *"3 cells, 0 failed"* ]]
}

@test "matrix.sh: --params without --variants runs every variant of the set (matrix-cells.txt)" {
	need_vm
	local want
	run matrix --guest-test fake-kselftest --params none --timeout 120 --summary "$SUMMARY"
	[ "$status" -eq 0 ]
	# The CHECK column's variants, each with the one parameter given.
	want=$(awk -F '\t' '!/^#/ && NF { print $7 }' "$ROOT/harness/matrix/matrix-cells.txt" |
		tr ',' '\n' | grep -vx -- - | sort -u | jq -Rcs 'split("\n") | map(select(. != "")) | map([., "none"])')
	[ "$(jq -c '[.[] | [.variant, .boot_param]] | unique' "$SUMMARY")" = "$want" ]
}

@test "matrix.sh: passing cells give counts and a JSON summary" {
	need_vm
	run matrix --guest-test fake-kselftest --variants stream-y \
		--params none,bogus --timeout 120 --summary "$SUMMARY"
	[ "$status" -eq 0 ]
	[ "$(jq length "$SUMMARY")" -eq 4 ]
	[ "$(jq -c '[.[] | select(.boot_param == "bogus" and .group == "controls")][0] | [.pass, .fail, .skip, .unexpected_skip]' "$SUMMARY")" = "[1,0,1,0]" ]
	[ "$(jq -r '.[0].variant' "$SUMMARY")" = stream-y ]
	# A progress line as each cell finishes.
	[[ "$output" == *"[2/2] stream-y with "* ]]
	[[ "$output" == *"stream-y with bogus: ok, 2 passed, 0 failed, 1 skipped (0 unexpected), "*" s"* ]]
	[[ "$output" == *"stream-y with no parameter: ok, 2 passed, 0 failed, 1 skipped (0 unexpected), "*" s"* ]]
}

@test "matrix.sh: a failing guest test fails the matrix" {
	need_vm
	run matrix --guest-test fail --variants stream-y --params none \
		--timeout 120 --summary "$SUMMARY"
	[ "$status" -ne 0 ]
	[[ "$output" == *"FAIL (guest exit 1"* ]]
	# The tail names the failed cell, for CI excerpts that show only it.
	[[ "$(tail -n 4 <<<"$output")" == *"Failed cells"*"stream-y (no parameter): FAIL (guest exit 1"* ]]
}

@test "matrix.sh: a kernel WARNING in the guest log fails the matrix" {
	need_vm
	# The guest test prints passing KTAP, then the WARNING: only the
	# detection of kernel reports (vm.sh) can fail this cell.
	run matrix --guest-test warn --variants stream-y --params none \
		--timeout 120 --summary "$SUMMARY"
	[ "$status" -ne 0 ]
	[ "$(jq -c '[.[] | [.group, .pass, .fail, .skip]]' "$SUMMARY")" = '[["controls",1,0,0]]' ]
	[[ "$output" == *"FAIL (guest exit 1: "*"the kernel reported 1 problem line(s)"* ]]
}

@test "matrix.sh: killed, it stops its guests" {
	need_vm
	# matrix.sh itself in the background, not the matrix function: the
	# test kills that PID.
	"$H/matrix/matrix.sh" --build "$MZ_TEST_BUILD" --add "$ROOT/tests/guest:/mz/tests" \
		--guest-test hang --variants stream-y --params none \
		--timeout 600 --summary "$SUMMARY" >"$BATS_TEST_TMPDIR/out" 2>&1 3>&- &
	pid=$!
	qemu_running() { pgrep -f -- "mem-path=$MZ_CACHE/vm/" >/dev/null; }
	for _ in $(seq 240); do
		qemu_running && break
		sleep 0.5
	done
	qemu_running
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	run ! qemu_running
	grep -q 'stopping 1 running cell(s) and their guests' "$BATS_TEST_TMPDIR/out"
}

@test "matrix.sh: a hanging guest is killed and fails the matrix" {
	need_vm
	run matrix --guest-test hang --variants stream-y --params none \
		--timeout 15 --summary "$SUMMARY"
	[ "$status" -ne 0 ]
	[[ "$output" == *FAIL* ]]
}

@test "matrix.sh: a guest that runs no test fails its cell" {
	need_vm
	run matrix --guest-test true --variants stream-y --params none \
		--timeout 120 --summary "$SUMMARY"
	[ "$status" -ne 0 ]
	[[ "$output" == *"FAIL (no test ran)"* ]]
}

@test "matrix.sh: a skip the variant and boot parameter do not explain fails its cell" {
	need_vm
	# "namespace accepts 'on'" may skip only without the backend, and
	# hmm_peer as a whole only in cells with a boot parameter.  The
	# variant's traits come from the .config of the kernel its cells boot:
	# the kernel in MZ_TEST_BUILD has the backend, and a copy of its build
	# whose .config says it has none (the guest test is a fake) is a
	# variant without it, whatever its name.
	local nob=$BATS_TEST_TMPDIR/no-backend e
	mkdir "$nob"
	for e in "$MZ_TEST_BUILD"/* "$MZ_TEST_BUILD"/.[!.]*; do
		[ "${e##*/}" = .config ] || ln -s "$e" "$nob/"
	done
	grep -q '^CONFIG_MEMMAP_STREAMING=y$' "$MZ_TEST_BUILD/.config"
	sed 's/^CONFIG_MEMMAP_STREAMING=y$/# CONFIG_MEMMAP_STREAMING is not set/' \
		"$MZ_TEST_BUILD/.config" >"$nob/.config"
	skip_cells "$nob" stream-y
	[ "$cells" = 'none controls 0,none hmm_peer 1,off controls 0,off hmm_peer 0' ]
	[[ "$output" == *"stream-y with off: ok, 1 passed, 0 failed, 2 skipped (0 unexpected)"* ]]
	[[ "$output" == *"unexpected skip in hmm_peer: the whole group (set MEMMAP_INIT_HMM=1 to run hmm-tests)"* ]]
	[[ "$output" == *"     1  the hmm-tests peer suite runs in the no-parameter cell of each variant"* ]]
	[[ "$output" == *"     2  the variant has no streaming backend: \"on\" is refused"* ]]
	[[ "$output" == *"2 cells, 1 failed"* ]]
	# The same cells on the kernel with the backend, named stream-n.
	skip_cells "$MZ_TEST_BUILD" stream-n
	[ "$cells" = 'none controls 1,none hmm_peer 1,off controls 1,off hmm_peer 0' ]
	[[ "$output" == *"stream-n with off: FAIL, 1 passed, 0 failed, 2 skipped (1 unexpected)"* ]]
	[[ "$output" == *"unexpected skip in controls: namespace accepts 'on' (kernel built without CONFIG_MEMMAP_STREAMING)"* ]]
	# The expected ones are listed with matrix-skips.txt's reasons.
	[[ "$output" == *"Expected skips (harness/matrix/matrix-skips.txt), all cells:"* ]]
	[[ "$output" == *"     1  the hmm-tests peer suite runs in the no-parameter cell of each variant"* ]]
	[[ "$output" == *"2 cells, 2 failed"* ]]
}

@test "matrix.sh: a guest under TCG leaves out MZ_HMM_TCG_EXCLUDE's hmm-tests cases, each an expected skip" {
	need_vm
	[ "$MZ_ACCEL" = tcg ] || skip "the exclusion is for TCG guests; MZ_ACCEL=$MZ_ACCEL"
	# The guest test is a fake that reports the case left out whatever it
	# was given, and names its arguments.
	local L=$BATS_TEST_TMPDIR/logs
	run matrix --guest-test fake-hmm-exclude --variants stream-y:none --timeout 120 \
		--summary "$SUMMARY" --logs "$L"
	[ "$status" -eq 0 ]
	grep -qx '# fake-hmm-exclude: arguments: memmap_init devs MEMMAP_INIT_HMM=default+on MEMMAP_INIT_HMM_EXCLUDE=benchmark_thp_migration' \
		"$L/stream-y.none.out"
	[[ "$output" == *"stream-y with no parameter: ok, 1 passed, 0 failed, 1 skipped (0 unexpected)"* ]]
	[[ "$output" == *"     1  a guest under TCG leaves out the timed hmm-tests cases"* ]]
	# Left out in a cell that does not run hmm-tests, the case is a skip
	# nothing explains.
	run matrix --guest-test fake-hmm-exclude --variants stream-y:off --timeout 120 \
		--summary "$SUMMARY" --logs "$L"
	[ "$status" -ne 0 ]
	[[ "$output" == *"unexpected skip in hmm_peer"* ]]
}

@test "matrix.sh: a skip matched by its reason (why:) is expected only where listed" {
	need_vm
	# matrix-skips.txt expects "set MEMMAP_INIT_NAMESPACE=..." in the safe
	# cell, which gives the target no device, and nowhere else.
	run matrix --guest-test fake-safe --variants stream-y \
		--params none,safe --timeout 120 --summary "$SUMMARY"
	[ "$status" -ne 0 ]
	# This test's cache has no QEMU 10: the safe cell runs without its CXL memory.
	[ "$(jq -c '[.[] | [.boot_param, .group, .pass, .skip, .unexpected_skip]]' "$SUMMARY")" = \
		'[["none","data",1,1,1],["safe","(CXL)",0,1,0],["safe","data",1,1,0]]' ]
	[[ "$output" == *"stream-y with no device given (guard): ok, 1 passed, 0 failed, 1 skipped (0 unexpected)"* ]]
	[[ "$output" == *"unexpected skip in data: fsdax map=mem (set MEMMAP_INIT_NAMESPACE=namespaceX.Y"* ]]
	[[ "$output" == *"     1  the safe cell gives the target no device and no CPU: "* ]]
	[[ "$output" == *"2 cells, 1 failed"* ]]
}

@test "matrix.sh: the no-parameter cell runs every group, the others controls and backend, numa and threads the threads group; --full every group" {
	# And every cell but numa's gets the p2pdma, soft-reserved and reserved
	# memory; hmm-tests runs with the default request (and on, where the
	# variant has the backend), all three with --full.
	need_vm
	L=$BATS_TEST_TMPDIR/logs
	# Under TCG the hmm-tests runs leave out the timed case.
	local ex=
	[ "$MZ_ACCEL" != tcg ] || ex=' MEMMAP_INIT_HMM_EXCLUDE=benchmark_thp_migration'
	run matrix --guest-test fake-kselftest --variants stream-y:none+off \
		--timeout 120 --summary "$SUMMARY" --logs "$L" --append mz.fake=1
	[ "$status" -eq 0 ]
	grep -qx "# fake-kselftest: arguments: memmap_init devs MEMMAP_INIT_HMM=default+on$ex" "$L/stream-y.none.out"
	grep -qx '# fake-kselftest: arguments: memmap_init:memmap_controls.sh memmap_init:memmap_backend.sh devs MEMMAP_INIT_POLICY_ONLY=1' \
		"$L/stream-y.off.out"
	for c in none off; do
		head -n 1 "$L/stream-y.$c.log" | grep -q -- ' -device nvme,bus=pcie.0,serial=mz-cmb,drive=nvme0,cmb_size_mb=1024 '
		grep -q 'Command line: .* memmap=512M%0x100000000-1+0xefffffff memmap=512M%0x120000000-1+2' \
			"$L/stream-y.$c.log"
	done
	# --append reaches every cell, after the boot parameter.
	grep -q 'Command line: .* mz.fake=1' "$L/stream-y.none.log"
	grep -q 'Command line: .*memmap_streaming=off mz.fake=1' "$L/stream-y.off.log"
	run matrix --guest-test fake-kselftest --variants stream-y:off --full \
		--timeout 120 --summary "$SUMMARY" --logs "$L"
	[ "$status" -eq 0 ]
	grep -qx '# fake-kselftest: arguments: memmap_init devs' "$L/stream-y.off.out"
	run matrix --guest-test fake-kselftest --variants stream-y:none --full \
		--timeout 120 --summary "$SUMMARY" --logs "$L"
	[ "$status" -eq 0 ]
	grep -qx "# fake-kselftest: arguments: memmap_init devs hmm$ex" "$L/stream-y.none.out"
	# The numa cell: the threads group on a NUMA guest with isolcpus=.
	run matrix --guest-test fake-kselftest --variants stream-y:numa \
		--timeout 120 --summary "$SUMMARY" --logs "$L"
	[ "$status" -eq 0 ]
	grep -qx '# fake-kselftest: arguments: memmap_init:memmap_threads.sh devs' "$L/stream-y.numa.out"
	head -n 1 "$L/stream-y.numa.log" | grep -q -- ' -smp 5,sockets=5,cores=1,threads=1 .* -numa node,nodeid=0,cpus=0-1,memdev=ram0 .* -numa node,nodeid=1,cpus=2-4,memdev=ram1 .* -numa node,nodeid=2,memdev=ram2 '
	grep -q 'Command line: .* isolcpus=4' "$L/stream-y.numa.log"
	line=$(head -n 1 "$L/stream-y.numa.log")
	[[ "$line" != *nvme* ]] && [[ "$line" != *memmap=* ]]
	# The threads cell: the threads group alone, two vCPUs, each a socket
	# of its own (no shared last-level cache, which the guest checks), no NUMA.
	run matrix --guest-test fake-kselftest --variants stream-y:threads \
		--timeout 120 --summary "$SUMMARY" --logs "$L"
	[ "$status" -eq 0 ]
	grep -qx '# fake-kselftest: arguments: memmap_init:memmap_threads.sh devs no-shared-llc' "$L/stream-y.threads.out"
	line=$(head -n 1 "$L/stream-y.threads.log")
	[[ "$line" == *" -smp 2,sockets=2,cores=1,threads=1 "* ]] && [[ "$line" != *-numa* ]] && [[ "$line" != *nvme* ]]
}

@test "matrix.sh: a guest that stalls at boot is booted once more; the failed cell says how to rerun it" {
	need_vm
	L=$BATS_TEST_TMPDIR/logs
	# Every boot stalls: init runs /mz/tests/hang instead of the test.
	SECONDS=0
	run matrix --guest-test true --variants stream-y:on --timeout 120 \
		--boot-timeout 10 --append rdinit=/mz/tests/hang --summary "$SUMMARY" --logs "$L"
	[ "$status" -ne 0 ]
	[ "$SECONDS" -lt 60 ]
	[[ "$output" == *"stream-y with on: the guest stalled before its test started; booting it again (log: $L/stream-y.on.stall.log)"* ]]
	[[ "$output" == *"stream-y with on: FAIL (guest exit 75), 0 passed, 0 failed, 0 skipped (0 unexpected), "*" s (booted twice: the first boot stalled)"* ]]
	grep -q 'hang: sleeping forever' "$L/stream-y.on.stall.log"
	grep -q 'hang: sleeping forever' "$L/stream-y.on.log"
	[[ "$output" == *"Guests that stalled before their test started and were booted again:"*"stream-y with on: $L/stream-y.on.stall.log"* ]]
	[[ "$output" == *"stream-y on: FAIL (guest exit 75: "*"the guest stalled during boot"* ]]
	rerun="rerun: harness/matrix/matrix.sh --variants stream-y:on --timeout 120 --boot-timeout 10 --append rdinit=/mz/tests/hang --build $MZ_TEST_BUILD --guest-test true --add $ROOT/tests/guest:/mz/tests --logs $MZ_LOGS/matrix-rerun"
	[[ "$output" == *"$rerun"* ]]
}

@test "matrix.sh: the cxl cell boots QEMU 10 with CXL memory and hands it over (kselftest cxl); without QEMU 10 it is skipped, saying why" {
	need_vm
	[ -x "$REAL_QEMU_CXL" ] || skip "no $REAL_QEMU_CXL: run make qemu first (make check does)"
	L=$BATS_TEST_TMPDIR/logs
	# This test's cache has no QEMU 10, and the host's is 7.2.
	MZ_QEMU=qemu-system-x86_64 run matrix --guest-test fake-kselftest --variants stream-y:cxl+off \
		--timeout 120 --summary "$SUMMARY" --logs "$L"
	[ "$status" -eq 0 ]
	[[ "$output" == *"stream-y with CXL memory: SKIP (CXL memory needs QEMU 10 or newer"*"run 'make qemu'"* ]]
	[[ "$output" == *"Cells skipped (they need what this host lacks; the run does not fail for them):"* ]]
	[ "$(jq -c '[.[] | select(.boot_param == "cxl") | [.group, .skip, (.why | test("QEMU 10"))]]' "$SUMMARY")" = \
		'[["(cell)",1,true]]' ]
	[ ! -e "$L/stream-y.cxl.log" ]
	# The off cell ran, in the host's QEMU, without CXL memory.
	line=$(head -n 1 "$L/stream-y.off.log")
	[[ "$line" == "+ qemu-system-x86_64 "* ]] && [[ "$line" != *cxl* ]]
	# Given QEMU 10: the devices, the window, the QEMU named, the arguments.
	MZ_QEMU_CXL=$REAL_QEMU_CXL run matrix --guest-test fake-kselftest --variants stream-y:cxl \
		--timeout 120 --summary "$SUMMARY" --logs "$L"
	[ "$status" -eq 0 ]
	[[ "$output" == *"CXL cells boot QEMU 10."* ]]
	grep -q 'vm.sh: booting .*: QEMU 10\..*CXL 1G persistent, CXL 512M volatile' "$L/stream-y.cxl.err"
	line=$(head -n 1 "$L/stream-y.cxl.log")
	[[ "$line" == "+ $REAL_QEMU_CXL "* ]]
	[[ "$line" == *" -machine q35,nvdimm=on,cxl=on "* ]]
	[[ "$line" == *"persistent-memdev=cxl-pmem-mem,lsa=cxl-lsa-mem"* ]]
	[[ "$line" == *"volatile-memdev=cxl-ram-mem"* ]]
	[[ "$line" == *"cxl-fmw.0.size=1536M"* ]]
	[[ "$line" != *nvme* ]]
	grep -qx '# fake-kselftest: arguments: memmap_init:memmap_backend.sh memmap_init:memmap_controls.sh memmap_init:memmap_data.sh memmap_init:memmap_data_devices.sh memmap_init:memmap_daxctl.sh devs cxl' \
		"$L/stream-y.cxl.out"
}

# hotplug_cells BUILD CELLS: fake-hotplug in stream-y's CELLS on the kernel
# in BUILD; in cells each hotplug group's "PARAM PASS SKIP UNEXPECTED".
hotplug_cells() {
	run "$H/matrix/matrix.sh" --build "$1" --add "$ROOT/tests/guest:/mz/tests" --boot-timeout 60 \
		--guest-test fake-hotplug --variants "stream-y:$2" --timeout 120 --summary "$SUMMARY" \
		--logs "$BATS_TEST_TMPDIR/logs"
	cells=$(jq -r '[.[] | select(.group == "hotplug") |
		"\(.boot_param) \(.pass) \(.skip) \(.unexpected_skip)"] | join(",")' "$SUMMARY")
}

@test "matrix.sh: the hotplug group's comparison may never skip, its memmap_on_memory case only outside the hotplug cell" {
	need_vm
	# fake-hotplug skips both: the comparison is unexpected in every
	# cell, the memmap_on_memory case only in the hotplug cell.
	hotplug_cells "$MZ_TEST_BUILD" none
	[ "$status" -ne 0 ]
	[ "$cells" = 'none 1 2 1' ]
	[[ "$output" == *"unexpected skip in hotplug: pmem devdax: hot-added struct pages equal the slow path's (/mz/kselftest/memmap_init/lab_modules/lab_memmap_hotplug.ko not installed"* ]]
	[[ "$output" == *"     1  only the hotplug cell boots with memory_hotplug.memmap_on_memory=1"* ]]
	# The hotplug cell: QEMU 10 with CXL memory and the other cells'
	# device memory, memmap_on_memory on the command line, where the
	# memmap_on_memory case must run.
	[ -x "$REAL_QEMU_CXL" ] || skip "no $REAL_QEMU_CXL: run make qemu first (make check does)"
	MZ_QEMU_CXL=$REAL_QEMU_CXL hotplug_cells "$MZ_TEST_BUILD" hotplug
	[ "$status" -ne 0 ]
	[ "$cells" = 'hotplug 1 2 2' ]
	[[ "$output" == *"unexpected skip in hotplug: pmem devdax with memmap_on_memory: "*"(memory_hotplug.memmap_on_memory is off"* ]]
	grep -qx '# fake-hotplug: arguments: memmap_init:memmap_hotplug.sh devs cxl' \
		"$BATS_TEST_TMPDIR/logs/stream-y.hotplug.out"
	grep -q 'Command line: .* memory_hotplug.memmap_on_memory=1' "$BATS_TEST_TMPDIR/logs/stream-y.hotplug.log"
	line=$(head -n 1 "$BATS_TEST_TMPDIR/logs/stream-y.hotplug.log")
	[[ "$line" == "+ $REAL_QEMU_CXL "* ]] && [[ "$line" == *"volatile-memdev=cxl-ram-mem"* ]]
	[[ "$line" == *" -device nvme,bus=pcie.0,"* ]]
}

@test "matrix.sh: the safe cell boots with CXL memory and hands the guard 'cxl'; without QEMU 10 it runs without, its summary saying why" {
	need_vm
	[ -x "$REAL_QEMU_CXL" ] || skip "no $REAL_QEMU_CXL: run make qemu first (make check does)"
	L=$BATS_TEST_TMPDIR/logs
	# This test's cache has no QEMU 10, and the host's is 7.2.
	MZ_QEMU=qemu-system-x86_64 run matrix --guest-test fake-kselftest --variants stream-y:safe \
		--timeout 120 --summary "$SUMMARY" --logs "$L"
	[ "$status" -eq 0 ]
	[[ "$output" == *"the CXL cells are skipped, and the guard runs without CXL memory: CXL memory needs QEMU 10"* ]]
	[[ "$output" == *"stream-y with no device given (guard): ok, 2 passed"* ]]
	[[ "$output" == *"Cells skipped (they need what this host lacks; the run does not fail for them):"*"stream-y with no device given (guard), its CXL memory: CXL memory needs QEMU 10"* ]]
	[ "$(jq -c '[.[] | select(.group == "(CXL)") | [.boot_param, .skip, (.why | test("make qemu"))]]' "$SUMMARY")" = \
		'[["safe",1,true]]' ]
	line=$(head -n 1 "$L/stream-y.safe.log")
	[[ "$line" == "+ qemu-system-x86_64 "* ]] && [[ "$line" != *cxl* ]]
	[[ "$line" == *" -device nvme,bus=pcie.0,"* ]]
	grep -qx '# fake-kselftest: arguments: ' "$L/stream-y.safe.out"
	# Given QEMU 10: the NVMe device stays on the root bus beside the CXL
	# host bridge, and the guard is told to find the CXL memory.
	MZ_QEMU_CXL=$REAL_QEMU_CXL run matrix --guest-test fake-kselftest --variants stream-y:safe \
		--timeout 120 --summary "$SUMMARY" --logs "$L"
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | select(.group == "(CXL)")] | length' "$SUMMARY")" = 0 ]
	line=$(head -n 1 "$L/stream-y.safe.log")
	[[ "$line" == "+ $REAL_QEMU_CXL "* ]]
	[[ "$line" == *"volatile-memdev=cxl-ram-mem"* ]] && [[ "$line" == *" -device nvme,bus=pcie.0,"* ]]
	grep -qx '# fake-kselftest: arguments: cxl' "$L/stream-y.safe.out"
}
