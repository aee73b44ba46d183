#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # mz_opt and mz_flag (lib.sh) set the options' variables
# bench.sh: the main job: time memmap_init_zone_device() and the whole bind
# in QEMU guests on 7.3.4 (base), on the first series (template, template
# +streaming; one thread) and on both series (the same on every vCPU).
# Memory hotplug devices (devices.txt's INIT memmap_init_range) run apart:
# base, the kernel with every series (template: patches/hotplug/) and the
# first series' (first: a control), each on one thread.
#
#   bench.sh [options]          (make bench BENCH_ARGS='...')
#
# Every option is checked before anything is built or booted (errors exit
# 2).  The host decides the plan, a line of KEY=VALUE words per boot in
# the results' FILE.plan; each guest gets its line's words as its
# arguments and prints them back, and bench-report.py takes the runs,
# devices, rebinds and sizes from the plan and checks each boot's output
# against it.  What the boots are and what the table shows: docs/bench.md.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

# The devices: harness/bench/devices.txt; the default ones are marked yes.
DEVICES_FILE=$MZ_ROOT/harness/bench/devices.txt
ALL_DEVICES=$(awk '!/^#/ && NF { printf "%s%s", sep, $1; sep = " " }' "$DEVICES_FILE")
DEFAULT_DEVICES=$(awk '!/^#/ && $2 == "yes" { printf "%s%s", sep, $1; sep = "," }' "$DEVICES_FILE")
# Memory hotplug: the devices whose memmap init (INIT) is the hot-added
# memory's, as benchreport/lines.py's HOTPLUG.
HOTPLUG_INIT=memmap_init_range
HOTPLUG_DEVICES=$(awk -v f="$HOTPLUG_INIT" '!/^#/ && $3 == f { printf "%s%s", sep, $1; sep = " " }' "$DEVICES_FILE")
MAX_REBINDS=200
MAX_SMP=64
SIZE_RE='[1-9][0-9]{0,6}[MGT]'

mz_opt --devices devices_arg "$DEFAULT_DEVICES" LIST '^[a-z0-9-]+(,[a-z0-9-]+)*$' \
	"comma-separated, from $ALL_DEVICES (harness/bench/devices.txt)"
mz_opt --rebinds rebinds 10 N '^[0-9]{1,6}$' "rebinds per device and boot, 1..$MAX_REBINDS"
mz_opt --size sizes_arg 4G SIZE "^$SIZE_RE\$" \
	'one NVDIMM and device-private size, NNNM, NNNG or NNNT, a multiple of 128M (--sizes: several)'
