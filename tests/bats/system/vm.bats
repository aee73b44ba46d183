#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# harness/vm/vm.sh booting the kernel in MZ_TEST_BUILD (skipped without
# it) with an initramfs made once per file with the guest test fixtures
# of tests/guest/ added (MZ_KSRC or 'tree.sh apply' gives the kernel tree
# for ktap_helpers.sh), under MZ_ACCEL (default tcg):
#
#   MZ_TEST_BUILD=~/.cache/memmap-zone-device/build/series-stream-y bats tests/bats/system/vm.bats
#
# vm.sh's host-side tests (arguments, QEMU command lines, fake QEMU) are
# in tests/bats/harness.bats.  Every test runs with MZ_CACHE in its own
# temporary directory.

# shellcheck disable=SC2154 # $stderr is set by run --separate-stderr
bats_require_minimum_version 1.5.0
load ../common
load vm_helper

setup_file() {
	# Guests take both CPUs under TCG: one test at a time (bats --jobs).
	# shellcheck disable=SC2034 # read by bats
	BATS_NO_PARALLELIZE_WITHIN_FILE=true
	mz_vm_initramfs --add "$ROOT/tests/guest:/mz/tests"
}

setup() {
	mz_test_dirs
	export MZ_ACCEL=${MZ_ACCEL:-tcg}
	need_vm
}

vm() {
	"$H/vm/vm.sh" --nvdimms 0 --log "$T/console.log" "$@"
}

@test "vm: guest 'true' passes" {
	run -0 vm --timeout 120 "$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" true
	[[ "$output" == *"test true passed: MZ-EXIT 0"* ]]
}

@test "vm: guest 'fail' makes vm.sh fail" {
	run -1 vm --timeout 120 "$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" fail
	[[ "$output" == *"fail: failing on purpose"* ]]
	[[ "$output" == *"MZ-EXIT 1"* ]]
}

@test "vm: a kernel WARNING fails the run and is shown" {
	run -1 vm --timeout 120 "$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" warn
	[[ "$output" == *"WARNING: CPU: 0 PID: 1 at fake"* ]]
	[[ "$output" == *"the kernel reported 1 problem line(s)"* ]]
}

@test "vm: a test's own WARNING: line is not a kernel report" {
	run -0 vm --timeout 120 "$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" warn user
	[[ "$output" == *"namespace_check: WARNING: a tool says so"* ]]
	[[ "$output" != *"kernel reported"* ]]
}

@test "vm: a kernel message printed while the test writes a line does not split it" {
	# The console would show "# selftests: memmap_init: [ 5.1] tsc: ...
	# MHz" and "memmap_controls.sh" on the next line; ktap-count.awk would
	# then take "2445.404 MHz" for the group.
	run -0 vm --timeout 120 "$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" warn split
	grep -q '^\[ *[0-9.]*\] tsc: Refined TSC clocksource calibration: 2445.404 MHz' "$T/console.log"
	[[ "$output" == *$'\n# selftests: memmap_init: memmap_controls.sh\n'* ]]
	[[ "$output" != *"MHz"* ]]
	# The console log has the markers; the test's output has them and
	# everything the test printed.
	grep -q 'MZ-TEST: warn split' "$T/console.log"
	grep -q '^MZ-TEST: warn split' "$T/console.test.log"
	grep -q '^# selftests: memmap_init: memmap_controls.sh' "$T/console.test.log"
}

@test "vm: when init cannot use ttyS1, the test's output and status come from the console" {
	# A later mz.out names a port the guest does not have: init says so
	# and writes everything to the console, and vm.sh reads it there as
	# it did before the test's output had a port of its own.
	run -1 vm --timeout 120 --append mz.out=ttyS9 "$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" fail
	[[ "$output" == *"the test's output went to the console, not to ttyS1 (init: cannot write to /dev/ttyS9"* ]]
	[[ "$output" == *"fail: failing on purpose"* ]]
	[[ "$output" == *"MZ-EXIT 1"* ]]
	[ ! -s "$T/console.test.log" ]
}

@test "vm: a poisoned struct page dumped by CONFIG_DEBUG_VM fails the run" {
	run -1 vm --timeout 120 "$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" warn poisoned
	[[ "$output" == *"is uninitialized and poisoned"* ]]
	[[ "$output" == *"the kernel reported 1 problem line(s)"* ]]
}

@test "vm: a hanging guest is killed at the timeout and reported" {
	SECONDS=0
	run -1 vm --timeout 10 "$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" hang
	[ "$SECONDS" -lt 25 ]
	[[ "$output" == *"timed out after 10s"* ]]
	[[ "$output" == *"last 30 console lines"* ]]
	[[ "$output" == *"hang: sleeping forever"* ]]
}

