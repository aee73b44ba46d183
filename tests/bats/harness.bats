#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of the harness scripts (Debian's bats), no guest booted:
#
#   bats tests/bats/harness.bats
#
# Argument errors, fetch-base.sh, fetch-qemu.sh, verify-config.sh,
# kvm-probe.sh, vm.sh's QEMU command lines, deps.sh with stub tools,
# initramfs.sh on a fake build.  vm.sh booting a real kernel is
# tests/bats/system/vm.bats.  Every test runs with MZ_CACHE in its own
# temporary directory.

# shellcheck disable=SC2154 # $stderr is set by run --separate-stderr
bats_require_minimum_version 1.5.0
load common

setup() {
	mz_test_dirs
	export MZ_ACCEL=${MZ_ACCEL:-tcg}
}

# A fake build directory and kernel tree, enough for initramfs.sh.
fake_build() {
	mkdir -p "$T/build/include/config" "$T/build/modroot/lib/modules/0.0.1-fake/kernel" \
		"$T/ksrc/tools/testing/selftests/kselftest"
	echo 0.0.1-fake >"$T/build/include/config/kernel.release"
	echo '# fake ktap helpers' >"$T/ksrc/tools/testing/selftests/kselftest/ktap_helpers.sh"
	export MZ_KSRC=$T/ksrc
}

# --- argument errors: usage and exit 2 -------------------------------------

@test "mz_kernelversion: the version alone, also under a make run with -C (MAKEFLAGS has w)" {
	mkdir -p "$T/k"
	printf 'kernelversion:\n\t@echo 7.3.4\n' >"$T/k/Makefile"
	# shellcheck disable=SC2016 # expanded by the inner shell
	MAKEFLAGS=w run -0 bash -c '. "$1/lib.sh" && mz_kernelversion "$2"' _ "$H" "$T/k"
	[ "$output" = 7.3.4 ]
}

@test "deps.sh: arguments are a usage error" {
	run -2 "$H/deps.sh" --now
	[ "$output" = "deps.sh: error: unknown option '--now' (see --help)" ]
	run -2 "$H/deps.sh" now
	[ "$output" = "deps.sh: error: want no arguments, not 1 argument(s) (see --help)" ]
}

@test "check.sh: prints the total, and past MZ_CHECK_BUDGET warns naming the slowest steps" {
	# check.sh with every step a stub that passes; build-kernel.sh's
	# takes 2 s, so that it is the slowest.
	mkdir -p "$T/repo/harness/check" "$T/repo/patches" "$T/bin"
	cp "$H/lib.sh" "$T/repo/harness/"
	cp "$H/check/check.sh" "$T/repo/harness/check/"
	for s in check/check-space.sh deps.sh series/fetch-base.sh series/tree.sh series/check-mirror.sh \
		check/check-series.sh build/distro-config.sh build/build-kernel.sh \
		build/build-ndctl.sh vm/fetch-qemu.sh vm/initramfs.sh vm/vm.sh build/kunit.sh; do
		mkdir -p "$(dirname "$T/repo/harness/$s")"
		# shellcheck disable=SC2016 # the stub's own $0
		printf '#!/bin/sh\necho "$0" >>"%s/ran"\n' "$T" >"$T/repo/harness/$s"
		chmod +x "$T/repo/harness/$s"
	done
	printf 'sleep 2\necho %s/build\n' "$T" >>"$T/repo/harness/build/build-kernel.sh"
	printf '#!/bin/sh\nexit 0\n' >"$T/bin/shellcheck"
	# shellcheck disable=SC2016 # the stub's own $*
	printf '#!/bin/sh\necho "bats $* (MZ_TEST_BUILD=${MZ_TEST_BUILD:-})" >>"%s/ran"\n' "$T" >"$T/bin/bats"
	chmod +x "$T/bin/shellcheck" "$T/bin/bats"
	PATH=$T/bin:$PATH MZ_CHECK_QUICK=1 MZ_CHECK_BUDGET=1 MZ_TREE=$T/no-tree \
		run -0 --separate-stderr "$T/repo/harness/check/check.sh"
	[ "${lines[-1]}" = "17 passed, 0 failed" ]
	[ "$(head -n 1 "$T/ran")" = "$T/repo/harness/check/check-space.sh" ]
	grep -q 'build/kunit.sh$' "$T/ran"
	# The harness's own tests share the CPUs; the ones that boot the
	# kernel just built, after the smoke guest, one at a time.
	grep -qxF "bats --print-output-on-failure --jobs $(nproc) --no-parallelize-within-files $T/repo/tests/bats (MZ_TEST_BUILD=)" "$T/ran"
	grep -qxF "bats --print-output-on-failure $T/repo/tests/bats/system (MZ_TEST_BUILD=$T/build)" "$T/ran"
	[ "$(grep -A1 'build/kunit.sh$' "$T/ran" | tail -n 1)" = \
		"bats --print-output-on-failure $T/repo/tests/bats/system (MZ_TEST_BUILD=$T/build)" ]
	[[ "$stderr" =~ "=== total: "[0-9]+" s (budget 1 s, MZ_CHECK_BUDGET)" ]]
	[[ "$stderr" =~ "warning: make check took "[0-9]+" s, over its budget of 1 s; slowest steps: kernel "[2-9]" s, " ]]
	PATH=$T/bin:$PATH MZ_CHECK_QUICK=1 MZ_CHECK_BUDGET=3000 MZ_TREE=$T/no-tree \
		run -0 --separate-stderr "$T/repo/harness/check/check.sh"
	[[ "$stderr" == *"(budget 3000 s, MZ_CHECK_BUDGET)"* ]]
	[[ "$stderr" != *"over its budget"* ]]
	# Without room, nothing after the space check runs.
	# shellcheck disable=SC2016 # the stub's own $0
	printf '#!/bin/sh\necho "$0" >>"%s/ran"\nexit 1\n' "$T" >"$T/repo/harness/check/check-space.sh"
	: >"$T/ran"
	PATH=$T/bin:$PATH MZ_CHECK_QUICK=1 MZ_TREE=$T/no-tree \
		run -1 --separate-stderr "$T/repo/harness/check/check.sh"
	[ "${lines[-1]}" = "0 passed, 1 failed" ]
	[ "$(cat "$T/ran")" = "$T/repo/harness/check/check-space.sh" ]
	[[ "$stderr" == *"=== space: FAILED, exit 1"* ]]
}

@test "check-space.sh: too little room on MZ_CACHE's or TMPDIR's file system stops make check, saying where and how much" {
	local c=$T/cache
	mkdir -p "$c/build"
	# An empty cache needs MZ_CHECK_CACHE_MIB, with TMPDIR's share when
	# on one file system.
	run -1 --separate-stderr env MZ_CACHE="$c" TMPDIR="$T" "$H/check/check-space.sh" --assume-free 10239
	[ "${stderr_lines[0]}" = "check-space.sh: error: MZ_CACHE ($c, 0 MiB held) and TMPDIR ($T), one file system: 10239 MiB free, make check needs about 10240 MiB there" ]
	[[ "${stderr_lines[1]}" == "check-space.sh: error: not enough free space, so nothing was run: "* ]]
	run -0 --separate-stderr env MZ_CACHE="$c" TMPDIR="$T" "$H/check/check-space.sh" --assume-free 10240
	[[ "$stderr" == *"10240 MiB free, make check needs about 10240 MiB there" ]]
	# What the cache holds counts.
	head -c $((3 << 20)) /dev/zero >"$c/build/obj"
	run -0 --separate-stderr env MZ_CACHE="$c" TMPDIR="$T" "$H/check/check-space.sh" --assume-free 10237
	[[ "$stderr" == *"($c, 3 MiB held) and TMPDIR ($T), one file system: 10237 MiB free, make check needs about 10237 MiB there" ]]
	# On two file systems (/dev/shm is a tmpfs), each is asked its share.
	run -1 --separate-stderr env MZ_CACHE="$c" TMPDIR=/dev/shm "$H/check/check-space.sh" --assume-free 3072
	[ "${stderr_lines[0]}" = "check-space.sh: error: MZ_CACHE ($c, 3 MiB held): 3072 MiB free, make check needs about 7165 MiB there" ]
	[[ "${stderr_lines[1]}" == *"TMPDIR (/dev/shm): 3072 MiB free, make check needs about 3072 MiB there" ]]
	# A cache that does not exist yet is measured on its nearest parent.
	run -1 --separate-stderr env MZ_CACHE="$T/no/such/cache" TMPDIR="$T" "$H/check/check-space.sh" --assume-free 10
	[[ "$stderr" == *"($T/no/such/cache, 0 MiB held)"* ]]
	[ ! -e "$T/no" ]
	run -2 "$H/check/check-space.sh" now
	[ "$output" = "check-space.sh: error: want no arguments, not 1 argument(s) (see --help)" ]
	run -2 "$H/check/check-space.sh" --assume-free lots
	[[ "$output" == "check-space.sh: error: --assume-free 'lots': want MIB"* ]]
}

