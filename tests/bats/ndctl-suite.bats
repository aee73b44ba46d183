#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Tests of make check-ndctl's pieces that need no guest: the guest runner
# (guest/tests/ndctl-suite) on a fake meson plan, the journalctl stand-in
# (guest/bin/journalctl) on a fake dmesg, ndctl-compare.sh's verdicts on
# fake run outputs, check-ndctl.sh's and build-nfit-test.sh's argument
# checks, vm.sh's labelled NVDIMM options, initramfs.sh --depmod-conf and
# --add over a busybox applet, and verify-config.sh with a fragment that
# overrides another.
#
#   bats tests/bats/ndctl-suite.bats
#
# The whole suite in guests is make check-ndctl (harness/peers/check-ndctl.sh).

# shellcheck disable=SC2154 # $stderr is set by run --separate-stderr
bats_require_minimum_version 1.5.0
load common

setup() {
	mz_test_dirs
}

# plan: a meson plan in $T/plan.json, {"builddir", "tests"}, with tests
# that pass, skip (77), fail, time out, and check their environment and
# working directory as meson gives them.
plan() {
	mkdir -p "$T/b/test" "$T/wd"
	cat >"$T/b/test/t.sh" <<-'EOF'
		#!/bin/bash
		echo "out of $1"
		case "$1" in
		pass) exit 0 ;;
		skip) echo "kernel 7.3.4: no such device"; set -x; exit 77 ;;
		fail) echo oops; exit 1 ;;
		hang) sleep 30 ;;
		env) [ "$FOO" = "bar baz" ] && [ -n "$MALLOC_PERTURB_" ] && [ "$PWD" = "$2" ] ;;
		esac
	EOF
	chmod +x "$T/b/test/t.sh"
	jq -n --arg b "$T/b" --arg wd "$T/wd" '
		def t($n; $s; $arg; $to; $wd):
			{name: $n, suite: [$s], timeout: $to, workdir: $wd, protocol: "exitcode",
			 cmd: ([$b + "/test/t.sh", $arg] + (if $arg == "env" then [$wd // $b] else [] end)),
			 env: {FOO: "bar baz"}};
		{builddir: $b, tests: [
			t("p1"; "ndctl:ndctl"; "pass"; 600; null),
			t("s1"; "ndctl:ndctl"; "skip"; 600; null),
			t("f1"; "ndctl:dax"; "fail"; 600; null),
			t("h1"; "ndctl:dax"; "hang"; 1; null),
			t("e1"; "ndctl:ndctl"; "env"; 600; null),
			t("e2"; "ndctl:ndctl"; "env"; 600; $wd),
			t("c1"; "ndctl:cxl"; "pass"; 600; null),
			t("o1"; "other:suite"; "pass"; 600; null)]}' >"$T/plan.json"
	# A dmesg for the journalctl a failed test's kernel messages come from.
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "[    0.000000] Linux version"\n' >"$T/bin/dmesg"
	chmod +x "$T/bin/dmesg"
}

suite() { NDCTL_SUITE_PLAN=$T/plan.json PATH=$T/bin:$PATH "$ROOT/guest/tests/ndctl-suite" "$@"; }

@test "ndctl-suite: meson's verdicts from exit codes, KTAP out, the default suites only" {
	plan
	run -0 suite
	[ "${lines[0]}" = "TAP version 13" ] && [ "${lines[1]}" = "1..7" ]
	for l in "ok 1 p1" "ok 2 s1 # SKIP kernel 7.3.4: no such device" "not ok 3 f1 # exit 1" "not ok 4 h1 # timed out after 1 s" \
		"ok 5 e1" "ok 6 e2" "ok 7 c1" "# out of fail" "# oops"; do
		printf '%s\n' "${lines[@]}" | grep -qx -- "$l" || { echo "missing: $l"; false; }
	done
	[[ "$output" == *"# ndctl-suite: totals: pass:4 fail:2 skip:1 in "* ]]
	# A skip says what the test said last, its shell trace aside.
	printf '%s\n' "${lines[@]}" | grep -qx -- '# + exit 77'
	# The test's output is all behind "# ", a suite not named is not run.
	if printf '%s\n' "${lines[@]}" | grep -q -e '^out of' -e o1; then false; fi
	# A failure brings the kernel's messages of its run.
	[[ "$output" == *"# ndctl-suite: f1: the kernel's messages of its run:"* ]]
}

@test "ndctl-suite: suites, only= and multiplier= select and scale" {
	plan
	run -0 suite ndctl:cxl
	[ "${lines[1]}" = "1..1" ] && [[ "$output" == *"ok 1 c1"* ]]
	run -0 suite only=p1+f1
	[ "${lines[1]}" = "1..2" ] && [[ "$output" == *"not ok 2 f1"* ]]
	run -0 suite only=h1 multiplier=2
	[[ "$output" == *"h1 (timeout 2 s)"* ]] && [[ "$output" == *"timed out after 2 s"* ]]
	run -1 suite only=nosuch
	[[ "$output" == *"no test of the suites"* ]]
	run -1 suite multiplier=0
	run -1 suite bogus=1
	# cxl_test=1 is the one value; outside a guest it loads nothing and
	# installs no uevent helper (the tests run as without it).
	run -1 suite cxl_test=2
	[[ "$output" == *"unknown setting 'cxl_test=2'"* ]]
	run -0 suite ndctl:cxl cxl_test=1
	[ "${lines[1]}" = "1..1" ] && [[ "$output" == *"ok 1 c1"* ]]
	NDCTL_SUITE_PLAN=$T/none run -1 "$ROOT/guest/tests/ndctl-suite"
	[[ "$output" == *"no $T/none"* ]]
}

@test "journalctl (guest): the kernel messages of the last N seconds, newest first; nothing else" {
	mkdir -p "$T/bin"
	read -r up _ </proc/uptime
	old=$(awk -v u="$up" 'BEGIN { printf "%.6f", u - 100 }')
	new1=$(awk -v u="$up" 'BEGIN { printf "%.6f", u - 5 }')
	new2=$(awk -v u="$up" 'BEGIN { printf "%.6f", u - 1 }')
	printf '#!/bin/sh\nprintf "[%%s] old\\n[%%s] first\\n[%%s] second\\n" %s %s %s\n' \
		"$old" "$new1" "$new2" >"$T/bin/dmesg"
	chmod +x "$T/bin/dmesg"
	PATH=$T/bin:$PATH run -0 "$ROOT/guest/bin/journalctl" -r -k --since -10s
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == *second ]] && [[ "${lines[1]}" == *first ]]
	PATH=$T/bin:$PATH run -0 "$ROOT/guest/bin/journalctl" -k --since=-200s
	[ "${#lines[@]}" -eq 3 ] && [[ "${lines[0]}" == *old ]]
	run -2 "$ROOT/guest/bin/journalctl" -r --since -10s
	[[ "$output" == *"only '-r -k --since -Ns' is supported"* ]]
	run -2 "$ROOT/guest/bin/journalctl" -k --since yesterday
	run -2 "$ROOT/guest/bin/journalctl" -k -b
}

