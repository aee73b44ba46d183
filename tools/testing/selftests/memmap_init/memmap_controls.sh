#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The controls of streaming memmap initialization:
#  - the boot log names the policy that memmap_streaming= or the default
#    (altmap) selects and where it came from, and warns about each value
#    it ignores; there is no runtime file for it;
#  - the memmap_streaming attribute of an NVDIMM namespace accepts default,
#    on and off, with or without a newline, and rejects anything else, "on"
#    without CONFIG_MEMMAP_STREAMING and every write while the namespace or
#    its fsdax/devdax device is enabled, leaving the request unchanged;
#  - the request survives reconfiguring the namespace;
#  - without MEMMAP_INIT_NAMESPACE (memmap_lib.sh) only the first of these
#    runs, reading the attribute of every pmem namespace and writing none;
#  - test_hmm rejects a bad memmap_streaming= parameter;
#  - the multithreaded init has no tunable of its own: no
#    memmap_init_zone_device directory in debugfs, no max_threads or
#    min_chunk_pages (the binding task's CPUs and cgroup limit it;
#    memmap_threads.sh tests them).

# shellcheck source=memmap_lib.sh
. "$(dirname "$0")/memmap_lib.sh"

mi_init
mi_trace_need
have_config=1
mi_load_config || have_config=0
mi_devices

ktap_print_header
ktap_set_plan 26

# --------------------------------------------------------------- policy

[ ! -e /sys/kernel/mm/memmap_streaming ]
mi_result "no runtime policy file: the boot log and the trace event tell" $? \
	"/sys/kernel/mm/memmap_streaming exists"

if [ "$have_config" = 1 ]; then
	read -r want_policy want_source < <(mi_expected_policy)
	ktap_print_msg "command line: $(tr -d '\n' </proc/cmdline)"
fi

log=$(dmesg)
if [ "$have_config" = 0 ]; then
	mi_skip "boot log names the policy and its source" "kernel configuration unknown"
	mi_skip "boot log warns about each memmap_streaming= value it ignores" \
		"kernel configuration unknown"
elif ! grep -q 'Linux version' <<<"$log"; then
	why="the kernel log no longer holds the boot messages"
	mi_skip "boot log names the policy and its source" "$why"
	mi_skip "boot log warns about each memmap_streaming= value it ignores" "$why"
else
	lines=$(grep -F 'memmap_streaming: policy' <<<"$log")
	[ -n "$lines" ] && ktap_print_msg "boot log: $lines"
	if mi_config MEMMAP_STREAMING; then
		want="memmap_streaming: policy $want_policy ($want_source)"
		[ "$(grep -c . <<<"$lines")" -eq 1 ] && grep -qF "$want" <<<"$lines"
		mi_result "boot log names the policy and its source" $? \
			"want one line '$want'"
	else
		# Without the backend there is no policy to report.
		[ -z "$lines" ]
		mi_result "boot log names no policy without CONFIG_MEMMAP_STREAMING" $? \
			"want no 'memmap_streaming: policy' line"
	fi

	# One warning per value the kernel did not take.
	nbad=0
	if mi_config MEMMAP_STREAMING; then
		while IFS= read -r v; do
			case "$v" in off|altmap|on) ;; *) nbad=$((nbad + 1)) ;; esac
		done < <(mi_cmdline_values)
		warn='memmap_streaming=.* not understood'
	else
		nbad=$(mi_cmdline_values | wc -l)
		warn='memmap_streaming= ignored: kernel built without CONFIG_MEMMAP_STREAMING'
	fi
	n=$(grep -c "$warn" <<<"$log")
	grep "$warn" <<<"$log" | mi_indent
	[ "$n" -eq "$nbad" ]
	mi_result "boot log warns about each memmap_streaming= value it ignores" $? \
		"want $nbad warning(s) '$warn', got $n"
fi

# --------------------------------------------------------------- namespace

ns_tests=(
	"namespace attribute lists default on off, one in brackets"
	"namespace accepts 'default\\n'" "namespace accepts 'default'"
	"namespace accepts 'on\\n'" "namespace accepts 'on'"
	"namespace accepts 'off\\n'" "namespace accepts 'off'"
	"namespace rejects an unknown word with EINVAL, request unchanged"
	"namespace rejects an empty line with EINVAL, request unchanged"
	"namespace rejects a valid word with trailing garbage with EINVAL, request unchanged"
	"namespace rejects a valid word padded with spaces to 4 KiB with EINVAL, request unchanged"
	"namespace rejects a valid word padded with spaces past a page with EINVAL, request unchanged"
	"namespace attribute is 0644 and refuses a non-root write, request unchanged"
	"namespace rejects 'on' with EOPNOTSUPP without CONFIG_MEMMAP_STREAMING"
	"namespace rejects writes with EBUSY while enabled in raw mode, request unchanged"
	"namespace rejects writes with EBUSY while enabled in fsdax mode, request unchanged"
	"namespace rejects writes with EBUSY while enabled in devdax mode, request unchanged"
	"namespace request survives ndctl create-namespace -f -e"
	"namespace request survives daxctl reconfigure-device and disable/enable-device"
)