# facts_hits REGEX: the code lines (comments left out) of the harness, the
# guest side and the Makefile that match the extended REGEX, as FILE:LINE.
facts_hits() {
	(cd "$ROOT" && git ls-files -co --exclude-standard harness guest Makefile |
		xargs grep -nE -- "$1" /dev/null | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' | cut -d: -f1,2) || true
}

@test "each fact is defined once: devices, sizes, the QEMU version CXL needs (the variants: below)" {
	# FACT@REGEX that a definition or a restatement matches@the file that
	# defines it (at most one matching line there: a list spread over
	# lines, as devices.txt's, matches none)
	local row fact re home hits
	for row in "the bench's devices@fsdax-dev.*(fsdax-mem|devdax-2m).*devprivate@harness/bench/devices.txt" \
		"the bench's default size@sizes_arg[ =]+\"?[0-9]|default:? [0-9]+ ?[MGT]@harness/bench/bench.sh" \
		"the QEMU version CXL needs@QEMU 1[0-9]\\b|QEMU_CXL_MIN:-[0-9]@harness/lib.sh"; do
		IFS=@ read -r fact re home <<<"$row"
		hits=$(facts_hits "$re")
		[ "$(grep -c . <<<"$hits")" -eq "$(grep -c "^$home:" <<<"$hits")" ] &&
			[ "$(grep -c "^$home:" <<<"$hits")" -le 1 ] ||
			{ printf '%s: defined in %s, once; found:\n%s\n' "$fact" "$home" "$hits"; false; }
	done
}

@test "the variants are named in one place: lib.sh (the streaming one) and matrix-cells.txt" {
	# Code, not comments or messages' prose: a script or the Makefile
	# that names a variant again is a second definition.
	local hits
	hits=$(cd "$ROOT" && grep -nE 'stream-[yn]' Makefile harness/*.sh harness/*/*.sh |
		grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' | grep -v '^harness/lib.sh:' || true)
	[ -z "$hits" ] || { echo "$hits"; false; }
	# shellcheck disable=SC2016 # expanded by the shell it starts
	run -0 bash -c '. "$1/lib.sh" && echo "$MZ_STREAM_VARIANT"' _ "$H"
	[ -f "$ROOT/Kconfig.fragments/$output.config" ]
}

@test "every script that takes options: declared once (mz_opt), errors name the option and the value, --help lists each" {
	# The declarations, as mz_parse prints them for MZ_LIST_OPTIONS=1:
	# OPTION, METAVAR (- for a flag) and the REGEX a value must match.
	local s o meta re v n=0
	for s in $(cd "$H" && grep -l '^mz_parse' ./*/*.sh | sed 's|^\./||'); do
		n=$((n + 1))
		run -2 "$H/$s" --no-such-option
		[ "$output" = "${s#*/}: error: unknown option '--no-such-option' (see --help)" ] || { echo "$s: $output"; false; }
		run -0 "$H/$s" --help
		local help=$output
		[[ "${lines[0]}" == "${s#*/}: "* ]] || { echo "$s --help: ${lines[0]}"; false; }
		run -0 env MZ_LIST_OPTIONS=1 "$H/$s"
		[ -n "$output" ] || { echo "$s declares no option"; false; }
		while IFS=$'\t' read -r o meta re; do
			grep -qE -- "^  $o( |\$)" <<<"$help" || { echo "$s --help lacks $o"; false; }
			if [ "$meta" = - ]; then
				run -2 "$H/$s" "$o=x"
				[ "$output" = "${s#*/}: error: $o takes no value, not 'x' (see --help)" ] || { echo "$s: $output"; false; }
				continue
			fi
			run -2 "$H/$s" "$o"
			[ "$output" = "${s#*/}: error: $o needs a value (see --help)" ] || { echo "$s: $output"; false; }
			v='@ not a value'
			[[ "$v" =~ $re ]] && continue
			run -2 "$H/$s" "$o" "$v"
			[[ "$output" == "${s#*/}: error: $o '$v': want $meta ("*"), of the form $re (see --help)" ]] ||
				{ echo "$s $o: $output"; false; }
			run -2 "$H/$s" "$o=$v"
			[[ "$output" == "${s#*/}: error: $o '$v': want $meta ("* ]] || { echo "$s $o=: $output"; false; }
		done <<<"$output"
	done
	# bench, matrix, vm, initramfs, kvm-probe, check-ndctl, hmm-compare,
	# ndctl-compare, send-prep.
	[ "$n" -ge 9 ] || { echo "only $n scripts use mz_parse"; false; }
}

@test "one way to take options: every script through mz_parse or mz_operands, none with a parser of its own" {
	local s hits
	hits=$(cd "$ROOT" && grep -nE 'while \[ "?\$#"? -gt 0 \]|getopts? |mz_need_value|^usage\(\)|^case "\$\{?1(:-)?\}?" in|^if \[ "\$\{?1(:-)?\}?" = -' \
		harness/*.sh harness/*/*.sh | grep -v '^harness/lib.sh:' || true)
	[ -z "$hits" ] || { echo "$hits"; false; }
	# Every script: --help prints its header, an unknown option is an
	# error that names it, before the script does anything.
	for s in $(cd "$H" && find . -maxdepth 2 -name '*.sh' ! -path ./lib.sh | sed 's|^\./||' | sort); do
		run -0 "$H/$s" --help
		[[ "${lines[0]}" == "${s##*/}: "* ]] || { echo "$s --help: ${lines[0]}"; false; }
		run -2 "$H/$s" --no-such-option
		[ "$output" = "${s##*/}: error: unknown option '--no-such-option' (see --help)" ] || { echo "$s: $output"; false; }
	done
}

@test "initramfs.sh: argument errors" {
	run -2 "$H/vm/initramfs.sh"
	[ "$output" = "initramfs.sh: error: want BUILD_DIR OUTPUT.cpio.gz, not 0 arguments (see --help)" ]
	run -2 "$H/vm/initramfs.sh" build
	run -2 "$H/vm/initramfs.sh" build out.cpio.gz extra
	run -2 "$H/vm/initramfs.sh" --add nocolon build out.cpio.gz
	run -2 "$H/vm/initramfs.sh" --add src:relative build out.cpio.gz
	run -2 "$H/vm/initramfs.sh" --bogus build out.cpio.gz
}

@test "vm.sh: argument errors" {
	run -2 "$H/vm/vm.sh"
	[[ "$output" == "vm.sh: error: want BUILD_DIR INITRAMFS [--] TEST"* ]]
	run -2 "$H/vm/vm.sh" build initrd
	# auto is settled by the caller (kvm-probe.sh) or from MZ_ACCEL.
	# Every bad value: exit 2, naming the option and the value.
	for ov in "--accel foo" "--accel auto" "--timeout 0" "--timeout abc" "--boot-timeout 0" \
		"--nvdimm-size 3X" "--nvdimms -1" "--smp 0" "--mem 2T" "--label-nvdimm 1K" \
		"--label-size 1G" "--nvdimm-align x" "--nvdimm-memory disk" "--nvme-cmb 0" \
		"--soft-reserved 512" "--device-reserved 1k" "--cxl-pmem 256" "--cxl-ram M" \
		"--label-size 100K" "--nvme-cmb 3" "--soft-reserved 100M" "--device-reserved 256M" \
		"--cxl-pmem 384M" "--cxl-ram 1000M"; do
		read -r o v <<<"$ov"
		run -2 "$H/vm/vm.sh" "$o" "$v" build initrd true
		[[ "$output" == "vm.sh: error: $o '$v': want "* ]] || { echo "$ov: $output"; false; }
	done
	run -2 "$H/vm/vm.sh" build initrd 'bad name'
	[[ "$output" == "vm.sh: error: TEST 'bad name': want a guest test name"* ]]
	run -2 "$H/vm/vm.sh" build initrd --log
	run -2 "$H/vm/vm.sh" --log
	[ "$output" = "vm.sh: error: --log needs a value (see --help)" ]
	run -2 "$H/vm/vm.sh" --nvdimm build initrd true
	[ "$output" = "vm.sh: error: unknown option '--nvdimm' (see --help)" ]
	run -2 "$H/vm/vm.sh" build initrd -- smoke a,b
	[[ "$output" == *"cannot be empty or hold spaces, commas"* ]]
	run -2 "$H/vm/vm.sh" --shell build initrd true
}

@test "kvm-probe.sh: argument errors" {
	run -2 "$H/vm/kvm-probe.sh"
	[ "$output" = "kvm-probe.sh: error: want BUILD_DIR INITRAMFS, not 0 arguments (see --help)" ]
	run -2 "$H/vm/kvm-probe.sh" build
	run -2 "$H/vm/kvm-probe.sh" build initrd extra
}

@test "verify-config.sh: argument errors" {
	run -2 "$H/build/verify-config.sh"
	[ "$output" = "verify-config.sh: error: want [--src KERNEL_TREE] CONFIG FRAGMENT..., not 0 arguments (see --help)" ]
	run -2 "$H/build/verify-config.sh" .config
	run -2 "$H/build/verify-config.sh" --src
	run -2 "$H/build/verify-config.sh" --src "$T/nosuch" .config frag
	[[ "$output" == *"--src '$T/nosuch': no such directory"* ]]
}

@test "build-bench-module.sh: a changed source is rebuilt, even when the checkout's file is older than the module" {
	# A kernel build that modules can be built against, and a make that
	# rebuilds as make does: when the module is missing or older than
	# its source.
	mkdir -p "$T/build" "$T/bin" "$T/repo"
	printf 'CONFIG_MODULES=y\nCONFIG_DEVICE_PRIVATE=y\n' >"$T/build/.config"
	: >"$T/build/Module.symvers"
	cat >"$T/bin/make" <<-'MAKE'
	#!/bin/bash
	for a; do case "$a" in M=*) m=${a#M=} ;; esac; done
	if [ ! -e "$m/memremap_bench.ko" ] || [ "$m/memremap_bench.c" -nt "$m/memremap_bench.ko" ]; then
		cp "$m/memremap_bench.c" "$m/memremap_bench.ko"
	fi
	MAKE
	chmod +x "$T/bin/make"
	cp -r "$ROOT/harness" "$T/repo/"
	src=$T/repo/harness/bench/bench-module/memremap_bench.c
	echo "version A" >"$src"
	run -0 --separate-stderr env PATH="$T/bin:$PATH" "$T/repo/harness/build/build-bench-module.sh" "$T/build"
	[ "$(cat "$output")" = "version A" ]
	# Another checkout's source, its file older than that module.
	echo "version B" >"$src"
	touch -d '2020-01-01' "$src"
	run -0 --separate-stderr env PATH="$T/bin:$PATH" "$T/repo/harness/build/build-bench-module.sh" "$T/build"
	[ "$(cat "$output")" = "version B" ]
	# Unchanged: not rebuilt.
	touch -d '2020-06-01' "$(dirname "$output")/memremap_bench.c"
	touch -d '2021-01-01' "$output"
	run -0 --separate-stderr env PATH="$T/bin:$PATH" "$T/repo/harness/build/build-bench-module.sh" "$T/build"
	[ "$(stat -c %Y "$output")" = "$(date -d '2021-01-01' +%s)" ]
}

@test "build-lab-modules.sh: each module of guest/memmap_init/modules/ installed; a warning or a missing module fails, installing nothing" {
	mkdir -p "$T/build" "$T/bin"
	printf 'CONFIG_MODULES=y\n' >"$T/build/.config"
	: >"$T/build/Module.symvers"
	# A make that builds NAME.ko from each NAME.c, warning when told to.
	cat >"$T/bin/make" <<-'MAKE'
	#!/bin/bash
	for a; do case "$a" in M=*) m=${a#M=} ;; esac; done
	for c in "$m"/*.c; do cp "$c" "${c%.c}.ko"; done
	[ -z "${FAKE_WARN:-}" ] || echo "$m/x.c:1:1: warning: $FAKE_WARN"
	[ -z "${FAKE_LOSE:-}" ] || rm "$m/$FAKE_LOSE"
	MAKE
	chmod +x "$T/bin/make"
	run -0 --separate-stderr env PATH="$T/bin:$PATH" MZ_CACHE="$T/cache" \
		"$H/build/build-lab-modules.sh" "$T/build" "$T/out"
	[ "$(ls "$T/out")" = lab_memmap_hotplug.ko ]
	cmp "$T/out/lab_memmap_hotplug.ko" "$ROOT/guest/memmap_init/modules/lab_memmap_hotplug.c"
	[[ "$stderr" == *"installed 1 lab modules in $T/out"* ]]
	run -1 --separate-stderr env PATH="$T/bin:$PATH" MZ_CACHE="$T/cache" FAKE_WARN=unused \
		"$H/build/build-lab-modules.sh" "$T/build" "$T/out2"
	[[ "$stderr" == *"warning: unused"*"module build has warnings (W=1); full log: $T/cache/logs/lab-modules-build.log" ]]
	[ ! -e "$T/out2" ]
	run -1 --separate-stderr env PATH="$T/bin:$PATH" MZ_CACHE="$T/cache" FAKE_LOSE=lab_memmap_hotplug.ko \
		"$H/build/build-lab-modules.sh" "$T/build" "$T/out3"
	[[ "$stderr" == *"build finished but $T/cache/lab-module/build/lab_memmap_hotplug.ko is missing"* ]]
	[ ! -e "$T/out3" ]
	run -2 "$H/build/build-lab-modules.sh" "$T/build"
	[ "$output" = "build-lab-modules.sh: error: want BUILD_DIR OUTDIR, not 1 argument(s) (see --help)" ]
}

@test "build-kernel.sh, fetch-base.sh, tree.sh: argument errors" {
	run -2 "$H/build/build-kernel.sh"
	[ "$output" = "build-kernel.sh: error: want [--base|--first] VARIANT, not 0 arguments (see --help)" ]
	run -2 "$H/build/build-kernel.sh" base
	[[ "$output" == "build-kernel.sh: error: VARIANT 'base': want guest or a variant of Kconfig.fragments/ (guest "* ]]
	run -2 "$H/build/build-kernel.sh" a/b
	run -2 "$H/build/build-kernel.sh" guest extra
	run -2 "$H/build/build-kernel.sh" --first
	run -2 "$H/build/build-kernel.sh" --base --first guest
	[ "$output" = "build-kernel.sh: error: --base --first: want one of them at most (see --help)" ]
	# The first series alone is built on 7.3.4 only.
	MZ_BUILD_KIND=upstream run -1 "$H/build/build-kernel.sh" --first stream-y
	[[ "$output" == *"--first: MZ_BUILD_KIND=upstream builds MZ_UPSTREAM_SRC with patches/mm-unstable/ and the follow-ups together"* ]]
	run -2 "$H/series/fetch-base.sh" --bogus
	run -2 "$H/series/tree.sh" bogus
}

@test "resolution-check.py: a resolved hunk may remove only what the series patch removes" {
	# The series patch, on the rewrite of Part 1, passes an argument on;
	# upstream's code around the call has one more statement.
	cat >"$T/series.diff" <<-'EOF'
	--- a/mm/x.c
	+++ b/mm/x.c
	@@ -1,4 +1,5 @@
	 	if (n != 1)
	 		init_compound(page, pfn,
	-			      nr_pages(pfn));
	+			      nr_pages(pfn),
	+			      streaming);
	 
	EOF
	# Resolved with the series' side: upstream's "pfn += n;" goes too.
	cat >"$T/bad.diff" <<-'EOF'
	--- a/mm/x.c
	+++ b/mm/x.c
	@@ -1,5 +1,5 @@
	 	if (n != 1)
	 		init_compound(page, pfn,
	-			      nr_pages(pfn));
	-	pfn += n;
	+			      nr_pages(pfn),
	+			      streaming);
	 
	EOF
	run -1 "$H/series/resolution-check.py" "$T/series.diff" "$T/bad.diff"
	[ "$output" = "pfn += n;    (not removed by the series: pfn + = n ;)" ]
	# The same change with upstream's statement kept, and a comment and a
	# blank line of upstream's replaced: accepted.
	cat >"$T/good.diff" <<-'EOF'
	--- a/mm/x.c
	+++ b/mm/x.c
	@@ -1,6 +1,5 @@
	-	/* upstream's wording */
	 	if (n != 1)
	 		init_compound(page, pfn,
	-			      nr_pages(pfn));
	+			      nr_pages(pfn),
	+			      streaming);
	-
	 	pfn += n;
	EOF
	run -0 "$H/series/resolution-check.py" "$T/series.diff" "$T/good.diff"
	[ -z "$output" ]
	run -2 "$H/series/resolution-check.py" "$T/series.diff"
}

@test "upstream.sh, build-kernel.sh: a base tree without v11 is refused, naming what is missing" {
	# Whatever happens, nothing is written to the repository's patches/.
	export MZ_PATCHES=$T/patches
	run -2 "$H/series/upstream.sh"
	[ "$output" = "upstream.sh: error: want export|apply|base, not 0 argument(s) (see --help)" ]
	run -2 "$H/series/upstream.sh" bogus
	[ "$output" = "upstream.sh: error: SUBCOMMAND 'bogus': want export, apply or base (see --help)" ]
	MZ_UPSTREAM_SRC='' run -1 "$H/series/upstream.sh" apply
	[[ "$output" == *"set MZ_UPSTREAM_SRC to a git kernel tree with v11"* ]]
	MZ_UPSTREAM_SRC=$T/none run -1 "$H/series/upstream.sh" base
	[[ "$output" == *"does not exist"* ]]
	# A 7.3.4-like tree: the template helper is missing.
	mkdir -p "$T/up/mm" "$T/up/include/linux"
	echo 'void memmap_init_zone_device(void);' >"$T/up/mm/mm_init.c"
	echo '#define memcpy_nontemporal(d, s, n) memcpy(d, s, n)' >"$T/up/include/linux/string.h"
	git -C "$T/up" init -q
	git -C "$T/up" add -A
	git -C "$T/up" -c user.name=t -c user.email=t@localhost commit -q -m base
	MZ_UPSTREAM_SRC=$T/up run -1 "$H/series/upstream.sh" export
	[[ "$output" == *"does not have v11 of the template series"* ]]
	[ ! -e "$MZ_CACHE/linux-upstream-export" ] && [ ! -e "$T/patches" ]
	MZ_BUILD_KIND=bogus run -1 "$H/build/build-kernel.sh" guest
	[[ "$output" == *"MZ_BUILD_KIND=bogus: want series"* ]]
}

# --- lib.sh and the Makefile -------------------------------------------------

@test "lib.sh: set -e holds inside \$(...) (inherit_errexit)" {
	cat >"$T/errexit.sh" <<-EOF
	#!/usr/bin/env bash
	set -euo pipefail
	. "$H/lib.sh"
	f() { false; echo "f went on after a failure"; }
	x=\$(f)
	echo "reached with x=\$x"
	EOF
	run -1 bash "$T/errexit.sh"
	[[ "$output" != *"went on"* ]]
	[[ "$output" != *reached* ]]
}

@test "lib.sh: mz_hmm_exclude leaves MZ_HMM_TCG_EXCLUDE's cases out under TCG, nothing under KVM" {
	# shellcheck disable=SC2016
	run -0 bash -c '. "$1/lib.sh" && mz_hmm_exclude tcg' _ "$H"
	[ "$output" = benchmark_thp_migration ]
	# shellcheck disable=SC2016
	run -0 bash -c '. "$1/lib.sh" && mz_hmm_exclude kvm' _ "$H"
	[ -z "$output" ]
}

@test "lib.sh: mz_patch_identity gives the neutral From: and a missing one the sender, keeps a real author's" {
	local neutral
	# shellcheck disable=SC2016
	neutral=$(bash -c '. "$1/lib.sh" && echo "$MZ_TREE_NAME <$MZ_TREE_EMAIL>"' _ "$H")
	for from in "From: $neutral" "" "From: Real Author <real@kernel.invalid>"; do
		{
			echo 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001'
			[ -z "$from" ] || echo "$from"
			printf 'Subject: [PATCH] mm: x\n\nWhy.\n\nLink: https://lore.kernel.invalid/x\n---\n x | 1 +\n'
		} >"$T/p"
		# shellcheck disable=SC2016
		run -0 bash -c '. "$1/lib.sh" && mz_patch_identity "$2" "Ada Sender" ada@kernel.invalid signoff' _ "$H" "$T/p"
		case $from in
		*Real*) want="From: Real Author <real@kernel.invalid>" ;;
		*) want="From: Ada Sender <ada@kernel.invalid>" ;;
		esac
		[ "$(grep -c '^From: ' <<<"$output")" -eq 1 ] || { echo "$output"; false; }
		grep -qxF "$want" <<<"$output" || { echo "$output"; false; }
		[ "$(grep -A1 -x 'Link: https://lore.kernel.invalid/x' <<<"$output" | tail -n 1)" = \
			"Signed-off-by: Ada Sender <ada@kernel.invalid>" ]
	done
}