# runs RUN:RESULTS...: fake outputs in $T/logs, one per run, RESULTS as
# NAME=pass|skip|fail,...; names.txt lists a, b, c, with suites as
# check-ndctl.sh writes them (a and b in ndctl:ndctl, c in ndctl:cxl).
runs() {
	mkdir -p "$T/logs"
	printf 'a ndctl:ndctl\nb ndctl:ndctl\nc ndctl:cxl\n' >"$T/logs/names.txt"
	local spec r n=0 kv
	for spec in "$@"; do
		r=${spec%%:*} n=0
		{
			echo "TAP version 13"
			IFS=, read -r -a kv <<<"${spec#*:}"
			for e in "${kv[@]}"; do
				n=$((n + 1))
				case "${e#*=}" in
				pass) echo "ok $n ${e%%=*}" ;;
				skip) echo "ok $n ${e%%=*} # SKIP kernel $r: no such device" ;;
				fail) echo "not ok $n ${e%%=*} # exit 1" ;;
				esac
			done
			echo "# ndctl-suite: totals: pass:0 fail:0 skip:0 in 1 s"
		} >"$T/logs/$r.out"
		echo "[    1.0] all quiet" >"$T/logs/$r.log"
		echo "42 tcg" >"$T/logs/$r.info"
	done
	printf '# expected\nb skip no such device here\nc fail needs hardware the guest lacks\n' >"$T/expect"
}