# reject DESC WANT ARGS...: "memmap_write ARGS" reports WANT (an errno
# name, or ok) and leaves the request as it was.
reject() {
	local desc=$1 want=$2 before out after
	shift 2
	before=$(mi_ns_request)
	out=$("$MI_WRITE" "$@")
	after=$(mi_ns_request)
	[ "$out" = "$want" ] && [ "$after" = "$before" ]
	mi_result "$desc" $? \
		"wanted $want with the request left at '$before'; got $out, request '$after'"
}

# busy DESC: every write fails with EBUSY while the namespace is enabled
# ("on" without the backend is refused as EOPNOTSUPP before that check).
busy() {
	local desc=$1 before out after v want ok=0
	before=$(mi_ns_request)
	for v in default on off; do
		want=EBUSY
		if [ "$v" = on ] && ! mi_config MEMMAP_STREAMING; then
			want=EOPNOTSUPP
		fi
		out=$("$MI_WRITE" "$MI_NS_ATTR" "$v")
		after=$(mi_ns_request)
		if [ "$out" != "$want" ] || [ "$after" != "$before" ]; then
			ktap_print_msg "$desc: writing '$v' gave $out," \
				"request '$after' (was '$before')"
			ok=1
		fi
	done
	mi_result "$desc" $ok
}

# ro_attrs: without a namespace to change, the first test only reads:
# every pmem namespace's attribute lists the three requests.
ro_attrs() {
	local d val n=0 ok=0
	for d in /sys/bus/nd/devices/namespace*; do
		case "$(cat "$d/devtype" 2>/dev/null)" in
		nd_namespace_pmem|nd_namespace_io) ;;
		*) continue ;;
		esac
		n=$((n + 1))
		val=$(cat "$d/memmap_streaming" 2>&1)
		ktap_print_msg "${d##*/}/memmap_streaming: $val"
		[[ "$val" =~ $MI_NS_ATTR_RE ]] || ok=1
	done
	if [ "$n" -eq 0 ]; then
		mi_skip "${ns_tests[0]}" "no pmem namespace; $MI_NS_WHY"
	else
		mi_result "${ns_tests[0]}" "$ok" "read only, on all $n pmem namespace(s)"
	fi
}

if [ "$have_ns" = 0 ]; then
	ro_attrs
	for t in "${ns_tests[@]:1}"; do mi_skip "$t" "$MI_NS_WHY"; done
