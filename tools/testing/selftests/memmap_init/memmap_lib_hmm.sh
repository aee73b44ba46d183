# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# The memmap_init selftests' helpers for test_hmm: its device-private
# memory and, in the range MEMMAP_INIT_HMM_COHERENT names, its
# device-coherent memory.  Sourced by memmap_lib.sh, never executed.

# Whether test_hmm was loaded before the test started: then the test
# neither reloads nor unloads it.
MI_HMM_PRELOADED=0
! grep -q '^test_hmm ' /proc/modules 2>/dev/null || MI_HMM_PRELOADED=1

# mi_hmm_init: false (MI_HMM_WHY set) without a loadable test_hmm, or
# when test_hmm was loaded before the test started.
mi_hmm_init() {
	MI_HMM_WHY=
	if [ "$MI_HMM_PRELOADED" = 1 ]; then
		MI_HMM_WHY="test_hmm was loaded when the test started: not"
		MI_HMM_WHY+=" reloading it ('modprobe -r test_hmm' to run these)"
		return 1
	fi
	if ! modinfo test_hmm >/dev/null 2>&1; then
		MI_HMM_WHY="no test_hmm module (CONFIG_TEST_HMM=m)"
		return 1
	fi
	if [ -d /sys/module/test_hmm ] && ! grep -q '^test_hmm ' /proc/modules; then
		MI_HMM_WHY="test_hmm is built in, its parameter cannot change"
		return 1
	fi
	if ! modinfo -p test_hmm 2>/dev/null | grep -q '^memmap_streaming:'; then
		MI_HMM_WHY="test_hmm has no memmap_streaming parameter"
		return 1
	fi
	# mi_cleanup unloads it.
	MI_HMM_USED=1
}

# MI_COHERENT_SIZE: the memory of test_hmm's two device-coherent devices,
# 256 MiB each (DEVMEM_CHUNK_SIZE).
MI_COHERENT_SIZE=$((512 << 20))

# mi_coherent_init: take the range MEMMAP_INIT_HMM_COHERENT names for
# test_hmm's device-coherent devices.  Sets MI_COHERENT.  Returns false
# (MI_COHERENT_WHY set) when the run names none or test_hmm cannot be
# loaded (mi_hmm_init); bails out when the range is not 2 MiB-aligned
# or not within one "Reserved" range of /proc/iomem.
mi_coherent_init() {
	local a=${MEMMAP_INIT_HMM_COHERENT:-} l s e name found=0
	MI_COHERENT_WHY=
	if [ -z "$a" ]; then
		MI_COHERENT_WHY="set MEMMAP_INIT_HMM_COHERENT=ADDR (512 MiB of reserved"
		MI_COHERENT_WHY+=" memory, e.g. memmap=512M%ADDR-1+2) to let test_hmm"
		MI_COHERENT_WHY+=" use it as device-coherent memory"
		return 1
	fi
	a=$((a))
	[ $((a % (2 << 20))) -eq 0 ] ||
		mi_bail "MEMMAP_INIT_HMM_COHERENT=$MEMMAP_INIT_HMM_COHERENT is not 2 MiB-aligned"
	# Top-level ranges: "start-end : name", addresses in hex.
	while IFS= read -r l; do
		[[ "$l" =~ ^([0-9a-f]+)-([0-9a-f]+)\ :\ (.*)$ ]] || continue
		s=$((16#${BASH_REMATCH[1]})) e=$((16#${BASH_REMATCH[2]})) name=${BASH_REMATCH[3]}
		if [ "$s" -le "$a" ] && [ "$e" -ge $((a + MI_COHERENT_SIZE - 1)) ] &&
			[ "$name" = Reserved ]; then
			found=1
		fi
	done </proc/iomem
	[ "$found" = 1 ] ||
		mi_bail "MEMMAP_INIT_HMM_COHERENT=$MEMMAP_INIT_HMM_COHERENT:" \
			"$((MI_COHERENT_SIZE >> 20)) MiB from there" \
			"are not within one Reserved range of /proc/iomem"
	if ! mi_hmm_init; then
		MI_COHERENT_WHY=$MI_HMM_WHY
		return 1
	fi
	MI_COHERENT=$a
}

# mi_coherent_load REQUEST: (re)load test_hmm with that request and the
# device-coherent range (mi_hmm_load).
mi_coherent_load() {
	mi_hmm_load "$1" "spm_addr_dev0=$(printf '%#x' "$MI_COHERENT")" \
		"spm_addr_dev1=$(printf '%#x' $((MI_COHERENT + MI_COHERENT_SIZE / 2)))"
}

# mi_hmm_load REQUEST [PARAM...]: (re)load test_hmm with that request and
# the module parameters PARAM; MI_BIND_NS is how long the load, which
# contains the binds, took.
mi_hmm_load() {
	local t0 rc=0 req=$1
	shift
	modprobe -r test_hmm 2>/dev/null
	[ -z "$MI_TRACE" ] || mi_trace_clear
	t0=$(mi_now_ns)
	modprobe test_hmm "memmap_streaming=$req" "$@" >"$MI_TMP/modprobe.out" 2>&1 || rc=1
	MI_BIND_NS=$(($(mi_now_ns) - t0))
	if [ "$rc" -ne 0 ]; then
		ktap_print_msg "'modprobe test_hmm memmap_streaming=$req $*' failed:"
		mi_indent <"$MI_TMP/modprobe.out"
		return 1
	fi
}

# mi_hmm_unload: unload test_hmm; false, saying so, when it stays loaded
# (the next test would take it for the user's).
mi_hmm_unload() {
	modprobe -r test_hmm 2>/dev/null
	! grep -q '^test_hmm ' /proc/modules || {
		ktap_print_msg "cannot unload test_hmm"
		return 1
	}
}