compare() {
	"$H/peers/ndctl-compare.sh" --runs "$1" --names "$T/logs/names.txt" --expect "$T/expect" --logs "$T/logs"
}

@test "ndctl-compare.sh: the series as base, base as expected: passes, table and JSON" {
	runs base:a=pass,b=skip,c=fail off:a=pass,b=skip,c=fail on:a=pass,b=skip,c=fail
	echo 'ndctl:cxl 12 not selected (--suites)' >"$T/logs/not-run.txt"
	run -0 --separate-stderr compare base,off,on
	grep -qx 'not run: suite ndctl:cxl (12 tests): not selected (--suites)' "$T/logs/table.txt"
	jq -e '.not_run == [{suite: "ndctl:cxl", tests: 12, reason: "not selected (--suites)"}]' "$T/logs/summary.json"
	[[ "$stderr" == *"every test as on the base (7.3.4 with patches/fixes/)"* ]]
	grep -qE '^a +pass +pass +pass *$' "$T/logs/table.txt"
	grep -qE '^c +FAIL +FAIL +FAIL +expected on base: fail \(needs hardware the guest lacks\)$' "$T/logs/table.txt"
	grep -qE '^seconds +42 +42 +42 *$' "$T/logs/table.txt"
	jq -e '.problems == [] and (.results | length) == 9 and .runs[0].seconds == 42 and .runs[0].accel == "tcg"' \
		"$T/logs/summary.json"
	jq -e '[.results[] | select(.test == "c")][0] | .expected_on_base == "fail" and .reason != ""' \
		"$T/logs/summary.json"
	# Each skip with what the test said, once per saying, in the table and
	# the JSON; no "said" for a result that is not a skip.
	grep -qx 'skipped, with what the test said last:' "$T/logs/table.txt"
	# The runs' kernels have releases of their own: the table groups the
	# sayings without them, the JSON keeps them.
	grep -qx '  b (base,off,on): kernel RELEASE: no such device' "$T/logs/table.txt"
	jq -e '[.results[] | select(.test == "b")][0].said == "kernel base: no such device"' "$T/logs/summary.json"
	jq -e '[.results[] | select(.test == "a")][0] | has("said") | not' "$T/logs/summary.json"
	# Each suite's counts per run.
	grep -qE '^suite \(pass/fail/skip\) +base +off +on *$' "$T/logs/table.txt"
	grep -qE '^ndctl:ndctl +1/0/1 +1/0/1 +1/0/1 *$' "$T/logs/table.txt"
	grep -qE '^ndctl:cxl +0/1/0 +0/1/0 +0/1/0 *$' "$T/logs/table.txt"
	jq -e '.counts | length == 6 and (map(select(.suite == "ndctl:cxl" and .run == "on"))[0] | .fail == 1 and .pass == 0)' \
		"$T/logs/summary.json"
	# Each result names its suite (peer-summary.py groups skips by it).
	jq -e '[.results[] | select(.run == "on")] | map(.suite) == ["ndctl:ndctl", "ndctl:ndctl", "ndctl:cxl"]' \
		"$T/logs/summary.json"
}