else
	ktap_print_msg "using $MI_NS"
	mi_ns_disable
	val=$(cat "$MI_NS_ATTR")
	ktap_print_msg "$MI_NS_ATTR: $val"
	[[ "$val" =~ $MI_NS_ATTR_RE ]]
	mi_result "${ns_tests[0]}" $? "got '$val'"

	streaming=1
	[ "$have_config" = 0 ] || mi_config MEMMAP_STREAMING || streaming=0
	for v in default on off; do
		for nl in $'\n' ''; do
			desc="namespace accepts '$v${nl:+\\n}'"
			if [ "$v" = on ] && [ "$streaming" = 0 ]; then
				mi_skip "$desc" "kernel built without CONFIG_MEMMAP_STREAMING"
				continue
			fi
			# Start from another value, so that the write must change it.
			other=off
			[ "$v" != off ] || other=default
			"$MI_WRITE" "$MI_NS_ATTR" "$other" >/dev/null
			out=$("$MI_WRITE" "$MI_NS_ATTR" "$v$nl")
			got=$(mi_ns_request)
			[ "$out" = ok ] && [ "$got" = "$v" ]
			mi_result "$desc" $? "write gave $out, request reads '$got'"
		done
	done

	"$MI_WRITE" "$MI_NS_ATTR" off >/dev/null
	reject "${ns_tests[7]}" EINVAL "$MI_NS_ATTR" bogus
	reject "${ns_tests[8]}" EINVAL "$MI_NS_ATTR" $'\n'
	reject "${ns_tests[9]}" EINVAL "$MI_NS_ATTR" "default x"
	# kernfs hands the store at most a page; what it gets is still not
	# a word, however much of the padding a lenient parser would strip.
	reject "${ns_tests[10]}" EINVAL -s 4096 "$MI_NS_ATTR" default
	reject "${ns_tests[11]}" EINVAL -s 8192 "$MI_NS_ATTR" default
	mode=$(stat -c %a "$MI_NS_ATTR")
	before=$(mi_ns_request)
	out=$("$MI_WRITE" -u 65534 "$MI_NS_ATTR" default)
	after=$(mi_ns_request)
	[ "$mode" = 644 ] && [ "$out" = EACCES ] && [ "$after" = "$before" ]
	mi_result "${ns_tests[12]}" $? \
		"mode $mode, a write as uid 65534 gave $out, request '$after' (was '$before')"
	if [ "$streaming" = 1 ]; then
		mi_skip "${ns_tests[13]}" "kernel built with CONFIG_MEMMAP_STREAMING"
	else
		reject "${ns_tests[13]}" EOPNOTSUPP "$MI_NS_ATTR" on
	fi

	# Enabled in raw mode: the namespace itself has a driver.  Earlier
	# groups may have left it in another mode.
	mi_ns_reconfig --mode=raw
	busy "${ns_tests[14]}"
	# fsdax: the pfn device claiming it has a driver.
	mi_ns_reconfig --mode=fsdax --map=dev
	busy "${ns_tests[15]}"
	mi_ns_reconfig --mode=devdax --map=dev --align="$MI_ALIGN_PMD"
	busy "${ns_tests[16]}"

	# The request belongs to the namespace, not to its current claim.
	req=off
	[ "$streaming" = 0 ] || req=on
	mi_ns_disable && mi_ns_set $req
	mi_ns_reconfig --mode=fsdax --map=dev &&
		mi_ns_reconfig --mode=devdax --map=dev --align="$MI_ALIGN_PMD"
	got=$(mi_ns_request)
	[ "$got" = "$req" ]
	mi_result "${ns_tests[17]}" $? "set '$req', reads '$got' after two reconfigurations"

	dax=$(mi_ns_dev chardev)
	if ! command -v daxctl >/dev/null; then
		mi_skip "${ns_tests[18]}" "daxctl not installed"
	elif [ -z "$dax" ]; then
		mi_result "${ns_tests[18]}" 1 "no device-dax device on $MI_NS"
	else
		rc=0
		for op in "reconfigure-device --mode=devdax --force" \
			disable-device enable-device; do
			# shellcheck disable=SC2086 # op holds the command and its options
			daxctl $op "$dax" >"$MI_TMP/daxctl.out" 2>&1 || {
				ktap_print_msg "'daxctl $op $dax' failed:"
				mi_indent <"$MI_TMP/daxctl.out"
				rc=1
			}
		done
		got=$(mi_ns_request)
		[ "$rc" -eq 0 ] && [ "$got" = "$req" ]
		mi_result "${ns_tests[18]}" $? \
			"daxctl status $rc, request reads '$got', want '$req'"
	fi
	mi_ns_reset
fi

# --------------------------------------------------------------- test_hmm

hmm_tests=(
	"test_hmm rejects memmap_streaming=bogus"
	"test_hmm shows its memmap_streaming parameter"
	"test_hmm rejects memmap_streaming=on without CONFIG_MEMMAP_STREAMING"
)
if [ "$have_hmm" = 0 ]; then
	for t in "${hmm_tests[@]}"; do mi_skip "$t" "$MI_HMM_WHY"; done
else
	mi_hmm_unload
	! modprobe test_hmm memmap_streaming=bogus >"$MI_TMP/out" 2>&1 &&
		! grep -q '^test_hmm ' /proc/modules
	mi_result "${hmm_tests[0]}" $? "modprobe succeeded or left the module loaded"
	mi_indent <"$MI_TMP/out"
	mi_hmm_unload

	val=
	if modprobe test_hmm memmap_streaming=off >"$MI_TMP/out" 2>&1; then
		val=$(cat /sys/module/test_hmm/parameters/memmap_streaming 2>/dev/null)
	fi
	mi_indent <"$MI_TMP/out"
	[ "$val" = off ]
	mi_result "${hmm_tests[1]}" $? \
		"parameter reads '$val' after loading with memmap_streaming=off"
	mi_hmm_unload

	if [ "$have_config" = 0 ] || mi_config MEMMAP_STREAMING; then
		mi_skip "${hmm_tests[2]}" \
			"kernel built with CONFIG_MEMMAP_STREAMING or configuration unknown"
	else
		! modprobe test_hmm memmap_streaming=on >"$MI_TMP/out" 2>&1 &&
			! grep -q '^test_hmm ' /proc/modules
		mi_result "${hmm_tests[2]}" $? "modprobe succeeded"
		mi_hmm_unload
	fi
fi

# --------------------------------------------------------------- threads

t="no debugfs tunable of the multithreaded init (/sys/kernel/debug/memmap_init_zone_device)"
if [ "$have_config" = 1 ] && ! mi_config DEBUG_FS; then
	mi_skip "$t" "kernel built without CONFIG_DEBUG_FS"
elif ! mi_debugfs; then
	mi_skip "$t" "no debugfs at /sys/kernel/debug"
else
	[ ! -e /sys/kernel/debug/memmap_init_zone_device ]
	f=/sys/kernel/debug/memmap_init_zone_device
	mi_result "$t" $? "it exists: $(find "$f" -mindepth 1 | tr "\n" " ")"
fi

mi_finished