@test "vm: a guest that stalls before its test starts exits 75 at the boot timeout" {
	# init never starts the test: /mz/tests/hang runs as init instead.
	# The guest reaches init in 2-3 s under TCG on an idle 2-core host.
	SECONDS=0
	run -75 vm --timeout 120 --boot-timeout 10 --append rdinit=/mz/tests/hang \
		"$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" true
	[ "$SECONDS" -lt 25 ]
	[[ "$output" == *"timeout 120s (boot 10s)"* ]]
	[[ "$output" == *"the guest stalled during boot: no MZ-TEST line after 10s; nothing ran, so booting again is safe"* ]]
	[[ "$output" == *"hang: sleeping forever"* ]]
	# A run timeout shorter than the boot timeout ends the boot first: the
	# guest still stalled before its test, and is still safe to boot again.
	SECONDS=0
	run -75 vm --timeout 10 --append rdinit=/mz/tests/hang \
		"$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" true
	[ "$SECONDS" -lt 25 ]
	[[ "$output" == *"timeout 10s (boot 10s)"* ]]
	[[ "$output" == *"the guest stalled during boot: no MZ-TEST line after 10s"* ]]
	# The boot timeout ends once the test has started: the test hangs
	# for 10 s or more past it.  The whole run of the "true" test takes 5 s
	# under TCG on an idle 2-core host; 15 s leave room for a busy one (a
	# 5 s boot timeout failed once while other work ran).
	SECONDS=0
	run -1 vm --timeout 25 --boot-timeout 15 "$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" hang
	[ "$SECONDS" -ge 25 ]
	[[ "$output" == *"timed out after 25s"* ]]
}

@test "vm: --no-shared-llc gives each CPU a socket; kselftest no-shared-llc checks the guest's sched domains" {
	# A stand-in for the kselftest tree: the check runs before it.
	mkdir -p "$T/ksft"
	printf '#!/bin/sh\necho "TAP version 13"\necho "1..0"\n' >"$T/ksft/run_kselftest.sh"
	chmod +x "$T/ksft/run_kselftest.sh"
	"$H/vm/initramfs.sh" --add "$ROOT/tests/guest:/mz/tests" --add "$T/ksft:/mz/kselftest" \
		"$MZ_TEST_BUILD" "$T/i.cpio.gz" >/dev/null 2>&1
	run -0 vm --timeout 120 --no-shared-llc "$MZ_TEST_BUILD" "$T/i.cpio.gz" kselftest no-shared-llc
	head -n 1 "$T/console.log" | grep -q -- ' -smp 2,sockets=2,cores=1,threads=1 '
	[[ "$output" == *"# kselftest: no-shared-llc: none of "*" sched domains has SD_SHARE_LLC"* ]]
	# QEMU's default topology puts both CPUs in one socket, sharing its
	# last-level cache: the check fails there.
	rm -f "$T/console.log"
	run -1 vm --timeout 120 "$MZ_TEST_BUILD" "$T/i.cpio.gz" kselftest no-shared-llc
	[[ "$output" == *"has SD_SHARE_LLC: CPUs share a last-level cache"* ]]
}

@test "vm: --dry-run prints the commands, which boot when pasted; the log starts with QEMU's" {
	run -0 --separate-stderr vm --timeout 120 --dry-run --append 'mz.note=a' \
		"$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" -- true
	# The console log's directory first, then QEMU's command line.
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "mkdir -p $T" ]
	cmd=${lines[1]}
	[[ "$cmd" == "qemu-system-x86_64 -machine q35,nvdimm=on -accel ${MZ_ACCEL:-tcg} "* ]]
	[[ "$cmd" == *" -append 'console=ttyS0 panic=-1 printk.devkmsg=on mz.test=true mz.out=ttyS1 mz.note=a' "* ]]
	[[ "$cmd" == *" -chardev file,id=console,path=$T/console.log,append=on -serial chardev:console -chardev file,id=test,path=$T/console.test.log -serial chardev:test" ]]
	# Nothing booted.
	[ ! -e "$T/console.log" ]
	[ ! -e "$T/console.test.log" ]
	# Pasted into a shell, it boots and the test runs.
	timeout 120 bash -ec "$output" </dev/null >/dev/null 2>&1
	grep -q 'MZ-EXIT: 0' "$T/console.log"
	grep -q '^MZ-EXIT: 0' "$T/console.test.log"
	# A real run writes the same command as the log's first line.
	run -0 --separate-stderr vm --timeout 120 --append 'mz.note=a' "$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" -- true
	[ "$(head -n 1 "$T/console.log")" = "+ $cmd" ]
	# Then the QEMU that ran, also in the progress line.
	v=$(qemu-system-x86_64 --version | head -n 1)
	[ "$(sed -n 2p "$T/console.log")" = "# QEMU ${v#QEMU emulator version }" ]
	[[ "$stderr" == *": QEMU ${v#QEMU emulator version }, accel "* ]]
	# --shell --dry-run: the interactive command.
	run -0 vm --dry-run --shell "$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS"
	[[ "$output" == *" -append 'console=ttyS0 panic=-1 printk.devkmsg=on' -serial mon:stdio" ]]
}

@test "vm: an unknown guest test exits 127" {
	run -127 vm --timeout 120 "$MZ_TEST_BUILD" "$MZ_TEST_INITRAMFS" nosuchtest
	[[ "$output" == *"no test /mz/tests/nosuchtest"* ]]
}