@test "ndctl-compare.sh: a test passing on base and failing on the series fails the comparison" {
	runs base:a=pass,b=skip,c=fail off:a=fail,b=skip,c=fail
	run -1 --separate-stderr compare base,off
	[[ "$stderr" == *"a: passes on base, fail on off"* ]]
	grep -qE '^a +pass +FAIL *$' "$T/logs/table.txt"
	jq -e '.problems == ["a: passes on base, fail on off"]' "$T/logs/summary.json"
}

@test "ndctl-compare.sh: skips must match base's, both ways" {
	runs base:a=pass,b=skip,c=fail on:a=skip,b=pass,c=fail
	run -1 --separate-stderr compare base,on
	[[ "$stderr" == *"a: passes on base, skip on on"* ]]
	[[ "$stderr" == *"b: skipped on base, pass on on (the sets of skips differ)"* ]]
}

@test "ndctl-compare.sh: base must match the expectations; a stale entry fails" {
	runs base:a=fail,b=skip,c=fail off:a=fail,b=skip,c=fail
	run -1 --separate-stderr compare base,off
	[[ "$stderr" == *"a: fail on base, expected pass"* ]]
	runs base:a=pass,b=skip,c=pass off:a=pass,b=skip,c=pass
	printf 'b skip no such device here\nc fail needs hardware\n' >"$T/expect"
	run -1 --separate-stderr compare base,off
	[[ "$stderr" == *"c: passes on base, but $T/expect lists it as 'fail' (needs hardware): drop the stale entry"* ]]
	jq -e '.problems | length == 1' "$T/logs/summary.json"
	# Held to the list without base, a series run's pass is stale too.
	run -1 --separate-stderr compare off
	[[ "$stderr" == *"c: passes on off, but $T/expect lists it as 'fail'"* ]]
	printf 'b skip no such device here\n' >"$T/expect"
	run -0 compare base,off
}

@test "ndctl-compare.sh: without base, a series run is held to the expectations" {
	runs off:a=fail,b=skip,c=fail
	run -1 --separate-stderr compare off
	[[ "$stderr" == *"a: fail on off, expected pass"* ]]
	runs off:a=pass,b=fail,c=fail
	run -1 --separate-stderr compare off
	[[ "$stderr" == *"b: fail on off, expected skip (no such device here)"* ]]
	runs off:a=pass,b=skip,c=fail
	run -0 compare off
}

@test "ndctl-compare.sh: a \"new\" test (of what the series adds) skips on base and must pass on every series run" {
	runs base:a=pass,b=skip,c=skip off:a=pass,b=skip,c=pass on:a=pass,b=skip,c=pass
	printf 'b skip no such device here\nc new the base kernel has no such attribute\n' >"$T/expect"
	run -0 --separate-stderr compare base,off,on
	grep -qE '^c +skip +pass +pass +new: skipped on base \(the base kernel has no such attribute\), passes on the series$' \
		"$T/logs/table.txt"
	jq -e '[.results[] | select(.test == "c")] | map(.expected) == ["skip", "pass", "pass"]' "$T/logs/summary.json"
	# A series run that skips it, or fails it, fails the comparison.
	runs base:a=pass,b=skip,c=skip off:a=pass,b=skip,c=skip on:a=pass,b=skip,c=fail
	printf 'b skip no such device here\nc new the base kernel has no such attribute\n' >"$T/expect"
	run -1 --separate-stderr compare base,off,on
	[[ "$stderr" == *"c: skip on off, expected pass (the base kernel has no such attribute)"* ]]
	[[ "$stderr" == *"c: fail on on, expected pass (the base kernel has no such attribute)"* ]]
	# Held to the list without base too.
	run -1 --separate-stderr compare off
	[[ "$stderr" == *"c: skip on off, expected pass"* ]]
	# A base that passes it has what the series adds: a stale entry.
	runs base:a=pass,b=skip,c=pass off:a=pass,b=skip,c=pass
	printf 'b skip no such device here\nc new the base kernel has no such attribute\n' >"$T/expect"
	run -1 --separate-stderr compare base,off
	[[ "$stderr" == *"c: passes on base, but $T/expect lists it as 'new' (the base kernel has no such attribute): drop the stale entry"* ]]
}

