#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: the project's tests, every step below in order.
#
#   check.sh      (make check; MZ_CHECK_QUICK=1, make check-quick: no matrix)
#
#   space       the file systems of MZ_CACHE and TMPDIR have room for the
#               run (harness/check/check-space.sh); when not, nothing else
#               runs
#   deps        harness/deps.sh installs what is missing
#   lint        shellcheck on the harness and guest scripts
#   fetch       the base source: download, verify and extract Linux 7.3.4
#               (harness/series/fetch-base.sh) unless the kernel tree
#               (harness/series/tree.sh) or LINUX_SRC already gives it
#   tree        the kernel tree with the series applied (tree.sh), once:
#               the steps below take it as it is (MZ_TREE_APPLIED)
#   mirror      patches/ and the kernel-tree mirror agree (check-mirror.sh)
#   checkpatch  checkpatch.pl --strict is silent on every patch (but for
#               the Originally-by: tag, see mz_checkpatch in lib.sh), the
#               ndctl series' included
#   distro-config  Debian's own 7.3.4 configuration, after olddefconfig on
#               the series, gets CONFIG_MEMMAP_STREAMING=y (distro-config.sh)
#   kernel      the series builds (variant stream-y), with the series'
#               KUnit test as a module (base.config)
#   first       the C files the first series touches compile without its
#               follow-up series (check-series.sh first)
#   ndctl       the companion ndctl series applies to ndctl 81 (fetched
#               from Debian and verified) and builds (build-ndctl.sh);
#               the matrix's guests run it
#   qemu        QEMU 10 from Debian's bookworm-backports beside the host's
#               (harness/vm/fetch-qemu.sh, make qemu) for the guests with
#               CXL memory: the matrix's cxl cell and its bats test; when
#               this fails, the cell is skipped, saying why
#   bats        the harness's own tests with fake guests, builds and trees
#               (tests/bats/*.bats), nproc files at a time (bats --jobs
#               and GNU parallel)
#   codegen     the template copies compile to what the series promises
#               (harness/build/codegen-check.sh: inline MOVNTI, the drains)
#   smoke       the guest smoke test: fsdax, devdax, device-private, and
#               the KUnit test loaded as a module (its step 5)
#   kunit       kunit.py's verdict on the KTAP the smoke guest printed
#               (harness/build/kunit.sh --guest-output); the arm64 run is
#               make check-series', the KASAN run make check-debug's
#   system      the harness's tests on the real things, one at a time
#               (tests/bats/system): vm.sh and matrix.sh booting the guest
#               kernel, the saved choice across two boots, one real bench
#               run, send-prep.sh on the kernel tree
#   matrix      the selftests across every variant x boot parameter
#               (harness/matrix/matrix.sh), unless MZ_CHECK_QUICK=1
#
# Every step runs even after a failure; the last line is the plain
# "N passed, N failed" summary and the exit status is non-zero on any
# failure.  Before it, the total time, and a warning naming the slowest
# steps when it passes MZ_CHECK_BUDGET (lib.sh).  Logs: $MZ_LOGS.
set -uo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 0 0 'no arguments' "$@"

passed=0
failed=0
failures=()
times=()
check_start=$(date +%s)
# step NAME CMD...: run CMD as step NAME, count it and keep its time.
step() {
	local name=$1 start rc
	shift
	start=$(date +%s)
	info "=== $name: $(mz_quote "$@")"
	"$@"
	rc=$?
	times+=("$(mz_since "$start") $name")
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		info "=== $name: ok ($(mz_since "$start") s)"
	else
		failed=$((failed + 1))
		failures+=("$name")
		info "=== $name: FAILED, exit $rc ($(mz_since "$start") s)"
	fi
	return "$rc"
}