@test "lib.sh: mz_run logs the quoted command, and on failure prints it too" {
	cat >"$T/run.sh" <<-EOF
	set -euo pipefail
	. "$H/lib.sh"
	mz_run "$T/log" printf '%s\n' "it's" 'a b'
	mz_run "$T/log" sh -c 'echo out; echo err >&2; exit 3' || echo "rc \$?"
	EOF
	run -0 --separate-stderr bash "$T/run.sh"
	[ "$output" = "rc 3" ]
	# stderr has the failed command only, quoted so that it can be pasted.
	[ "$stderr" = "+ sh -c 'echo out; echo err >&2; exit 3'" ]
	[ "$(cat "$T/log")" = "+ printf '%s\n' 'it'\''s' 'a b'
it's
a b
+ sh -c 'echo out; echo err >&2; exit 3'
out
err" ]
	# The logged line runs as it is.
	[ "$(eval "$(sed -n '1s/^+ //p' "$T/log")")" = "it's
a b" ]
}

@test "make help: every .PHONY target and every variable, one line each" {
	run -0 make -s -C "$ROOT" help
	help=$output
	phony=$(make -s -C "$ROOT" -pn help 2>/dev/null | sed -n 's/^\.PHONY: //p')
	[ "$(wc -w <<<"$phony")" -gt 10 ]
	for t in $phony; do
		grep -qE "^  $t +[^ ]" <<<"$help" || { echo "make help lacks target $t"; false; }
	done
	vars=$(grep -oE '\$\([A-Z][A-Z_]*\)|^[A-Z][A-Z_]* *\?=' "$ROOT/Makefile" |
		tr -d '()?= $' | grep -vxE 'H|LAYOUT|RESULTS|LOGS|SEND_OUT|BENCH_CXL|BENCH_HOTPLUG|MAKE|MAKEFILE_LIST' | sort -u)
	[[ "$vars" == *VARIANT* ]]
	# Every setting harness/lib.sh's configuration block reads: those it
	# sets a default for, and those its "#=" lines name (a setting
	# without a "#=" line is missing from the help).
	conf=$(sed -n '/^# --- Configuration/,/^# --- end of configuration/p' "$H/lib.sh" |
		grep -oE '^(export )?[A-Z][A-Z0-9_]*=\$\{[A-Z0-9_]+:-|^#= [A-Z][A-Z0-9_]+ ' |
		grep -oE '[A-Z][A-Z0-9_]+' | grep -vx export | sort -u)
	grep -qx LINUX_SRC <<<"$conf"
	[ "$(wc -w <<<"$conf")" -ge 15 ]
	for v in $vars $conf; do
		grep -qE "^  $v +[^ ]" <<<"$help" || { echo "make help lacks variable $v"; false; }
	done
}

@test "make help: each default it states is the value harness/lib.sh sets" {
	# "NAME  text (default VALUE[; more])" lines whose VALUE is a word,
	# a quoted string or a path under $MZ_CACHE, against lib.sh's value
	# in an environment with none of them set.  Defaults described in
	# words ("default: nproc", "Debian's 7.3.4-...") are not compared.
	run -0 make -s -C "$ROOT" help
	local line name want got n=0
	while IFS= read -r line; do
		[[ "$line" =~ ^\ \ ([A-Z][A-Z0-9_]*)\ .*\(default\ ([^\;\)]*)[\;\)] ]] || continue
		name=${BASH_REMATCH[1]} want=${BASH_REMATCH[2]%%: *}
		case "$want" in
		\'*\') want=${want:1:-1} ;;
		\$\{XDG_CACHE_HOME:-~/*) want=$(env -u XDG_CACHE_HOME bash -c "echo $want") ;;
		*\ *) continue ;;
		esac
		# The Makefile's own variables (VARIANT, OUT, ...) are not lib.sh's.
		# shellcheck disable=SC2016 # expanded by the inner bash
		got=$(env -i HOME="$HOME" PATH="$PATH" bash -c '. "$1/harness/lib.sh" && printf "%s\n" "${!2-}" "$MZ_CACHE" "${!2+set}"' _ "$ROOT" "$name")
		[ "$(sed -n 3p <<<"$got")" = set ] || continue
		want=${want//\$MZ_CACHE/$(sed -n 2p <<<"$got")}
		[ "$want" != patches/ ] || want=$ROOT/patches
		[ "$(head -n 1 <<<"$got")" = "$want" ] ||
			{ echo "make help says $name defaults to '$want', lib.sh sets '$(head -n 1 <<<"$got")'"; false; }
		n=$((n + 1))
	done <<<"$output"
	[ "$n" -ge 12 ] || { echo "only $n defaults compared"; false; }
}

# --- fetch-qemu.sh ----------------------------------------------------------

# fake_qemu_debs [LIB]: in MZ_CACHE/dl, a .deb for each package of
# MZ_QEMU_PACKAGES (lib.sh), as apt-get download names them; the
# qemu-system-x86 one holds a usr/bin/qemu-system-x86_64 that prints a
# QEMU version line and its arguments, linked against the shared library
# LIB when given (which is left out: ldd finds it missing).
fake_qemu_debs() {
	local p name ver d
	mkdir -p "$MZ_CACHE/dl" "$T/src"
	printf '#include <stdio.h>\nint main(int c, char **v) { puts("QEMU emulator version 10.0.2 (fake)"); for (int i = 1; i < c; i++) puts(v[i]); return 0; }\n' >"$T/src/q.c"
	if [ -n "${1:-}" ]; then
		echo 'int mz_fake(void) { return 0; }' >"$T/src/l.c"
		gcc -shared -fPIC -o "$T/src/lib$1.so" "$T/src/l.c"
		gcc -o "$T/src/qemu" "$T/src/q.c" -L"$T/src" -Wl,--no-as-needed -l"$1"
	else
		gcc -o "$T/src/qemu" "$T/src/q.c"
	fi
	# shellcheck disable=SC2016 # expanded by that shell
	mapfile -t pkgs < <(bash -c '. "$1/lib.sh" && printf "%s\n" "${MZ_QEMU_PACKAGES[@]}"' _ "$H")
	for p in "${pkgs[@]}"; do
		name=${p%%=*} ver=${p#*=}
		d=$T/deb/$name
		mkdir -p "$d/DEBIAN" "$d/usr/share/doc/$name"
		printf 'Package: %s\nVersion: %s\nArchitecture: all\nMaintainer: test <test@example.org>\nDescription: fake\n' \
			"$name" "$ver" >"$d/DEBIAN/control"
		if [ "$name" = qemu-system-x86 ]; then
			mkdir -p "$d/usr/bin"
			cp "$T/src/qemu" "$d/usr/bin/qemu-system-x86_64"
		fi
		dpkg-deb -Zgzip --root-owner-group --build "$d" "$MZ_CACHE/dl/${name}_${ver/:/%3a}_all.deb" >/dev/null
	done
}

@test "fetch-qemu.sh: extracts the packages once, beside the host's QEMU, and prints a QEMU that runs with its own firmware" {
	fake_qemu_debs
	# No network: the packages are in MZ_CACHE/dl, so apt is never asked.
	MZ_APT_SOURCES=$T/none run -0 --separate-stderr "$H/vm/fetch-qemu.sh"
	q=$MZ_CACHE/qemu/bin/qemu-system-x86_64
	[ "$output" = "$q" ]
	[[ "$stderr" == *"QEMU ready: QEMU emulator version 10.0.2 (fake) ($q)"* ]]
	run -0 "$q" -machine q35
	[ "${lines[*]}" = "QEMU emulator version 10.0.2 (fake) -L $MZ_CACHE/qemu/usr/share/seabios -L $MZ_CACHE/qemu/usr/share/qemu -machine q35" ]
	# What vm.sh records of it.
	# shellcheck disable=SC2016 # expanded by that shell
	MZ_QEMU=$q run -0 bash -c '. "$1/lib.sh" && mz_qemu_version' _ "$H"
	[ "$output" = "QEMU 10.0.2 (fake)" ]
	# Again: nothing extracted, the same path; --version.
	run -0 --separate-stderr "$H/vm/fetch-qemu.sh"
	[ "$output" = "$q" ] && [[ "$stderr" != *extracting* ]]
	run -0 --separate-stderr "$H/vm/fetch-qemu.sh" --version
	[ "$output" = "QEMU emulator version 10.0.2 (fake)" ]
	run -2 "$H/vm/fetch-qemu.sh" --bogus
}

@test "fetch-qemu.sh: a library the host lacks is named, and nothing is left half made" {
	fake_qemu_debs mzmissing
	run -1 --separate-stderr "$H/vm/fetch-qemu.sh"
	[[ "$stderr" == *"QEMU "*" needs libraries this host lacks: libmzmissing.so "* ]]
	[ ! -e "$MZ_CACHE/qemu" ]
	[ -z "$(find "$MZ_CACHE" -maxdepth 1 -name 'qemu.new.*')" ]
}

# --- fetch-base.sh ----------------------------------------------------------

@test "fetch-base.sh: checksum mismatch is a one-line error" {
	echo 'not a deb' >"$T/fake.deb"
	MZ_DEB_FILE=$T/fake.deb run -1 "$H/series/fetch-base.sh"
	[ "$(grep -c 'error:' <<<"$output")" -eq 1 ]
	grep -q '^fetch-base.sh: error: checksum mismatch for .*fake.deb: got ' <<<"$output"
	[ ! -e "$MZ_CACHE/src/linux-source-7.3.4" ]
}

@test "fetch-base.sh --print-mirror: mirror from deb822 sources" {
	cat >"$T/debian.sources" <<-'EOF'
	Types: deb
	URIs: http://security.example.org/debian-security
	Suites: bookworm-security
	Components: main

	Types: deb deb-src
	URIs: http://deb.example.org/debian/
	Suites: bookworm bookworm-updates
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	MZ_APT_SOURCES=$T/debian.sources run -0 --separate-stderr "$H/series/fetch-base.sh" --print-mirror
	[ "$output" = http://deb.example.org/debian ]
}

@test "fetch-base.sh --print-mirror: mirror from one-line sources" {
	echo 'deb [arch=amd64] http://mirror.example.net/debian bookworm main' >"$T/sources.list"
	MZ_APT_SOURCES=$T/sources.list run -0 --separate-stderr "$H/series/fetch-base.sh" --print-mirror
	[ "$output" = http://mirror.example.net/debian ]
}

@test "fetch-base.sh --print-mirror: clear error without a Debian mirror" {
	printf 'Types: deb\nURIs: http://archive.ubuntu.com/ubuntu\nSuites: noble\n' >"$T/other.sources"
	MZ_APT_SOURCES=$T/other.sources run -1 "$H/series/fetch-base.sh" --print-mirror
	[[ "$output" == *"error: no Debian mirror found"* ]]
	MZ_APT_SOURCES=$T/missing.sources run -1 "$H/series/fetch-base.sh" --print-mirror
	[[ "$output" == *"error: no Debian mirror found"* ]]
}

# --- build-kernel.sh and verify-config.sh -----------------------------------

@test "build-kernel.sh: unknown variant" {
	run -2 "$H/build/build-kernel.sh" nosuchvariant
	[[ "$output" == *"VARIANT 'nosuchvariant': want guest or a variant of Kconfig.fragments/ (guest "*" stream-y"* ]]
}

@test "verify-config.sh: all options present" {
	printf 'CONFIG_A=y\nCONFIG_B=m\n# CONFIG_C is not set\n' >"$T/config"
	printf '# comment\nCONFIG_A=y\nCONFIG_B=m\n# CONFIG_C is not set\n# CONFIG_D is not set\n' >"$T/frag"
	run -0 "$H/build/verify-config.sh" "$T/config" "$T/frag"
	[ -z "$output" ]
}

@test "verify-config.sh: dropped options are named" {
	printf 'CONFIG_A=y\nCONFIG_B=y\n# CONFIG_E is not set\n' >"$T/config"
	printf 'CONFIG_A=y\nCONFIG_B=m\n# CONFIG_C is not set\n' >"$T/frag1"
	printf 'CONFIG_D=y\nCONFIG_E=y\n# CONFIG_B is not set\n' >"$T/frag2"
	run -1 "$H/build/verify-config.sh" "$T/config" "$T/frag1" "$T/frag2"
	[[ "$output" == *"CONFIG_D=y (got: unset)"* ]]
	[[ "$output" == *"CONFIG_E=y (got: # CONFIG_E is not set)"* ]]
	# frag2 overrides frag1's CONFIG_B=m, as in merge_config.sh.
	[[ "$output" == *"CONFIG_B=n (got: CONFIG_B=y)"* ]]
	[[ "$output" != *"CONFIG_B=m"* ]]
	[[ "$output" == *"error: Kconfig dropped 3 option(s)"* ]]
}

@test "verify-config.sh --src: options the tree does not define are not expected" {
	mkdir -p "$T/src/mm"
	printf 'config OLD\n\tbool "old"\n' >"$T/src/mm/Kconfig"
	printf '# CONFIG_OLD is not set\n' >"$T/config"
	printf 'CONFIG_NEW=y\n' >"$T/frag"
	run -0 "$H/build/verify-config.sh" --src "$T/src" "$T/config" "$T/frag"
	printf 'CONFIG_NEW=y\nCONFIG_OLD=y\n' >"$T/frag"
	run -1 "$H/build/verify-config.sh" --src "$T/src" "$T/config" "$T/frag"
	[[ "$output" == *"CONFIG_OLD=y (got: # CONFIG_OLD is not set)"* ]]
	[[ "$output" != *CONFIG_NEW* ]]
}

@test "build-kernel.sh: a second build of the same variant waits for the first" {
	mkdir -p "$MZ_CACHE/build"
	flock "$MZ_CACHE/build/series-stream-y.lock" sleep 3 3>&- &
	sleep 0.5
	SECONDS=0
	# It stops later (the fake base below is no kernel), after the wait.
	mkdir -p "$T/ksrc"
	printf 'kernelversion:\n\t@echo 7.3.4\n' >"$T/ksrc/Makefile"
	LINUX_SRC=$T/ksrc MZ_TREE=$T/tree run "$H/build/build-kernel.sh" stream-y
	[ "$SECONDS" -ge 2 ]
	[[ "$output" == *"waiting for another build of series-stream-y"* ]]
	wait
}

@test "build-kernel.sh runs verify-config.sh on the merged .config" {
	grep -q 'harness/build/verify-config.sh' "$H/build/build-kernel.sh"
}

@test "seed-build.sh: copies a finished build, rewrites objtool's absolute paths, keeps times" {
	F=$T/build/series-a G=$T/build/series-b
	mkdir -p "$F/tools/objtool/libsubcmd" "$F/mm"
	printf 'cmd_%s/tools/objtool/x.o := gcc -o %s/tools/objtool/x.o -I%s2/keep\n' "$F" "$F" "$F" \
		>"$F/tools/objtool/libsubcmd/.x.o.cmd"
	printf '%s/tools/objtool/x.o: x.c\n' "$F" >"$F/tools/objtool/x.d"
	echo "cmd_mm/a.o := gcc $F" >"$F/mm/.a.o.cmd"
	touch -d '2026-01-02 03:04:05.123456789' "$F/tools/objtool/libsubcmd/.x.o.cmd" "$F/tools/objtool/x.d"
	# Not finished: refused.
	run -1 "$H/build/seed-build.sh" "$F" "$G"
	[[ "$output" == *"$F holds no finished build (no .mz-built stamp)"* ]]
	[ ! -e "$G" ]
	echo 0123abc >"$F/.mz-built"
	run -0 "$H/build/seed-build.sh" "$F" "$G"
	[[ "$output" == *"seeded $G from $F (2 path record(s) rewritten)"* ]]
	[ "$(cat "$G/tools/objtool/libsubcmd/.x.o.cmd")" = \
		"cmd_$G/tools/objtool/x.o := gcc -o $G/tools/objtool/x.o -I${F}2/keep" ]
	[ "$(cat "$G/tools/objtool/x.d")" = "$G/tools/objtool/x.o: x.c" ]
	[ "$(stat -c %y "$G/tools/objtool/x.d")" = "$(stat -c %y "$F/tools/objtool/x.d")" ]
	[ "$(stat -c %y "$G/tools/objtool/libsubcmd/.x.o.cmd")" = \
		"$(stat -c %y "$F/tools/objtool/libsubcmd/.x.o.cmd")" ]
	# Kbuild's own records are relative: left alone.  No stamp copied.
	[ "$(cat "$G/mm/.a.o.cmd")" = "cmd_mm/a.o := gcc $F" ]
	[ ! -e "$G/.mz-built" ]
	# A directory that already holds something is not overwritten.
	run -1 "$H/build/seed-build.sh" "$F" "$G"
	[[ "$output" == *"$G is not empty"* ]]
	run -2 "$H/build/seed-build.sh" "$F"
}

# --- kvm-probe.sh -----------------------------------------------------------

@test "kvm-probe.sh: --accel kvm and tcg are printed as they are, anything else refused" {
	run -0 --separate-stderr "$H/vm/kvm-probe.sh" --accel kvm "$T/nobuild" "$T/noinitrd"
	[ "$output" = kvm ]
	run -0 --separate-stderr "$H/vm/kvm-probe.sh" --accel tcg "$T/nobuild" "$T/noinitrd"
	[ "$output" = tcg ]
	run -2 --separate-stderr "$H/vm/kvm-probe.sh" --accel fast "$T/nobuild" "$T/noinitrd"
	[[ "$stderr" == "kvm-probe.sh: error: --accel 'fast': want auto|kvm|tcg ("* ]]
	run -2 "$H/vm/kvm-probe.sh" --accel
}

@test "kvm-probe.sh: tcg at once without a KVM device" {
	MZ_KVM_DEV=$T/no-kvm run -0 --separate-stderr "$H/vm/kvm-probe.sh" "$T/nobuild" "$T/noinitrd"
	[ "$output" = tcg ]
	[[ "$stderr" == *"no-kvm missing or not read-writable"* ]]
}

# fake_kernel: T/build with a bzImage and an empty T/initrd, all that
# vm.sh --dry-run and kvm-probe.sh's cache look at.
fake_kernel() {
	mkdir -p "$T/build/arch/x86/boot"
	echo 'fake kernel' >"$T/build/arch/x86/boot/bzImage"
	: >"$T/initrd"
}

@test "kvm-probe.sh: a cached answer is used without booting" {
	fake_kernel
	mkdir -p "$MZ_CACHE/accel-probe"
	sum=$(sha256sum "$T/build/arch/x86/boot/bzImage" | cut -d' ' -f1)
	echo kvm >"$MZ_CACHE/accel-probe/$sum"
	# /dev/null stands in for a usable KVM device.
	MZ_KVM_DEV=/dev/null run -0 --separate-stderr "$H/vm/kvm-probe.sh" "$T/build" "$T/initrd"
	[ "$output" = kvm ]
	[[ "$stderr" == *cached* ]]
}

@test "vm.sh --numa: three nodes, a memory-only one, NVDIMMs on node 1, a socket per CPU" {
	fake_kernel
	export MZ_VM_DIR=$T/vm
	run -0 --separate-stderr "$H/vm/vm.sh" --accel tcg --dry-run --numa --smp 4 --mem 2G \
		--nvdimm-size 1G --label-nvdimm 1G "$T/build" "$T/initrd" true
	for a in " -smp 4,sockets=4,cores=1,threads=1 " \
		" -numa node,nodeid=0,cpus=0,memdev=ram0 " " -numa node,nodeid=1,cpus=1-3,memdev=ram1 " \
		" -numa node,nodeid=2,memdev=ram2 " " -object memory-backend-ram,id=ram2,size=256M " \
		" -numa dist,src=1,dst=2,val=15 " " -device nvdimm,id=nv0,memdev=mem0,node=1 " \
		" -device nvdimm,id=nv-label,memdev=mem-label,label-size=128K,node=1 "; do
		[[ "$output" == *"$a"* ]] || { echo "missing:$a"; false; }
	done
	# The node RAM adds up to the guest's.
	[[ "$output" == *"id=ram0,size=1024M "*"id=ram1,size=768M "* ]]
	# With five CPUs or more, node 0 has two of them.
	run -0 --separate-stderr "$H/vm/vm.sh" --accel tcg --dry-run --numa --smp 5 --mem 2G \
		--nvdimm-size 1G "$T/build" "$T/initrd" true
	[[ "$output" == *" -numa node,nodeid=0,cpus=0-1,memdev=ram0 "*" -numa node,nodeid=1,cpus=2-4,memdev=ram1 "* ]]
	# Without --numa: no node, no socket layout.
	run -0 "$H/vm/vm.sh" --accel tcg --dry-run --nvdimms 0 "$T/build" "$T/initrd" true
	[[ "$output" != *"-numa"* ]] && [[ "$output" == *" -smp 2 "* ]]
	run -2 "$H/vm/vm.sh" --accel tcg --numa --smp 1 "$T/build" "$T/initrd" true
	[[ "$output" == *"--numa needs --smp 2 or more and --mem 1G or more"* ]]
	run -2 "$H/vm/vm.sh" --accel tcg --numa --mem 512M "$T/build" "$T/initrd" true
}

@test "vm.sh MZ_QEMU: the QEMU it names boots the guest; a missing or non-QEMU program is refused" {
	fake_kernel
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "QEMU emulator version 10.0.2 (test)"\n' >"$T/bin/q10"
	printf '#!/bin/sh\necho "not a qemu"\n' >"$T/bin/other"
	chmod +x "$T/bin/q10" "$T/bin/other"
	MZ_QEMU=$T/bin/q10 run -0 --separate-stderr "$H/vm/vm.sh" --accel tcg --dry-run --nvdimms 0 \
		"$T/build" "$T/initrd" true
	[[ "${lines[-1]}" == "$T/bin/q10 -machine q35,nvdimm=on "* ]]
	MZ_QEMU=$T/bin/nosuch run -1 --separate-stderr "$H/vm/vm.sh" --accel tcg --dry-run --nvdimms 0 \
		"$T/build" "$T/initrd" true
	[[ "$stderr" == *"MZ_QEMU=$T/bin/nosuch: no such program; unset it for the host's qemu-system-x86_64, or run 'make qemu' and set MZ_QEMU to the path it prints"* ]]
	# A program that is not QEMU: its version, which a run asks before it
	# writes anything (a dry run does not ask).
	MZ_QEMU=$T/bin/other run -1 --separate-stderr "$H/vm/vm.sh" --accel tcg --nvdimms 0 \
		"$T/build" "$T/initrd" true
	[[ "$stderr" == *"MZ_QEMU=$T/bin/other --version printed 'not a qemu', not a QEMU version"* ]]
}

@test "vm.sh --cxl-pmem, --cxl-ram: a CXL host bridge, a root port and type-3 device each, one window; QEMU 10 or newer" {
	fake_kernel
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "QEMU emulator version 10.0.2 (test)"\n' >"$T/bin/q10"
	printf '#!/bin/sh\necho "QEMU emulator version 7.2.22 (test)"\n' >"$T/bin/q7"
	chmod +x "$T/bin/q10" "$T/bin/q7"
	# The files go to MZ_VM_DIR's default, in this test's MZ_CACHE.
	V=$MZ_CACHE/vm
	MZ_QEMU=$T/bin/q10 run -0 --separate-stderr "$H/vm/vm.sh" --accel tcg --dry-run --nvdimms 0 \
		--cxl-pmem 512M --cxl-ram 256M "$T/build" "$T/initrd" true
	for a in " -machine q35,nvdimm=on,cxl=on " " -device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1 " \
		" -object memory-backend-file,id=cxl-pmem-mem,share=on,mem-path=$V/cxl-pmem.img,size=512M " \
		" -object memory-backend-file,id=cxl-lsa-mem,share=on,mem-path=$V/cxl-lsa.img,size=128K " \
		" -device cxl-rp,port=0,bus=cxl.1,id=cxl-rp0,chassis=0,slot=2 " \
		" -device cxl-type3,bus=cxl-rp0,persistent-memdev=cxl-pmem-mem,lsa=cxl-lsa-mem,id=cxl-pmem,sn=1 " \
		" -object memory-backend-ram,id=cxl-ram-mem,share=on,size=256M " \
		" -device cxl-rp,port=1,bus=cxl.1,id=cxl-rp1,chassis=0,slot=3 " \
		" -device cxl-type3,bus=cxl-rp1,volatile-memdev=cxl-ram-mem,id=cxl-ram,sn=2 " \
		" -M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=768M "; do
		[[ "$output" == *"$a"* ]] || { echo "missing:$a"; false; }
	done
	# The persistent capacity is a sparse file, recreated empty each boot:
	# the dry run prints the commands that make it and makes nothing.
	[[ "$output" == *$'\nrm -f '"$V/cxl-pmem.img $V/cxl-lsa.img"$'\ntruncate -s 512M '"$V/cxl-pmem.img"$'\ntruncate -s 128K '"$V/cxl-lsa.img"$'\n'* ]]
	[ ! -e "$V" ]
	# The lines it prints boot the guest as they are: run as a script, they
	# make the files (the fake QEMU boots nothing).
	bash -e <<<"$output"
	[ "$(stat -c %s "$V/cxl-pmem.img")" -eq $((512 << 20)) ] && [ "$(du -k "$V/cxl-pmem.img" | cut -f1)" -eq 0 ]
	[ "$(stat -c %s "$V/cxl-lsa.img")" -eq 131072 ]
	# Volatile alone: its device on the first root port, nothing persistent.
	MZ_QEMU=$T/bin/q10 run -0 "$H/vm/vm.sh" --accel tcg --dry-run --nvdimms 0 --cxl-ram 1G "$T/build" "$T/initrd" true
	[[ "$output" == *" -device cxl-type3,bus=cxl-rp0,volatile-memdev=cxl-ram-mem,id=cxl-ram,sn=1 "* ]]
	[[ "$output" != *persistent* ]] && [[ "$output" == *"cxl-fmw.0.size=1024M "* ]]
	# No CXL: no cxl=on.
	MZ_QEMU=$T/bin/q10 run -0 "$H/vm/vm.sh" --accel tcg --dry-run --nvdimms 0 "$T/build" "$T/initrd" true
	[[ "$output" == *" -machine q35,nvdimm=on "* ]] && [[ "$output" != *cxl* ]]
	# QEMU 7.2: refused before anything is written, saying what to do (a
	# dry run asks QEMU nothing and says so).
	MZ_QEMU=$T/bin/q7 run -1 --separate-stderr "$H/vm/vm.sh" --accel tcg --nvdimms 0 \
		--cxl-ram 256M "$T/build" "$T/initrd" true
	[[ "$stderr" == *"--cxl-pmem and --cxl-ram need QEMU 10 or newer (full CXL type-3 emulation), and MZ_QEMU=$T/bin/q7 is QEMU 7.2.22 (test): run 'make qemu'"* ]]
	MZ_QEMU=$T/bin/q7 run -0 --separate-stderr "$H/vm/vm.sh" --accel tcg --dry-run --nvdimms 0 \
		--cxl-ram 256M "$T/build" "$T/initrd" true
	[[ "$stderr" == *"--dry-run: MZ_QEMU=$T/bin/q7 was not asked its version; --cxl-pmem and --cxl-ram need QEMU 10 or newer"* ]]
	# The oldest QEMU for CXL is one fact (MZ_QEMU_CXL_MIN): vm.sh and
	# mz_qemu_cxl, which picks the CXL guests' QEMU, both follow it.
	MZ_QEMU_CXL_MIN=11 MZ_QEMU=$T/bin/q10 run -1 --separate-stderr "$H/vm/vm.sh" --accel tcg \
		--nvdimms 0 --cxl-ram 256M "$T/build" "$T/initrd" true
	[[ "$stderr" == *"--cxl-pmem and --cxl-ram need QEMU 11 or newer"* ]]
	# shellcheck disable=SC2016
	MZ_QEMU=$T/bin/q10 run -0 bash -c '. "$1/lib.sh" && mz_qemu_cxl' _ "$H"
	[ "$output" = "$T/bin/q10" ]
	# shellcheck disable=SC2016
	MZ_QEMU_CXL_MIN=11 MZ_QEMU=$T/bin/q10 run -1 bash -c '. "$1/lib.sh" && mz_qemu_cxl' _ "$H"
	[[ "$output" == "CXL memory needs QEMU 11 or newer"* ]]
	# Sizes come in 256 MiB units.
	MZ_QEMU=$T/bin/q10 run -2 "$H/vm/vm.sh" --accel tcg --dry-run --cxl-pmem 384M "$T/build" "$T/initrd" true
	[[ "$output" == *"--cxl-pmem '384M': want a multiple of 256M"* ]]
	MZ_QEMU=$T/bin/q10 run -2 "$H/vm/vm.sh" --accel tcg --dry-run --cxl-ram 1T "$T/build" "$T/initrd" true
}

@test "vm.sh --dry-run starts nothing and writes nothing" {
	fake_kernel
	# A QEMU that records every call, its version query included.
	mkdir -p "$T/bin"
	# shellcheck disable=SC2016 # expanded by the fake QEMU
	printf '#!/bin/sh\necho "$*" >>"%s"\necho "QEMU emulator version 10.0.2 (test)"\n' \
		"$T/qemu-calls" >"$T/bin/qemu"
	chmod +x "$T/bin/qemu"
	# Everything a run could write to starts empty (or absent), in D.
	D=$T/dry
	mkdir -p "$D/cache" "$D/home" "$D/tmp" "$D/cwd"
	dry() {
		(cd "$D/cwd" && env -u XDG_CACHE_HOME MZ_QEMU="$T/bin/qemu" MZ_CACHE="$D/cache" \
			MZ_LOGS="$D/logs" MZ_VM_DIR="$D/vm" HOME="$D/home" TMPDIR="$D/tmp" "$@")
	}
	devices=(--nvdimm-memory file --label-nvdimm 1G --nvme-cmb 2 --cxl-pmem 256M --cxl-ram 256M)
	# snapshot: every path in D with its type and size, and every file's
	# digest; nothing_new: no QEMU started, and D as its last snapshot.
	snapshot() {
		(cd "$D" && find . -printf '%p %y %s\n' | sort && find . -type f -exec sha256sum {} + | sort)
	}
	nothing_new() {
		[ ! -e "$T/qemu-calls" ] || { echo "QEMU started: $(cat "$T/qemu-calls")"; false; }
		diff "$T/before" <(snapshot) || { echo "written: the lines above"; false; }
	}
	snapshot >"$T/before"
	# --accel tcg, a log in a folder that does not exist yet.
	run -0 --separate-stderr dry MZ_ACCEL=auto "$H/vm/vm.sh" --dry-run --accel tcg "${devices[@]}" \
		--log "$D/logs/new/vm.log" "$T/build" "$T/initrd" true
	nothing_new
	# The lines it prints make the files, QEMU's command line last.
	[[ "$output" == "mkdir -p $D/vm"$'\n'* ]]
	for f in nvdimm0.img nvdimm-label.img nvme.img cxl-pmem.img cxl-lsa.img; do
		[[ "$output" == *$'\ntruncate -s '*" $D/vm/$f"$'\n'* ]] || { echo "no truncate of $f"; false; }
	done
	[[ "$output" == *$'\nmkdir -p '"$D/logs/new"$'\n'"$T/bin/qemu -machine q35,nvdimm=on,cxl=on -accel tcg "* ]]
	# QEMU was not asked its version: the dry run says so for CXL.
	[[ "$stderr" == *"--dry-run: MZ_QEMU=$T/bin/qemu was not asked its version; --cxl-pmem and --cxl-ram need QEMU 10 or newer"* ]]
	# Without --accel: MZ_ACCEL=auto and no usable KVM device (tcg at
	# once), a log relative to the current folder.
	run -0 --separate-stderr dry MZ_ACCEL=auto MZ_KVM_DEV="$D/no-kvm" "$H/vm/vm.sh" --dry-run \
		"${devices[@]}" --log new/vm.log "$T/build" "$T/initrd" true
	nothing_new
	[[ "${lines[-1]}" == "$T/bin/qemu "*" -accel tcg "*",path=new/vm.log,"* ]]
	# MZ_ACCEL=kvm (/dev/null stands in for a usable KVM device), tcg.
	run -0 --separate-stderr dry MZ_ACCEL=kvm MZ_KVM_DEV=/dev/null "$H/vm/vm.sh" --dry-run \
		"${devices[@]}" "$T/build" "$T/initrd" true
	nothing_new
	[[ "${lines[-1]}" == "$T/bin/qemu "*" -accel kvm -cpu host "* ]]
	run -0 --separate-stderr dry MZ_ACCEL=tcg "$H/vm/vm.sh" --dry-run "${devices[@]}" "$T/build" "$T/initrd" true
	nothing_new
	# --shell, with --accel and without.
	run -0 --separate-stderr dry MZ_ACCEL=auto "$H/vm/vm.sh" --dry-run --shell --accel tcg \
		"${devices[@]}" "$T/build" "$T/initrd"
	nothing_new
	[[ "${lines[-1]}" == *" -serial mon:stdio" ]]
	run -0 --separate-stderr dry MZ_ACCEL=auto MZ_KVM_DEV="$D/no-kvm" "$H/vm/vm.sh" --dry-run --shell \
		"${devices[@]}" "$T/build" "$T/initrd"
	nothing_new
	# MZ_ACCEL=auto, a usable KVM device and no cached answer: only a boot
	# would tell, so the dry run is refused, saying what to give.
	run -1 --separate-stderr dry MZ_ACCEL=auto MZ_KVM_DEV=/dev/null "$H/vm/vm.sh" --dry-run \
		"${devices[@]}" "$T/build" "$T/initrd" true
	[[ "$stderr" == *"--dry-run: the accelerator needs a KVM boot probe of this kernel (MZ_ACCEL=auto, none cached), which would start QEMU; give --accel kvm or tcg"* ]]
	nothing_new
	# kvm-probe.sh --no-boot itself: exit 3, nothing written.
	run -3 dry MZ_KVM_DEV=/dev/null "$H/vm/kvm-probe.sh" --no-boot "$T/build" "$T/initrd"
	[ -z "$output" ]
	nothing_new
	# With a cached answer, that one, read and not written.
	mkdir -p "$D/cache/accel-probe"
	echo kvm >"$D/cache/accel-probe/$(sha256sum "$T/build/arch/x86/boot/bzImage" | cut -d' ' -f1)"
	snapshot >"$T/before"
	run -0 --separate-stderr dry MZ_ACCEL=auto MZ_KVM_DEV=/dev/null "$H/vm/vm.sh" --dry-run \
		"${devices[@]}" "$T/build" "$T/initrd" true
	nothing_new
	[[ "${lines[-1]}" == "$T/bin/qemu -machine q35,nvdimm=on,cxl=on -accel kvm "* ]]
	[[ "$stderr" == *"cached KVM probe for this kernel: kvm"* ]]
}

@test "vm.sh --nvdimm-memory ram: the NVDIMMs in QEMU's memory, no file; bad uses refused" {
	fake_kernel
	run -0 --separate-stderr env MZ_VM_DIR="$T/vm" "$H/vm/vm.sh" --accel tcg --dry-run --nvdimms 2 --nvdimm-size 1G \
		--nvdimm-memory ram --label-size 128K --label-nvdimm 1G "$T/build" "$T/initrd" true
	for a in " -object memory-backend-ram,id=mem0,size=1048704K " \
		" -object memory-backend-ram,id=mem1,size=1048704K " \
		" -device nvdimm,id=nv1,memdev=mem1,label-size=128K " \
		" -object memory-backend-ram,id=mem-label,size=1048704K "; do
		[[ "$output" == *"$a"* ]] || { echo "missing:$a"; false; }
	done
	[[ "$output" != *memory-backend-file* ]]
	# Nothing on disk, not even the lock of the backing files' directory.
	[ ! -e "$T/vm" ]
	# An NVDIMM larger than the host's RAM is mapped with reserve=off:
	# the host's heuristic overcommit refuses it otherwise ("cannot set
	# up guest memory 'mem0': Cannot allocate memory" for 64G here).
	big=$(( $(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) / 1048576 + 8 ))
	run -0 env MZ_VM_DIR="$T/vm" "$H/vm/vm.sh" --accel tcg --dry-run --nvdimms 1 --nvdimm-size "${big}G" \
		--nvdimm-memory ram "$T/build" "$T/initrd" true
	[[ "$output" == *" -object memory-backend-ram,id=mem0,size=$((big << 20))K,reserve=off "* ]]
	# The default is a file per NVDIMM.
	run -0 env MZ_VM_DIR="$T/vm" "$H/vm/vm.sh" --accel tcg --dry-run --nvdimms 1 --nvdimm-size 1G "$T/build" "$T/initrd" true
	[[ "$output" == *" -object memory-backend-file,id=mem0,share=on,mem-path=$T/vm/nvdimm0.img,size=1048576K "* ]]
	run -0 env MZ_VM_DIR="$T/vm" "$H/vm/vm.sh" --accel tcg --dry-run --nvdimm-memory file --nvdimm-size 1G "$T/build" "$T/initrd" true
	[[ "$output" == *"memory-backend-file,id=mem0,"* ]]
	# A file's options do not go with memory; a bad word is refused.
	run -2 "$H/vm/vm.sh" --accel tcg --nvdimm-memory ram --keep-nvdimm "$T/build" "$T/initrd" true
	[[ "$output" == *"--nvdimm-memory ram keeps nothing and aligns nothing"* ]]
	run -2 "$H/vm/vm.sh" --accel tcg --nvdimm-memory ram --nvdimm-align 1G "$T/build" "$T/initrd" true
	[[ "$output" == *"--nvdimm-memory ram keeps nothing"* ]]
	run -2 "$H/vm/vm.sh" --accel tcg --nvdimm-memory disk "$T/build" "$T/initrd" true
	[[ "$output" == *"--nvdimm-memory 'disk': want file|ram ("* ]]
	run -2 "$H/vm/vm.sh" --accel tcg --nvdimm-memory "$T/build" "$T/initrd" true
}

@test "vm.sh --nvme-cmb, --soft-reserved, --device-reserved: the devices and the carved RAM" {
	fake_kernel
	run -0 --separate-stderr env MZ_VM_DIR="$T/vm" "$H/vm/vm.sh" --accel tcg --dry-run --nvme-cmb 1024 \
		--soft-reserved 512M --device-reserved 512M "$T/build" "$T/initrd" true
	# --mem stays the guest's RAM: 2 GiB, plus the carved 1 GiB above 4 GiB.
	for a in " -m 3072M," " -device nvme,bus=pcie.0,serial=mz-cmb,drive=nvme0,cmb_size_mb=1024 " \
		" nvme.use_cmb_sqes=0" " memmap=512M%0x100000000-1+0xefffffff" \
		" memmap=512M%0x120000000-1+2"; do
		[[ "$output" == *"$a"* ]] || { echo "missing:$a"; false; }
	done
	[[ "$output" == *$'\nrm -f '"$T/vm/nvme.img"$'\ntruncate -s 64M '"$T/vm/nvme.img"$'\n'* ]]
	[ ! -e "$T/vm" ]
	# One range alone starts at 4 GiB.
	run -0 env MZ_VM_DIR="$T/vm" "$H/vm/vm.sh" --accel tcg --dry-run --mem 3G --device-reserved 1G "$T/build" "$T/initrd" true
	[[ "$output" == *" memmap=1024M%0x100000000-1+2"* ]] && [[ "$output" != *0xefffffff* ]]
	# Nothing without the options.
	run -0 env MZ_VM_DIR="$T/vm" "$H/vm/vm.sh" --accel tcg --dry-run "$T/build" "$T/initrd" true
	[[ "$output" != *nvme* ]] && [[ "$output" != *memmap=* ]]
	# Bad values, and layouts q35 cannot give.
	run -2 env MZ_VM_DIR="$T/vm" "$H/vm/vm.sh" --accel tcg --nvme-cmb 3 "$T/build" "$T/initrd" true
	[[ "$output" == *"power of two of 2 or more"* ]]
	run -2 env MZ_VM_DIR="$T/vm" "$H/vm/vm.sh" --accel tcg --nvme-cmb 1 "$T/build" "$T/initrd" true
	run -2 env MZ_VM_DIR="$T/vm" "$H/vm/vm.sh" --accel tcg --soft-reserved 100M "$T/build" "$T/initrd" true
	[[ "$output" == *"--soft-reserved '100M': want a multiple of 128M"* ]]
	run -2 env MZ_VM_DIR="$T/vm" "$H/vm/vm.sh" --accel tcg --device-reserved 256M "$T/build" "$T/initrd" true
	[[ "$output" == *"512M or more"* ]]
	run -2 env MZ_VM_DIR="$T/vm" "$H/vm/vm.sh" --accel tcg --soft-reserved 256M "$T/build" "$T/initrd" true
	[[ "$output" == *"2816M"* ]]
	run -2 env MZ_VM_DIR="$T/vm" "$H/vm/vm.sh" --accel tcg --mem 1G --soft-reserved 2G "$T/build" "$T/initrd" true
	run -2 env MZ_VM_DIR="$T/vm" "$H/vm/vm.sh" --accel tcg --numa --soft-reserved 1G "$T/build" "$T/initrd" true
	[[ "$output" == *"do not go with --numa"* ]]
}

@test "vm.sh: without --accel, MZ_ACCEL settles it once (auto: the probe's answer)" {
	fake_kernel
	mkdir -p "$MZ_CACHE/accel-probe"
	sum=$(sha256sum "$T/build/arch/x86/boot/bzImage" | cut -d' ' -f1)
	echo kvm >"$MZ_CACHE/accel-probe/$sum"
	# /dev/null stands in for a usable KVM device.
	MZ_ACCEL=auto MZ_KVM_DEV=/dev/null run -0 --separate-stderr \
		"$H/vm/vm.sh" --dry-run --nvdimms 0 "$T/build" "$T/initrd" true
	[[ "$output" == *" -accel kvm -cpu host "* ]]
	[[ "$stderr" == *"cached KVM probe for this kernel: kvm"* ]]
	MZ_ACCEL=tcg MZ_KVM_DEV=/dev/null run -0 --separate-stderr \
		"$H/vm/vm.sh" --dry-run --nvdimms 0 "$T/build" "$T/initrd" true
	[[ "$output" == *" -accel tcg -cpu max "* ]]
	[[ "$stderr" != *probe* ]]
	# --accel wins over MZ_ACCEL, and nothing is probed.
	MZ_ACCEL=auto MZ_KVM_DEV=/dev/null run -0 --separate-stderr \
		"$H/vm/vm.sh" --accel tcg --dry-run --nvdimms 0 "$T/build" "$T/initrd" true
	[[ "$output" == *" -accel tcg "* ]]
	[[ "$stderr" != *probe* ]]
	MZ_ACCEL=fast run -1 "$H/vm/vm.sh" --dry-run --nvdimms 0 "$T/build" "$T/initrd" true
	[[ "$output" == *"MZ_ACCEL=fast: not auto, kvm or tcg"* ]]
}

# --- deps.sh with stub dpkg-query/apt-get -----------------------------------

# stub_tools INSTALLED_OR_NOT APT_STATUS: dpkg-query says every package is
# installed, or (with "missing") that jq and git are not; apt-get logs its
# arguments to $T/apt.log and exits APT_STATUS.
stub_tools() {
	mkdir -p "$T/bin"
	cat >"$T/bin/dpkg-query" <<-EOF
	#!/bin/sh
	for p; do :; done
	if [ "$1" = missing ] && { [ "\$p" = jq ] || [ "\$p" = git ]; }; then
		echo not-installed
	else
		echo installed
	fi
	EOF
	printf '#!/bin/sh\necho "$*" >>"%s"\nexit %s\n' "$T/apt.log" "$2" >"$T/bin/apt-get"
	printf '#!/bin/sh\necho 0\n' >"$T/bin/id"
	chmod +x "$T/bin/"*
}

@test "deps.sh: nothing to do when every package is installed" {
	stub_tools all 0
	PATH=$T/bin:$PATH run -0 "$H/deps.sh"
	[[ "$output" == *"nothing to do"* ]]
	[ ! -e "$T/apt.log" ]
}

@test "deps.sh: installs only the missing packages, one apt-get update" {
	stub_tools missing 0
	PATH=$T/bin:$PATH run -0 "$H/deps.sh"
	[ "$(grep -c '^update' "$T/apt.log")" -eq 1 ]
	grep -qx 'install -y --no-install-recommends jq git' "$T/apt.log"
}

@test "deps.sh: clear error when apt-get fails" {
	stub_tools missing 100
	PATH=$T/bin:$PATH run -1 "$H/deps.sh"
	[[ "$output" == *"error: apt-get update failed"* ]]
}

# --- initramfs.sh -----------------------------------------------------------

@test "initramfs.sh: not a built kernel" {
	mkdir -p "$T/empty"
	run -1 "$H/vm/initramfs.sh" "$T/empty" "$T/out.cpio.gz"
	[[ "$output" == *"not a built kernel"* ]]
}

@test "initramfs.sh: contents, --add and libraries (fake build)" {
	fake_build
	mkdir -p "$T/extra"
	echo hello >"$T/extra/hello.txt"
	cp "$(command -v jq)" "$T/extra/jq"
	run -0 --separate-stderr "$H/vm/initramfs.sh" --add "$T/extra:/mz/extra" \
		--add "$ROOT/harness/lib.sh:/opt/" "$T/build" "$T/out.cpio.gz"
	[ "$output" = "$T/out.cpio.gz" ]
	zcat "$T/out.cpio.gz" | cpio -t --quiet >"$T/list"
	for f in init mz/init mz/tests/smoke mz/tests/true mz/ktap_helpers.sh \
		usr/bin/busybox usr/bin/bash usr/bin/ndctl usr/bin/daxctl usr/sbin/mkfs.ext4 \
		usr/sbin/modprobe usr/bin/kmod bin sbin lib lib64 usr/lib64/ld-linux-x86-64.so.2 \
		usr/lib/x86_64-linux-gnu/libndctl.so.6 usr/lib/x86_64-linux-gnu/libc.so.6 \
		usr/lib/modules/0.0.1-fake/modules.dep mz/extra/hello.txt mz/extra/jq opt/lib.sh; do
		grep -qx "$f" "$T/list" || { echo "missing: $f"; false; }
	done
	# jq's own libraries came with it.
	for lib in $(ldd "$(command -v jq)" | sed -n 's|.*=> /[^ ]*/\([^/ ]*\) .*|\1|p'); do
		grep -q "/$lib\$" "$T/list" || { echo "missing library: $lib"; false; }
	done
	if grep -q '/build$' "$T/list"; then false; fi
	# The harness's own guest fixtures are not in what every run ships.
	for f in "$ROOT"/tests/guest/*; do
		if grep -qx "mz/tests/${f##*/}" "$T/list"; then
			echo "shipped: mz/tests/${f##*/}"
			false
		fi
	done
}

@test "initramfs.sh: reused while its inputs are unchanged, remade when one changes" {
	fake_build
	mkdir -p "$T/extra"
	echo one >"$T/extra/a.txt"
	run -0 --separate-stderr "$H/vm/initramfs.sh" --add "$T/extra:/mz/extra" "$T/build" "$T/out.cpio.gz"
	[[ "$stderr" == *"made $T/out.cpio.gz"* ]]
	[ -s "$T/out.cpio.gz.stamp" ]
	run -0 --separate-stderr "$H/vm/initramfs.sh" --add "$T/extra:/mz/extra" "$T/build" "$T/out.cpio.gz"
	[ "$output" = "$T/out.cpio.gz" ]
	[[ "$stderr" == *"reusing $T/out.cpio.gz (its inputs are unchanged)"* ]]
	# An added file's contents, its mode, a module, another --add: remade.
	stamp() { cat "$T/out.cpio.gz.stamp"; }
	s0=$(stamp)
	echo two >"$T/extra/a.txt"
	run -0 --separate-stderr "$H/vm/initramfs.sh" --add "$T/extra:/mz/extra" "$T/build" "$T/out.cpio.gz"
	[[ "$stderr" == *"made $T/out.cpio.gz"* ]]
	zcat "$T/out.cpio.gz" | cpio -i --quiet --to-stdout mz/extra/a.txt >"$T/a"
	[ "$(cat "$T/a")" = two ]
	s1=$(stamp) && [ "$s1" != "$s0" ]
	chmod +x "$T/extra/a.txt"
	run -0 --separate-stderr "$H/vm/initramfs.sh" --add "$T/extra:/mz/extra" "$T/build" "$T/out.cpio.gz"
	[[ "$stderr" == *"made "* ]]
	s2=$(stamp) && [ "$s2" != "$s1" ]
	echo mod >"$T/build/modroot/lib/modules/0.0.1-fake/kernel/x.ko"
	run -0 --separate-stderr "$H/vm/initramfs.sh" --add "$T/extra:/mz/extra" "$T/build" "$T/out.cpio.gz"
	[[ "$stderr" == *"made "* ]]
	run -0 --separate-stderr "$H/vm/initramfs.sh" --add "$T/extra:/mz/other" "$T/build" "$T/out.cpio.gz"
	[[ "$stderr" == *"made "* ]]
	# A missing archive is made even when its stamp matches.
	rm "$T/out.cpio.gz"
	run -0 --separate-stderr "$H/vm/initramfs.sh" --add "$T/extra:/mz/other" "$T/build" "$T/out.cpio.gz"
	[[ "$stderr" == *"made "* ]] && [ -s "$T/out.cpio.gz" ]
}

@test "floors: every script sources ../lib.sh and runs no script of a higher floor" {
	# The floors' order, bottom first, is docs/developing.md's table.
	python3 - "$ROOT" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
sys.path.insert(0, f"{root}/tests/bats")
from docs_lib import harness_floors
order = [f.split("/")[1] for f in harness_floors(root) if "/" in f]
assert order[0] == "series" and order[-1] == "check", order
rank = {f: i for i, f in enumerate(order)}
peers = {"matrix", "bench", "peers"}  # one rank: they do not run each other
for f in peers:
    rank[f] = rank["matrix"]
bad = []
for path in sorted(glob.glob(f"{root}/harness/*/*.sh") + glob.glob(f"{root}/harness/*/*.py")):
    floor = path.split("/")[-2]
    code = [l for l in open(path) if not l.lstrip().startswith("#")]
    if path.endswith(".sh") and '. "$(dirname "$0")/../lib.sh"\n' not in code:
        bad.append(f"{path}: does not source ../lib.sh")
    for line in code:
        for callee in re.findall(r"(?:harness|\$H)/([a-z]+)/[a-z0-9-]+\.(?:sh|py)", line):
            if callee not in rank:
                bad.append(f"{path}: runs a script of no floor: {line.strip()}")
            elif rank[callee] > rank[floor] or (callee != floor and {callee, floor} <= peers):
                bad.append(f"{path} ({floor}) runs {callee}: {line.strip()}")
assert not bad, "\n".join(bad)
print(order)
PY
}

@test "lib.sh only defines: it runs no harness script, and every cache folder is in its layout" {
	# Outside comments, lib.sh names no harness/*.sh to run (callers run
	# tree.sh, kvm-probe.sh and the others themselves).
	# shellcheck disable=SC2016 # a regexp matching a literal $
	run grep -nE '^[^#]*(\$MZ_ROOT/harness|\$H)(/[a-z]+)?/[a-z0-9-]+\.sh' "$H/lib.sh"
	[ "$status" -eq 1 ] || { echo "lib.sh runs: $output"; false; }
	# No script spells a folder of the cache: they use lib.sh's layout.
	run grep -nE '\$\{?MZ_CACHE\}?/' "$H"/*.sh "$H"/*/*.sh
	bad=$(grep -vE '^[^:]*/lib\.sh:[0-9]+:' <<<"$output" || true)
	[ -z "$bad" ] || { echo "spelled outside lib.sh: $bad"; false; }
}

# --- install-lab-tests.sh: the lab's tests next to the target's ---------------

# A kselftest tree as build-selftests.sh installs it, and a lab of two tests.
fake_lab() {
	mkdir -p "$T/out/memmap_init" "$T/lab"
	printf 'memmap_init:memmap_equivalence.sh\nmemmap_init:memmap_data.sh\n' >"$T/out/kselftest-list.txt"
	touch "$T/out/memmap_init/memmap_lib.sh" "$T/out/memmap_init/memmap_data.sh"
	for f in memmap_lib_lab.sh lab_b.sh lab_a.sh; do echo "# $f" >"$T/lab/$f"; done
	printf '# order\nlab_b.sh\n\nlab_a.sh\n' >"$T/lab/list"
}

@test "install-lab-tests.sh: installs the listed tests and lists them after the target's, in order" {
	fake_lab
	run --separate-stderr "$H/build/install-lab-tests.sh" "$T/lab" "$T/out"
	[ "$status" -eq 0 ]
	[ "$(cat "$T/out/kselftest-list.txt")" = "$(printf '%s\n' memmap_init:memmap_equivalence.sh \
		memmap_init:memmap_data.sh memmap_init:lab_b.sh memmap_init:lab_a.sh)" ]
	[ -x "$T/out/memmap_init/lab_a.sh" ] && [ -x "$T/out/memmap_init/lab_b.sh" ]
	[ -f "$T/out/memmap_init/memmap_lib_lab.sh" ] && [ ! -x "$T/out/memmap_init/memmap_lib_lab.sh" ]
}

@test "install-lab-tests.sh: a test in neither place, in both, or left out of the list fails and installs nothing" {
	fake_lab
	cp "$T/out/kselftest-list.txt" "$T/list.before"
	echo missing.sh >>"$T/lab/list"
	run --separate-stderr "$H/build/install-lab-tests.sh" "$T/lab" "$T/out"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/lab/list names missing.sh, which $T/lab does not have"* ]]

	fake_lab
	echo memmap_data.sh >>"$T/lab/list"
	echo '# data' >"$T/lab/memmap_data.sh"
	run --separate-stderr "$H/build/install-lab-tests.sh" "$T/lab" "$T/out"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"memmap_data.sh is in the kselftest target and in $T/lab: keep one"* ]]

	rm -rf "$T/lab" && fake_lab
	echo '# new' >"$T/lab/lab_c.sh"
	run --separate-stderr "$H/build/install-lab-tests.sh" "$T/lab" "$T/out"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/lab/lab_c.sh is not in $T/lab/list, so it would never run"* ]]
	cmp "$T/list.before" "$T/out/kselftest-list.txt"
	[ ! -e "$T/out/memmap_init/lab_a.sh" ] && [ ! -e "$T/out/memmap_init/memmap_lib_lab.sh" ]
}

@test "install-lab-tests.sh: the repository's lab installs, and no test is in the lab and the target" {
	mkdir -p "$T/out/memmap_init"
	sed -n 's/^\tmemmap_\(.*\.sh\)\( \\\)\{0,1\}$/memmap_init:memmap_\1/p' \
		"$ROOT/tools/testing/selftests/memmap_init/Makefile" >"$T/out/kselftest-list.txt"
	while IFS=: read -r _ t; do touch "$T/out/memmap_init/$t"; done <"$T/out/kselftest-list.txt"
	grep -qx memmap_init:memmap_backend.sh "$T/out/kselftest-list.txt"
	run --separate-stderr "$H/build/install-lab-tests.sh" "$ROOT/guest/memmap_init" "$T/out"
	[ "$status" -eq 0 ]
	grep -qx memmap_init:memmap_hmm_peer.sh "$T/out/kselftest-list.txt"
}