@test "ndctl-compare.sh: a missing result, and kernel reports only on the series, fail" {
	runs base:a=pass,b=skip,c=fail off:a=pass,c=fail
	run -1 --separate-stderr compare base,off
	[[ "$stderr" == *"b: no result in run off"* ]]
	grep -qE '^ndctl:ndctl +1/0/1 +1/0/0 \(1 missing\) *$' "$T/logs/table.txt"
	jq -e '.counts[] | select(.suite == "ndctl:ndctl" and .run == "off") | .missing == 1' "$T/logs/summary.json"
	runs base:a=pass,b=skip,c=fail off:a=pass,b=skip,c=fail
	# ndctl's own "WARNING:" output is not a kernel report.
	printf '# namespace3.0: namespace_check: WARNING: interruption may cause\n' >>"$T/logs/off.log"
	run -0 compare base,off
	printf '[   2.0] WARNING: CPU: 0 PID: 1 at mm/x.c:1\n' >>"$T/logs/off.log"
	run -1 --separate-stderr compare base,off
	[[ "$stderr" == *"run off: 1 kernel report line(s) on the console, base none"* ]]
	printf '[   2.0] WARNING: CPU: 0 PID: 1 at drivers/nvdimm/x.c:1\n' >>"$T/logs/base.log"
	run -0 compare base,off
}

@test "ndctl-compare.sh, check-ndctl.sh, build-nfit-test.sh: argument and input errors" {
	run -2 "$H/peers/ndctl-compare.sh"
	[ "$output" = "ndctl-compare.sh: error: --runs is needed (see --help)" ]
	run -2 "$H/peers/ndctl-compare.sh" --runs base,bogus --names x --expect x --logs x
	[[ "$output" == "ndctl-compare.sh: error: --runs 'base,bogus': want R,R ("* ]]
	runs base:a=pass,b=skip,c=fail
	printf 'a maybe why\n' >"$T/expect"
	run -1 compare base
	[[ "$output" == *"'a maybe': the result must be fail, skip or new"* ]]
	printf 'a fail\n' >"$T/expect"
	run -1 compare base
	[[ "$output" == *"a: no reason given"* ]]
	run -1 "$H/peers/ndctl-compare.sh" --runs off --names "$T/logs/names.txt" --expect "$T/expect" --logs "$T/logs"
	[[ "$output" == *"off.out: no such file (run off did not run)"* ]]
	run -2 "$H/peers/check-ndctl.sh" --runs base,sometimes
	[[ "$output" == "check-ndctl.sh: error: --runs 'base,sometimes': want R,R (base, off or on: "*"), of the form "*" (see --help)" ]]
	run -2 "$H/peers/check-ndctl.sh" --suites ndctl
	run -2 "$H/peers/check-ndctl.sh" --multiplier 0
	run -2 "$H/peers/check-ndctl.sh" --only 'a b'
	run -2 "$H/peers/check-ndctl.sh" extra
	[ "$output" = "check-ndctl.sh: error: unexpected argument 'extra' (see --help)" ]
	run -2 "$H/peers/check-ndctl.sh" --expect "$T/none"
	[[ "$output" == *"--expect '$T/none': no such file"* ]]
	run -2 "$H/peers/check-ndctl.sh" --series-build "$T"
	[[ "$output" == *"--series-build '$T': want a finished build-kernel.sh build"* ]]
	run -2 "$H/build/build-nfit-test.sh"
	mkdir -p "$T/notbuilt"
	run -1 "$H/build/build-nfit-test.sh" "$T/notbuilt"
	[[ "$output" == *"holds no finished kernel build"* ]]
	run -2 "$H/build/build-ndctl.sh" --bogus
}