mz_opt --sizes sizes_arg "$sizes_arg" LIST "^$SIZE_RE(,$SIZE_RE)*\$" 'several sizes in one run, e.g. 1G,8G,64G'
mz_opt --smp vcpus 2 N '^[0-9]{1,6}$' "guest vCPUs, 1..$MAX_SMP"
mz_flag --no-threads no_threads 'skip the threaded boots and base-cpus'
mz_flag --busy busy "add the busy host's two boots per size"
mz_opt --accel accel "$MZ_ACCEL" ACCEL '^(auto|kvm|tcg)$' 'auto, kvm or tcg'
mz_opt --results results "$BENCH_RESULTS" FILE '^.*[^/]$' 'the JSON; the table goes to FILE with .txt for .json'
mz_opt --chart chart '' FILE '\.svg$' 'the SVG chart (default: --results with .svg)'
mz_flag --no-probe no_probe 'skip the user-space store probe'
mz_opt --nvdimm-memory nvmem ram WHERE '^(ram|file)$' "ram or file: what holds the NVDIMM's contents (vm.sh)"
mz_opt --base-build base_dir '' DIR . 'use this built base kernel (build-kernel.sh output)'
mz_opt --first-build first_dir '' DIR . "use this built first series' kernel"
mz_opt --patched-build patched_dir '' DIR . 'use this built kernel with both series'
mz_opt --timeout timeout '' SECONDS '^[1-9][0-9]*$' 'per boot (default: from the sizes, devices and rebinds)'
mz_opt --assume-mem-avail assume_mem '' MIB '^[0-9]+$' 'check the host against this MemAvailable (tests)'
mz_opt --assume-disk-free assume_disk '' MIB '^[0-9]+$' 'check the host against this free disk space (tests)'
mz_flag --check-args check_only 'validate the options and exit'
mz_parse "$@"
[ ${#MZ_OPERANDS[@]} -eq 0 ] || mz_arg_error "unexpected argument '${MZ_OPERANDS[0]}'"
probe=$((1 - no_probe)) threads=$((1 - no_threads))

# --- validation: nothing is built or booted before this passes -------------

devices=()
IFS=, read -r -a devices <<<"$devices_arg"
# pmem: an NVDIMM namespace is named; cxlp, cxlr: a CXL pmem, ram device;
# hot: memory hotplug devices are named (NVDIMM namespaces too), and they
# alone (hotdevs; others: the rest).
pmem=0 cxlp=0 cxlr=0 hot=0 hotdevs='' others=''
for d in "${devices[@]}"; do
	case " $ALL_DEVICES " in
	*" $d "*) ;;
	*) mz_arg_error "--devices '$devices_arg': unknown device '$d' (known: $ALL_DEVICES)" ;;
	esac
	[ "$(printf '%s\n' "${devices[@]}" | grep -cx -- "$d")" -eq 1 ] ||
		mz_arg_error "--devices '$devices_arg': '$d' is named twice"
	case "$d" in
	devprivate) ;;
	cxl-fsdax-dev) cxlp=1 ;;
	cxl-devdax) cxlr=1 ;;
	*) pmem=1 ;;
	esac
	case " $HOTPLUG_DEVICES " in
	*" $d "*) hot=1 hotdevs+=${hotdevs:+,}$d ;;
	*) others+=${others:+,}$d ;;
	esac
done
# A memory hotplug run has boots of its own (below).
if [ "$hot" = 1 ] && [ -n "$others" ]; then
	mz_arg_error "--devices '$devices_arg': $hotdevs (memory hotplug) and $others have different boots: run them separately (make bench does: BENCH_HOTPLUG_ARGS)"
fi

[ "$((10#$rebinds))" -ge 1 ] ||
	mz_arg_error "--rebinds '$rebinds': at least 1 (the median is over the rebinds)"
[ "$((10#$rebinds))" -le "$MAX_REBINDS" ] ||
	mz_arg_error "--rebinds '$rebinds': at most $MAX_REBINDS (the guest's 128 KiB kernel log must hold the devprivate lines)"
rebinds=$((10#$rebinds))

sizes=()
IFS=, read -r -a sizes <<<"$sizes_arg"
# Each size in bytes, the unit it travels in to the guest and its module;
# in MiB for the checks and QEMU's arguments here.
size_bytes=() size_mibs=()
size_mib=0 # the largest: it sizes the guest and the host checks
for sz in "${sizes[@]}"; do
	[[ "$sz" =~ ^([1-9][0-9]*)([MGT])$ ]]
	case "${BASH_REMATCH[2]}" in
	M) b=$((BASH_REMATCH[1] << 20)) ;;
	G) b=$((BASH_REMATCH[1] << 30)) ;;
	T) b=$((BASH_REMATCH[1] << 40)) ;;
	esac
	s=$((b >> 20))
	# A device-private range may be one memory section; a namespace
	# needs more.
	if [ $((cxlp + cxlr)) -gt 0 ] && [ $((s % 256)) -ne 0 ]; then
		mz_arg_error "--size $sz: a multiple of 256M with a CXL device (CXL's capacity unit)"
	fi
	if [ $((pmem + cxlp)) = 0 ]; then
		[ "$s" -ge 128 ] || mz_arg_error "--size $sz: at least 128M (one memory section)"
	elif [ "$s" = 128 ]; then
		mz_arg_error "--size $sz: at least 256M (one namespace with its metadata and 2 MiB alignment); 128M only with --devices devprivate"
	else
		[ "$s" -ge 256 ] || mz_arg_error "--size $sz: at least 256M (one namespace with its metadata and 2 MiB alignment)"
	fi
	[ $((s % 128)) -eq 0 ] || mz_arg_error "--size $sz: not a multiple of 128M (one memory section)"
	case " ${size_mibs[*]} " in *" $s "*) mz_arg_error "--sizes: $sz is named twice" ;; esac
	size_mibs+=("$s") size_bytes+=("$b")
	if [ "$s" -gt "$size_mib" ]; then size_mib=$s; size=$sz; fi
