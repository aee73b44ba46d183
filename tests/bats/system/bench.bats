#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The real guest/tests/bench, once, on a 256 MiB NVDIMM of the patched
# kernel in MZ_TEST_BUILD (skipped without it), its output parsed as
# bench-report.py parses it; about 30 s under TCG:
#
#   MZ_TEST_BUILD=~/.cache/memmap-zone-device/build/series-stream-y bats tests/bats/system/bench.bats
#
# bench.sh and bench-report.py on canned guest output are
# tests/bats/bench.bats.

# shellcheck disable=SC2154 # $stderr is set by run --separate-stderr
bats_require_minimum_version 1.5.0
load ../common

setup() {
	mz_test_dirs
}

@test "guest/tests/bench: one real run on a 256 MiB NVDIMM parses" {
	[ -n "${MZ_TEST_BUILD:-}" ] ||
		skip "no kernel: set MZ_TEST_BUILD to a build-kernel.sh output directory"
	[ -f "$MZ_TEST_BUILD/arch/x86/boot/bzImage" ] ||
		skip "no kernel: $MZ_TEST_BUILD/arch/x86/boot/bzImage missing"
	grep -qx 'CONFIG_MEMMAP_STREAMING=y' "$MZ_TEST_BUILD/.config" ||
		skip "$MZ_TEST_BUILD is not a patched kernel with the streaming backend"
	ko=$("$H/build/build-bench-module.sh" "$MZ_TEST_BUILD")
	if [ -z "${MZ_KSRC:-}" ] && [ -d "$MZ_TEST_BUILD/source" ]; then
		export MZ_KSRC=$MZ_TEST_BUILD/source
	fi
	"$H/vm/initramfs.sh" --add "$ko:/mz/memremap_bench.ko" "$MZ_TEST_BUILD" "$T/i.cpio.gz" >/dev/null
	# The smallest size bench.sh accepts, one rebind, every device.
	export MZ_VM_DIR=$T/vm
	MZ_ACCEL=${MZ_ACCEL:-tcg} run -0 --separate-stderr "$H/vm/vm.sh" \
		--timeout 400 --nvdimms 1 --nvdimm-size 256M --mem 2048M --smp 2 \
		--log "$T/console.log" --append memmap_streaming=off \
		"$MZ_TEST_BUILD" "$T/i.cpio.gz" bench devices=fsdax-dev+fsdax-mem+devdax-2m+devprivate rebinds=1 size_bytes=268435456 expect=template threads=1
	printf '%s\n' "$output" >"$T/template.out"
	python3 - "$H/bench" "$T/template.out" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from benchreport import parse as m
devices = ["fsdax-dev", "fsdax-mem", "devdax-2m", "devprivate"]
words = "devices=fsdax-dev+fsdax-mem+devdax-2m+devprivate rebinds=1 size_bytes=268435456 expect=template threads=1"
binds, floors, info = m.parse_run("template", sys.argv[2], devices, 1, words)
assert info["instrument"] == "function_graph", info
assert info["tp_source"] == "tracepoint" and info["policy"] == "off", info
for d in devices:
    for k, b in binds[d].items():
        # 256 MiB: 65536 pages less map=dev's metadata; one call per bind.
        assert 0 < b["nr_pages"] <= 65536 and b["events"] == 1, (d, k, b)
        # function_graph hooks the entry and exit around the tracepoint's
        # own ktime window: never shorter.  The gap is noise (an interrupt
        # or a vCPU switch under TCG took 0.37 ms of a 1.5 ms bind in CI),
        # so the bound only has to catch a unit error (1000x): within 2x.
        fg, tp = b["memmap_init_ns"], b["tp_ns"]
        assert tp > 0 and fg >= tp and fg < 2 * tp + 1000000, (d, k, fg, tp)
    fl = floors[d]
    assert sorted(fl["pick"]) == ["memset", "movnti", "movq8", "stosq"], fl
    assert all(len(v) == 3 for v in fl["pick"].values()), fl
    assert fl["cand"] == min(fl["pick"], key=lambda c: min(fl["pick"][c])), fl
    assert fl["bytes"] == fl["nr_pages"] * 64 and fl["nr_pages"] == binds[d][1]["nr_pages"], fl
print("ok")
EOF
	# A size_bytes that is not the NVDIMM's size is refused before any bind.
	MZ_ACCEL=${MZ_ACCEL:-tcg} run -1 --separate-stderr "$H/vm/vm.sh" \
		--timeout 200 --nvdimms 1 --nvdimm-size 512M --mem 2048M --smp 2 \
		--log "$T/console2.log" --append memmap_streaming=off \
		"$MZ_TEST_BUILD" "$T/i.cpio.gz" bench devices=fsdax-dev rebinds=1 size_bytes=268435456 expect=template threads=1
	[[ "$output" == *"BENCH-ERROR the NVDIMM's region0 is 536870912 bytes, size_bytes says 268435456: the guest's device and the test's size disagree"* ]]
	[[ "$output" != *"BENCH device="* ]]
}