@test "build-nfit-test.sh: a kernel without libnvdimm or the CXL drivers as modules is refused, naming the variant" {
	mkdir -p "$T/build/include/config" "$T/src/tools/testing/nvdimm"
	echo 0.0.1-fake >"$T/build/include/config/kernel.release"
	echo abc >"$T/build/.mz-built"
	ln -s "$T/src" "$T/build/source"
	printf 'CONFIG_LIBNVDIMM=m\n' >"$T/build/.config"
	run -1 "$H/build/build-nfit-test.sh" "$T/build"
	[[ "$output" == *"does not lead to a kernel tree with tools/testing/cxl"* ]]
	mkdir -p "$T/src/tools/testing/cxl"
	printf 'CONFIG_LIBNVDIMM=y\n' >"$T/build/.config"
	run -1 "$H/build/build-nfit-test.sh" "$T/build"
	[[ "$output" == *"does not have CONFIG_LIBNVDIMM=m"*"Kconfig.fragments/nfit.config"* ]]
	# The nfit variant of a tree before the CXL drivers were in base.config.
	for s in LIBNVDIMM BLK_DEV_PMEM ND_BTT ND_PFN ACPI_NFIT DEV_DAX DEV_DAX_PMEM CXL_BUS; do
		echo "CONFIG_$s=m"
	done >"$T/build/.config"
	run -1 "$H/build/build-nfit-test.sh" "$T/build"
	[[ "$output" == *"does not have CONFIG_CXL_ACPI=m, which nfit_test and cxl_test need"* ]]
	for s in CXL_ACPI CXL_PMEM CXL_MEM CXL_PORT DEV_DAX_HMEM; do echo "CONFIG_$s=m"; done >>"$T/build/.config"
	run -1 "$H/build/build-nfit-test.sh" "$T/build"
	[[ "$output" == *"does not have CONFIG_CXL_REGION=y, which cxl_test needs"* ]]
}

@test "vm.sh --label-size, --nvdimm-align: labelled, aligned NVDIMMs whose regions keep their size" {
	mkdir -p "$T/build/arch/x86/boot"
	echo 'fake kernel' >"$T/build/arch/x86/boot/bzImage"
	: >"$T/initrd"
	export MZ_VM_DIR=$T/vm
	run -0 --separate-stderr "$H/vm/vm.sh" --accel tcg --dry-run --nvdimms 2 --nvdimm-size 8G \
		--label-size 2M --nvdimm-align 1G --mem 12G "$T/build" "$T/initrd" true
	for i in 0 1; do
		a=" -object memory-backend-file,id=mem$i,share=on,mem-path=$T/vm/nvdimm$i.img,size=8390656K,align=1G "
		[[ "$output" == *"$a"* ]] || { echo "missing:$a"; false; }
		[[ "$output" == *" -device nvdimm,id=nv$i,memdev=mem$i,label-size=2M "* ]]
		# The file, label area included, as the dry run would make it.
		[[ "$output" == *$'\ntruncate -s '$(((8 * 1024 + 2) * 1024))"K $T/vm/nvdimm$i.img"$'\n'* ]]
	done
	[ ! -e "$T/vm" ]
	# Room for both, their labels and alignment: 12G + 2 x (8G + 2M + 1G) + 1G.
	[[ "$output" == *" -m 12288M,slots=4,maxmem=31748M "* ]]
	run -2 "$H/vm/vm.sh" --accel tcg --label-size 100K "$T/build" "$T/initrd" true
	[[ "$output" == *"multiple of 128K"* ]]
	run -2 "$H/vm/vm.sh" --accel tcg --label-size 2G "$T/build" "$T/initrd" true
	run -2 "$H/vm/vm.sh" --accel tcg --nvdimm-align 4K "$T/build" "$T/initrd" true
}