done

{ [ "$((10#$vcpus))" -ge 1 ] && [ "$((10#$vcpus))" -le "$MAX_SMP" ]; } ||
	mz_arg_error "--smp '$vcpus': the guest takes 1 to $MAX_SMP vCPUs"
vcpus=$((10#$vcpus))
# One vCPU runs one thread: the threaded boots would repeat the others.
# Memory hotplug's memmap init is neither threaded nor streamed.
threads_skipped='' skipped="threaded boots"
if [ "$hot" = 1 ]; then
	threads=0 skipped="streaming and threaded boots"
	threads_skipped="memory hotplug: $HOTPLUG_INIT() has no streaming backend and runs on one thread"
elif [ "$threads" = 0 ]; then
	threads_skipped="--no-threads"
elif [ "$vcpus" = 1 ]; then
	threads=0 threads_skipped="--smp 1: one vCPU runs the threaded init on one thread"
fi
if [ "$busy" = 1 ] && [ "$threads" = 0 ]; then
	mz_arg_error "--busy: the busy host's boots need the threaded ones, which are skipped ($threads_skipped)"
fi

mz_form MZ_ACCEL "$accel" '^(auto|kvm|tcg)$' 'auto, kvm or tcg'
nvwhere="in QEMU's memory"
[ "$nvmem" = ram ] || nvwhere="in a file in ${MZ_VM_DIR:-$MZ_VM_BENCH_FILES}"
mz_form BENCH_RESULTS "$results" '^.*[^/]$' 'a file name'
if [ -z "$chart" ]; then chart=${results%.json}.svg; fi
mz_form --chart "$chart" '\.svg$' 'a file name ending in .svg'
text=${results%.json}.txt
[ "$text" != "$results" ] || text=$results.txt

# Guest RAM: 1 GiB for the system plus three times the memmap of one
# device (map=mem and device-private keep it in RAM), at least 2 GiB.
meta_mib=$(( (size_mib + 63) / 64 ))
mem_mib=$((1024 + 3 * meta_mib))
mem_mib=$(( (mem_mib + 255) / 256 * 256 ))
[ "$mem_mib" -ge 2048 ] || mem_mib=2048

# Guest physical addresses: RAM, the NVDIMM, a free range as large for
# device-private memory, the CXL window and QEMU's 1 GiB slack must fit
# the 40 address bits QEMU gives a TCG CPU (the harness sets no phys-bits
# for KVM either).
span_mib=$((mem_mib + (2 + cxlp + cxlr) * size_mib + 1024))
[ "$span_mib" -le $((1 << 20)) ] ||
	mz_arg_error "--size $size: guest RAM, NVDIMM, device-private range and CXL memory need $((span_mib >> 10)) GiB of guest physical address space, more than QEMU's 1 TiB (40-bit) default"

vmdir=${MZ_VM_DIR:-$MZ_VM_BENCH_FILES}
if [ -n "$assume_disk" ]; then
	free_mib=$assume_disk
else
	d=$vmdir
	while [ ! -d "$d" ]; do d=$(dirname "$d"); done
	free_mib=$(( $(df -Pk "$d" | awk 'NR == 2 { print $4 }') / 1024 ))
fi
# The map=dev metadata written to files there: the NVDIMM's with
# --nvdimm-memory file, the CXL pmem device's always (vm.sh backs it with
# a file).
files=$cxlp
[ "$pmem" = 0 ] || [ "$nvmem" = ram ] || files=$((files + 1))
disk_mib=0
[ "$files" = 0 ] || disk_mib=$((files * meta_mib + 512))
[ "$disk_mib" -le "$free_mib" ] ||
	mz_arg_error "--size $size: the map=dev metadata needs up to $disk_mib MiB in the NVDIMM or CXL pmem file on the filesystem of $vmdir (with 512 MiB to spare), only $free_mib MiB free"

if [ -n "$assume_mem" ]; then
	avail_mib=$assume_mem
else
	avail_mib=$(( $(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) / 1024 ))
fi
# The CXL pmem file's metadata sits in the page cache too.
dev_meta_mib=$(( (pmem + cxlp) * meta_mib ))
ram_mib=$((mem_mib + dev_meta_mib + 512))
[ "$ram_mib" -le "$avail_mib" ] ||
	mz_arg_error "--size $size: the guest needs $mem_mib MiB of RAM, plus $dev_meta_mib MiB of NVDIMM and CXL pmem metadata ($([ "$nvmem" = ram ] && echo "$nvwhere" || echo "in the page cache")) and 512 MiB for QEMU: $ram_mib MiB, MemAvailable is $avail_mib MiB"
if [ "$probe" = 1 ]; then
	# store-probe.sh --size 2G refuses more than 75% of MemAvailable.
	[ "$avail_mib" -ge 2731 ] ||
		mz_arg_error "the store probe needs 2 GiB within 75% of MemAvailable ($avail_mib MiB): free memory or use --no-probe"
fi

# Which kernel runs the single-threaded patched boots: the first series
# alone (build-kernel.sh --first) when patches/ has a follow-up series and
# the kernels are built on 7.3.4; else the one patched kernel.
split=1 why=
if [ "$MZ_BUILD_KIND" != series ]; then
	split=0 why="MZ_BUILD_KIND=$MZ_BUILD_KIND builds the series and its follow-up together"
elif [ ! -f "$MZ_PATCHES/threads/series" ]; then
	split=0 why="$MZ_PATCHES has no follow-up series (threads/series)"
elif [ -n "$patched_dir" ] && [ -z "$first_dir" ]; then
	split=0 why="--patched-build without --first-build"
fi
[ "$split" = 1 ] || [ -z "$first_dir" ] ||
	mz_arg_error "--first-build: $why, so one patched kernel runs every patched boot (--patched-build)"
# A memory hotplug run: base, template (every series) and, with the split,
# first (the first series: a control).
if [ "$hot" = 1 ]; then
	per_size=$((2 + split))
else
	per_size=$((threads ? 6 + 2 * busy : 3))
fi

kvmdev=$MZ_KVM_DEV
if [ "$accel" = kvm ] && ! mz_kvm_usable; then
	mz_arg_error "--accel kvm: $kvmdev is missing or not read-writable"
fi

# Per boot: the binds, then the floor (16 writes of the candidates, some
# of them slow to emulate, and REBINDS+1 of the fastest); a threaded boot
# is not slower.  Beyond the default 2 vCPUs, 5 s each for bringing them
# up (more vCPUs than host CPUs share them under TCG).
if [ -z "$timeout" ]; then
	timeout=$((180 + 5 * (vcpus > 2 ? vcpus - 2 : 0) + ${#devices[@]} * ((rebinds + 1) * (5 + size_mib / 1024) + 2 + 2 * size_mib / 1024)))
	# A CXL map=dev bind writes its memmap through MMIO exits (under TCG
	# 2-5 s per GiB), and the regions are made first.
	timeout=$((timeout + (cxlp + cxlr) * 30 + cxlp * (rebinds + 1) * 10 * size_mib / 1024))
	# A hot-add is undone each time (offlined, removed, bound to
	# device_dax again): 3-4 s per 4 GiB under TCG on a busy host.
	timeout=$((timeout + hot * (rebinds + 1) * (5 + 2 * size_mib / 1024)))
fi
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] || mz_arg_error "--timeout '$timeout': not a positive number of seconds"

if [ "$check_only" = 1 ]; then
	echo "bench.sh: arguments OK: ${#devices[@]} device(s), $rebinds rebinds, size(s) $(IFS=,; echo "${sizes[*]}"), $vcpus vCPU(s), $per_size boots per size${threads_skipped:+ ($skipped skipped: $threads_skipped)}"
	exit 0
fi

# A CXL device boots make qemu's QEMU, for every boot of
# the run: the kernels compare under one QEMU.  Checked here, not with the
# arguments: make bench checks those before it fetches that QEMU.
if [ $((cxlp + cxlr)) -gt 0 ]; then
	cxl_qemu=$(mz_qemu_cxl) || die "--devices $devices_arg: $cxl_qemu"
	export MZ_QEMU=$cxl_qemu
fi
for t in "$MZ_QEMU:qemu-system-x86 (or MZ_QEMU: harness/vm/fetch-qemu.sh)" python3:python3 sha256sum:coreutils; do
	need_tool "${t%%:*}" "${t#*:}"
done
qemu_version=$(mz_qemu_version)

# --- builds -------------------------------------------------------------------

start=$(date +%s)
devlist=$(IFS=,; echo "${devices[*]}")
info "benchmark: $devlist; $rebinds rebinds; size(s) $(IFS=,; echo "${size_mibs[*]}") MiB; guest RAM $mem_mib MiB, $vcpus vCPU(s); NVDIMM contents $nvwhere; accel $accel ($qemu_version); $per_size boots per size"
[ -z "$threads_skipped" ] || info "$skipped skipped ($threads_skipped): the table has the single-threaded rows only"
[ "$hot" = 0 ] || [ "$split" = 1 ] || info "memory hotplug: no first series' control boot ($why)"

# Noise: other work on the host, sampled whenever none of ours runs.
# other_qemu: QEMU processes running now (qemu-system-x86_64: the kernel
# keeps 15 characters of the command name).  cpu_busy: percent of all CPUs busy over 1 s.
other_qemu() { pgrep -x qemu-system-x86 | wc -l; }
cpu_busy() {
	local u n s i w q sq st t1 i1
	read -r _ u n s i w q sq st _ </proc/stat
	t1=$((u + n + s + i + w + q + sq + st)) i1=$((i + w))
	sleep 1
	read -r _ u n s i w q sq st _ </proc/stat
	t1=$((u + n + s + i + w + q + sq + st - t1)) i1=$((i + w - i1))
	echo $(( t1 > 0 ? (t1 - i1) * 100 / t1 : 0 ))
}
qemu_max=0 busy_max=0
# sample_noise WHEN: update the maxima, warn when the host is busy.
sample_noise() {
	local q b
	q=$(other_qemu) b=$(cpu_busy)
	if [ "$q" -gt "$qemu_max" ]; then qemu_max=$q; fi
	if [ "$b" -gt "$busy_max" ]; then busy_max=$b; fi
	if [ "$q" -gt 0 ] || [ "$b" -ge 25 ]; then
		warn "host busy $1: $b% of $(nproc) CPUs in use, $q other QEMU process(es): timings will be noisy"
	fi
}
sample_noise "at the start"

# build DESC DIR BUILD-KERNEL-ARGS...: print a build directory: DIR when
# given (--base-build, --patched-build), else build-kernel.sh's.
build() {
	local desc=$1 override=$2 dir
	shift 2
	if [ -n "$override" ]; then
		info "$desc kernel: $override (--$desc-build)"
		dir=$override
	else
		info "$desc kernel: build-kernel.sh $* (quick when already built)"
		dir=$("$MZ_ROOT/harness/build/build-kernel.sh" "$@") || die "build-kernel.sh $* failed"
	fi
	[ -f "$dir/arch/x86/boot/bzImage" ] || die "$desc kernel: $dir/arch/x86/boot/bzImage missing"
	[ -f "$dir/.config" ] || die "$desc kernel: $dir/.config missing"
	(cd "$dir" && pwd)
}
base_build=$(build base "$base_dir" --base guest)
# The kernels the patched boots run: first (the single-threaded ones;
# a memory hotplug run's control) and patched (the threaded ones; a memory
# hotplug run's template); one kernel for both without the split, and no
# second one when the threaded boots are skipped (but for memory hotplug).
if [ "$split" = 1 ]; then
	first_build=$(build first "$first_dir" --first "$MZ_STREAM_VARIANT")
	patched_build=$first_build
	if [ "$threads" = 1 ] || [ "$hot" = 1 ]; then
		patched_build=$(build patched "$patched_dir" "$MZ_STREAM_VARIANT")
	fi
else
	patched_build=$(build patched "$patched_dir" "$MZ_STREAM_VARIANT")
	first_build=$patched_build
fi
kernels=("$first_build")
[ "$patched_build" = "$first_build" ] || kernels+=("$patched_build")
! grep -q '^CONFIG_MEMMAP_STREAMING' "$base_build/.config" ||
	die "base kernel $base_build has CONFIG_MEMMAP_STREAMING: it is a patched kernel"
base_release=$(cat "$base_build/include/config/kernel.release")
for b in "${kernels[@]}"; do
	grep -qx 'CONFIG_MEMMAP_STREAMING=y' "$b/.config" ||
		die "patched kernel $b lacks CONFIG_MEMMAP_STREAMING=y: it cannot stream"
	# The kernels must differ by the series alone.
	if ! cdiff=$("$MZ_ROOT/harness/build/config-diff.sh" "$base_build/.config" "$b/.config"); then
		[ -n "$cdiff" ] || die "comparing the kernels' configurations failed (harness/build/config-diff.sh)"
		printf '  %s\n' "${cdiff//$'\n'/$'\n'  }" >&2
		die "the base kernel and $b are configured differently beyond the series' own options (above):" \
			"their timings would not compare the series; build both from the same fragments" \
			"(build-kernel.sh --base guest, build-kernel.sh --first $MZ_STREAM_VARIANT and build-kernel.sh $MZ_STREAM_VARIANT)"
	fi
	[ "$(cat "$b/include/config/kernel.release")" != "$base_release" ] ||
		die "the base kernel and $b are both '$base_release': rebuild them with build-kernel.sh, which sets LOCALVERSION (-mz-base, -mz-first, -mz-series)"
done
[ "${#kernels[@]}" = 1 ] ||
	[ "$(cat "$first_build/include/config/kernel.release")" != "$(cat "$patched_build/include/config/kernel.release")" ] ||
	die "the first series' kernel $first_build and $patched_build have the same release: rebuild them with build-kernel.sh --first and build-kernel.sh"
for b in "$base_build" "${kernels[@]}"; do
	{ grep -qx 'CONFIG_FUNCTION_GRAPH_TRACER=y' "$b/.config" && grep -qx 'CONFIG_DYNAMIC_FTRACE=y' "$b/.config"; } ||
		die "kernel $b lacks CONFIG_FUNCTION_GRAPH_TRACER or CONFIG_DYNAMIC_FTRACE (the instrument); rebuild it with build-kernel.sh from Kconfig.fragments/base.config"
done

# initramfs NAME BUILD: print an initramfs for BUILD with the benchmark
# module (initramfs.sh reuses it while its inputs are unchanged).
# With a CXL device, every boot's initramfs has ndctl 81 (build-ndctl.sh)
# for its cxl tool, in place of Debian's ndctl and daxctl.
ndctl_arg=()
if [ $((cxlp + cxlr)) -gt 0 ]; then
	info "ndctl 81 with its cxl tool, for the CXL devices: build-ndctl.sh (quick when already built)"
	ndctl_root=$("$MZ_ROOT/harness/build/build-ndctl.sh") || die "build-ndctl.sh failed"
	ndctl_arg=(--ndctl "$ndctl_root")
fi
initramfs() {
	local ko
	# memremap_bench: device-private memory and every device's floor.
	ko=$("$MZ_ROOT/harness/build/build-bench-module.sh" "$2") ||
		die "build-bench-module.sh $2 failed"
	"$MZ_ROOT/harness/vm/initramfs.sh" ${ndctl_arg[@]+"${ndctl_arg[@]}"} --add "$ko:/mz/memremap_bench.ko" "$2" \
		"$MZ_BENCH_FILES/initramfs-$1${ndctl_arg[*]:+-ndctl}.cpio.gz" || die "initramfs.sh failed for $2"
}
base_initrd=$(initramfs "$(basename "$base_build")" "$base_build")
first_initrd=$(initramfs "$(basename "$first_build")" "$first_build")
patched_initrd=$first_initrd
[ "$patched_build" = "$first_build" ] ||
	patched_initrd=$(initramfs "$(basename "$patched_build")" "$patched_build")

if [ "$accel" = auto ]; then
	accel=tcg
	if mz_kvm_usable; then
		accel=kvm
		for b in "$base_build:$base_initrd" "$first_build:$first_initrd" "$patched_build:$patched_initrd"; do
			[ "$("$MZ_ROOT/harness/vm/kvm-probe.sh" --accel auto "${b%%:*}" "${b#*:}")" = kvm ] || accel=tcg
		done
	fi
	info "accelerator: $accel"
fi

# --- the boots ------------------------------------------------------------------

export MZ_VM_DIR=$vmdir
mkdir -p "$MZ_LOGS" "$vmdir"
nvdimms=0
[ "$pmem" = 0 ] || nvdimms=1

# The plan, beside the results (FILE.plan for FILE.json): a line per
# boot, "run=LABEL out=OUTPUT" (shell-quoted) and the guest's words
# (guest/tests/bench: devices, rebinds, size_bytes, expect, threads).
plan=${results%.json}.plan
mkdir -p "$(dirname "$plan")"
: >"$plan"
# boot N LABEL FILE BUILD INITRD EXPECT THREADS SIZE_BYTES [APPEND]: one boot
# (THREADS 1, auto, busy1 or busy, guest/tests/bench's), output in
# $MZ_LOGS/bench-FILE-SIZE_MIBM.out (-cxl with a CXL device, -hotplug in a
# memory hotplug run: make bench's other runs keep theirs).
nboots=$((per_size * ${#size_mibs[@]}))
suffix=${ndctl_arg[*]:+-cxl}
[ "$hot" = 0 ] || suffix=-hotplug
boot() {
	local n=$1 label=$2 file=$3 build=$4 initrd=$5 expect=$6 thr=$7 sbytes=$8 append=${9:-} b0 out t
	local smib=$((sbytes >> 20))
	file=$file-${smib}M$suffix
	out=$MZ_LOGS/bench-$file.out
	local words=("devices=$(IFS=+; echo "${devices[*]}")" "rebinds=$rebinds" "size_bytes=$sbytes"
		"expect=$expect" "threads=$thr")
	local args=(--accel "$accel" --timeout "$timeout" --nvdimms "$nvdimms"
		--nvdimm-size "${smib}M" --nvdimm-memory "$nvmem" --mem "${mem_mib}M" --smp "$vcpus"
		--log "$MZ_LOGS/bench-$file.log")
	[ "$cxlp" = 0 ] || args+=(--cxl-pmem "${smib}M")
	[ "$cxlr" = 0 ] || args+=(--cxl-ram "${smib}M")
	if [ -n "$append" ]; then args+=(--append "$append"); fi
	printf 'run=%s out=%q %s\n' "$label" "$out" "${words[*]}" >>"$plan"
	sample_noise "before boot $n"
	b0=$(date +%s)
	info "boot $n/$nboots: $label, $smib MiB ($(basename "$build")${append:+, $append}), up to ${timeout}s"
	"$MZ_ROOT/harness/vm/vm.sh" "${args[@]}" "$build" "$initrd" bench "${words[@]}" >"$out" || {
		grep -a 'BENCH-ERROR' "$out" >&2 || true
		die "boot $n/$nboots ($label, $smib MiB) failed; console: $MZ_LOGS/bench-$file.log, output: $out"
	}
	# Its binds and the threads they ran on, read by the report's own
	# parser against the plan, which also stops a boot whose output the
	# report would refuse, before the next boot.
	t=$("$MZ_ROOT/harness/bench/bench-report.py" --plan "$plan" --boot-summary "$out") ||
		die "boot $n/$nboots ($label, $smib MiB): bench-report.py cannot read its output $out (above)"
	info "boot $n/$nboots: $label done in $(mz_since "$b0") s ($t)"
}
n=0
for sbytes in "${size_bytes[@]}"; do
	boot $((n + 1)) base base "$base_build" "$base_initrd" base 1 "$sbytes"
	if [ "$hot" = 1 ]; then
		# The hot-add path on the first series is 7.3.4's; the kernel
		# with every series has patches/hotplug/.  The patched kernels'
		# guests are told template (a patched kernel); their hot-adds
		# name no backend.
		[ "$split" = 0 ] ||
			boot $((n + 2)) first first "$first_build" "$first_initrd" template 1 "$sbytes" memmap_streaming=off
		boot $((n + per_size)) template template "$patched_build" "$patched_initrd" template 1 "$sbytes" memmap_streaming=off
		n=$((n + per_size))
		continue
	fi
	boot $((n + 2)) template template "$first_build" "$first_initrd" template 1 "$sbytes" memmap_streaming=off
	boot $((n + 3)) template+streaming streaming "$first_build" "$first_initrd" template+streaming 1 "$sbytes" memmap_streaming=on
	if [ "$threads" = 1 ]; then
		boot $((n + 4)) base-cpus base-cpus "$base_build" "$base_initrd" base auto "$sbytes"
		boot $((n + 5)) template-threads template-threads "$patched_build" "$patched_initrd" template auto "$sbytes" memmap_streaming=off
		boot $((n + 6)) template+streaming-threads streaming-threads "$patched_build" "$patched_initrd" template+streaming auto "$sbytes" memmap_streaming=on
	fi
	if [ "$busy" = 1 ]; then
		boot $((n + 7)) template-busy template-busy "$patched_build" "$patched_initrd" template busy1 "$sbytes" memmap_streaming=off
		boot $((n + 8)) template-threads-busy template-threads-busy "$patched_build" "$patched_initrd" template busy "$sbytes" memmap_streaming=off
	fi
	n=$((n + per_size))
done

# --- the probe and the report -------------------------------------------------

report_args=()
if [ "$probe" = 1 ]; then
	sample_noise "before the probe"
	pjson=$MZ_BENCH_FILES/store-probe.json
	info "running the user-space store probe (store-probe.sh --size 2G --repeat 5)"
	"$MZ_ROOT/harness/bench/store-probe.sh" --size 2G --repeat 5 --json "$pjson" \
		>"$MZ_LOGS/bench-probe.out" || die "store-probe.sh failed; see $MZ_LOGS/bench-probe.out"
	report_args+=(--probe "$pjson")
else
	report_args+=(--no-probe)
fi

if [ -n "$threads_skipped" ]; then
	report_args+=(--fact "threads_skipped=$threads_skipped")
fi
if [ "$qemu_max" -gt 0 ] || [ "$busy_max" -ge 25 ]; then
	report_args+=(--fact "busy=the host was busy: up to $busy_max% of its $(nproc) CPUs in use by others and $qemu_max other QEMU process(es) when sampled between boots")
fi
# The first series' kernel, when it is not the patched one.
first_arg=()
[ "$first_build" = "$patched_build" ] || first_arg=(--kernel "first=$first_build")
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
# The commit of the tree the patched kernel was built from (Kbuild's
# "source" link in its build directory), else the series in MZ_TREE.
series_commit=$(git -C "$patched_build/source/" rev-parse --verify -q 'HEAD^{commit}' 2>/dev/null ||
	git -C "$MZ_TREE" rev-parse --verify -q 'series^{commit}' 2>/dev/null ||
	git -C "$MZ_TREE" rev-parse --verify -q 'HEAD^{commit}' 2>/dev/null || echo unknown)
"$MZ_ROOT/harness/bench/bench-report.py" --plan "$plan" --accel "$accel" \
	--fact "cpu_model=${cpu_model:-$(uname -m)}" --fact "host_kernel=$(uname -r)" \
	--fact "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" --fact "wall_s=$(mz_since "$start")" \
	--fact "series_commit=$series_commit" --fact "patches_sha256=$(series_stamp)" \
	--fact "guest_vcpus=$vcpus" --fact "guest_ram_bytes=$((mem_mib << 20))" \
	--fact "nvdimm_memory=$nvmem" --fact "qemu=$qemu_version" \
	--fact "nproc=$(nproc)" --fact "other_busy_pct_max=$busy_max" --fact "other_qemu_max=$qemu_max" \
	--kernel "base=$base_build" --kernel "patched=$patched_build" \
	"${first_arg[@]}" \
	"${report_args[@]}" --json "$results" --svg "$chart" --text "$text" || {
	rc=$?
	[ "$rc" -ne 3 ] || die "the floor did not bound the template paths (see the table); results kept in $results"
	die "bench-report.py failed on $MZ_LOGS/bench-*.out"
}
info "results: $results; chart: $chart; table: $text; wall time $(mz_since "$start") s"