H=$MZ_ROOT/harness
step space "$H/check/check-space.sh" || { echo "0 passed, 1 failed"; exit 1; }
step deps "$H/deps.sh" || { echo "$passed passed, 1 failed"; exit 1; }
lint() {
	shellcheck -x "$H"/*.sh "$H"/*/*.sh "$MZ_ROOT"/guest/init "$MZ_ROOT"/guest/lib/* "$MZ_ROOT"/guest/tests/* "$MZ_ROOT"/guest/bin/* \
		"$MZ_ROOT"/tests/guest/* &&
		shellcheck -x -P SCRIPTDIR -P "$MZ_ROOT/tools/testing/selftests/memmap_init" \
			"$MZ_ROOT"/guest/memmap_init/*.sh &&
		shellcheck -s bash "$MZ_ROOT"/tests/bats/*.bats "$MZ_ROOT"/tests/bats/*.bash "$MZ_ROOT"/tests/bats/system/*.bats \
			"$MZ_ROOT"/tests/bats/system/*.bash
}
step lint lint
fetch() {
	if git -C "$MZ_TREE" rev-parse -q --verify "refs/tags/$MZ_BASE_TAG" >/dev/null 2>&1; then
		info "kernel tree $MZ_TREE already has the base; nothing to fetch"
	elif [ -n "${LINUX_SRC:-}" ]; then
		info "the base comes from LINUX_SRC=$LINUX_SRC; nothing to fetch"
	else
		"$H/series/fetch-base.sh" >/dev/null
	fi
}
step fetch fetch
# The kernel tree, applied once here; the steps below take it as it is
# while patches/ is unchanged (tree.sh apply reads MZ_TREE_APPLIED).
apply_tree() {
	"$H/series/tree.sh" apply >/dev/null && MZ_TREE_APPLIED=$(series_stamp) && export MZ_TREE_APPLIED
}
step tree apply_tree
step mirror "$H/series/check-mirror.sh"
step checkpatch "$H/check/check-series.sh" checkpatch
step distro-config "$H/build/distro-config.sh"

build=
kernel() { build=$("$H/build/build-kernel.sh" "$MZ_STREAM_VARIANT"); }
step kernel kernel
step first "$H/check/check-series.sh" first
ndctl_root=
build_ndctl() { ndctl_root=$("$H/build/build-ndctl.sh"); }
step ndctl build_ndctl
step qemu "$H/vm/fetch-qemu.sh" --version
# The harness's own tests: no file boots a guest, so files share the
# CPUs.  Each file's tests run in order: a job per test costs more in
# GNU parallel and setup than it gains.
unit_bats() {
	bats --print-output-on-failure --jobs "$(nproc)" --no-parallelize-within-files "$MZ_ROOT/tests/bats"
}
step bats unit_bats

if [ -n "$build" ]; then
	step codegen "$H/check/check-series.sh" --build "$build" codegen
	smoke() {
		local initrd=$MZ_INITRAMFS/check-smoke.cpio.gz
		# The kunit step reads this run's output, never an older one.
		rm -f "$MZ_LOGS/check-smoke.log" "$MZ_LOGS/check-smoke.test.log"
		"$H/vm/initramfs.sh" "$build" "$initrd" >/dev/null &&
			"$H/vm/vm.sh" --log "$MZ_LOGS/check-smoke.log" "$build" "$initrd" -- smoke
	}
	step smoke smoke
	step kunit "$H/build/kunit.sh" --guest-output "$MZ_LOGS/check-smoke.test.log"
	MZ_TEST_BUILD=$build step system bats --print-output-on-failure "$MZ_ROOT/tests/bats/system"
	if [ "$MZ_CHECK_QUICK" != 1 ] && [ -x "$H/matrix/matrix.sh" ]; then
		if [ -n "$ndctl_root" ]; then
			step matrix "$H/matrix/matrix.sh" --ndctl "$ndctl_root"
		else
			step matrix "$H/matrix/matrix.sh"
		fi
	fi
fi

if [ "$failed" -gt 0 ]; then
	info "failed steps: ${failures[*]} (logs in $MZ_LOGS)"
fi
total=$(mz_since "$check_start")
info "=== total: $total s (budget $MZ_CHECK_BUDGET s, MZ_CHECK_BUDGET)"
if [ "$total" -gt "$MZ_CHECK_BUDGET" ]; then
	slowest=$(printf '%s\n' "${times[@]}" | sort -rn | head -n 3 | awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1 }')
	warn "make check took $total s, over its budget of $MZ_CHECK_BUDGET s; slowest steps: $slowest (cold budgets per step: docs/matrix.md, \"Time\")"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