# A fake build directory and kernel tree, enough for initramfs.sh.
fake_build() {
	mkdir -p "$T/build/include/config" "$T/build/modroot/lib/modules/0.0.1-fake/kernel/drivers" \
		"$T/build/modroot/lib/modules/0.0.1-fake/extra" "$T/ksrc/tools/testing/selftests/kselftest"
	echo 0.0.1-fake >"$T/build/include/config/kernel.release"
	echo '# fake ktap helpers' >"$T/ksrc/tools/testing/selftests/kselftest/ktap_helpers.sh"
	export MZ_KSRC=$T/ksrc
}

@test "initramfs.sh --add over a busybox applet replaces the link, never the host's busybox" {
	fake_build
	before=$(sha256sum </usr/bin/busybox)
	run -0 --separate-stderr "$H/vm/initramfs.sh" --add "$(command -v dd):/usr/bin/dd" \
		--add "$(command -v sort):/usr/bin/" "$T/build" "$T/out.cpio.gz"
	[ "$(sha256sum </usr/bin/busybox)" = "$before" ]
	mkdir "$T/x" && (cd "$T/x" && zcat "$T/out.cpio.gz" | cpio -id --quiet usr/bin/dd usr/bin/sort)
	[ ! -L "$T/x/usr/bin/dd" ] && cmp "$T/x/usr/bin/dd" "$(command -v dd)"
	[ ! -L "$T/x/usr/bin/sort" ] && cmp "$T/x/usr/bin/sort" "$(command -v sort)"
}

@test "initramfs.sh --depmod-conf: depmod follows that file, which is in /etc/depmod.d" {
	fake_build
	m=$T/build/modroot/lib/modules/0.0.1-fake
	# The same tiny module in kernel/drivers/ and in extra/: an object
	# with a .modinfo section is all depmod reads.
	echo 'int x;' | gcc -c -x c - -o "$T/d.o"
	printf 'license=GPL\0name=dummy\0' >"$T/modinfo"
	objcopy --add-section .modinfo="$T/modinfo" --set-section-flags .modinfo=alloc "$T/d.o" "$m/extra/dummy.ko"
	cp "$m/extra/dummy.ko" "$m/kernel/"
	dep() {
		rm -rf "$T/x" && mkdir "$T/x" &&
			(cd "$T/x" && zcat "$T/out.cpio.gz" | cpio -id --quiet 'etc/depmod.d/*' \
				'usr/lib/modules/0.0.1-fake/modules.dep')
	}
	for where in kernel extra; do
		printf 'override dummy * %s\n' "$where" >"$T/nfit.conf"
		run -0 --separate-stderr "$H/vm/initramfs.sh" --depmod-conf "$T/nfit.conf" "$T/build" "$T/out.cpio.gz"
		dep
		cmp "$T/x/etc/depmod.d/nfit.conf" "$T/nfit.conf"
		grep -qx "$where/dummy.ko:" "$T/x/usr/lib/modules/0.0.1-fake/modules.dep"
	done
	run -1 "$H/vm/initramfs.sh" --depmod-conf "$T/none" "$T/build" "$T/out.cpio.gz"
	[[ "$output" == *"--depmod-conf $T/none: no such file"* ]]
}

@test "verify-config.sh: a later fragment overrides an earlier one (nfit.config over base.config)" {
	printf 'CONFIG_LIBNVDIMM=m\nCONFIG_A=y\n' >"$T/config"
	printf 'CONFIG_LIBNVDIMM=y\nCONFIG_A=y\n' >"$T/base"
	printf 'CONFIG_LIBNVDIMM=m\n' >"$T/nfit"
	run -0 "$H/build/verify-config.sh" "$T/config" "$T/base" "$T/nfit"
	run -1 "$H/build/verify-config.sh" "$T/config" "$T/nfit" "$T/base"
	[[ "$output" == *"CONFIG_LIBNVDIMM=y (got: CONFIG_LIBNVDIMM=m)"* ]]
	printf '# CONFIG_A is not set\n' >"$T/off"
	run -1 "$H/build/verify-config.sh" "$T/config" "$T/base" "$T/off"
	[[ "$output" == *"CONFIG_A=n (got: CONFIG_A=y)"* ]]
}
