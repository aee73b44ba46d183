#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [options]: the project's main job: measure memmap_init_zone_device()
# in a VM on the base kernel, on the kernel with the first series
# (patches/: the template backend and template+streaming, one thread) and
# on the kernel with its follow-up too (patches/threads/: the same
# backends on all the guest's vCPUs), and report the two series' numbers
# apart.
#
# Six boots per size, same devices (harness/vm/vm.sh, guest/tests/bench):
#   base                        7.3.4 with patches/fixes/ (build-kernel.sh --base guest)
#   template                    the first series (build-kernel.sh --first
#                               stream-y), memmap_streaming=off, one thread
#   template+streaming          the same kernel, memmap_streaming=on, one thread
#   base-cpus                   base again, with every vCPU online as in the
#                               threaded boots (it initializes on one thread
#                               still): the base of their whole bind; in the
#                               table "base, all CPUs"
#   template-threads            both series (build-kernel.sh stream-y),
#                               memmap_streaming=off, automatic threads (one per
#                               vCPU); in the table "template, N threads"
#   template+streaming-threads  memmap_streaming=on, automatic threads; in the
#                               table "template+streaming, N threads"
# and with --busy two more on both series' kernel, memmap_streaming=off,
# a nice-0 task spinning on every vCPU but the first (the busy host):
#   template-busy               the binds held to the first vCPU, so one
#                               thread; in the table "template, one vCPU,
#                               busy host"
#   template-threads-busy       automatic threads, sharing the busy vCPUs;
#                               in the table "template, N threads, busy host"
# The single-threaded boots, base included, take every vCPU but the first
# offline before their binds, which holds the patched kernel's init to one
# thread; base-cpus and the threaded boots keep every vCPU online.  The
# table has a part per series: the first series against base on one
# thread, then the follow-up's threads against the first series' single
# thread (and their whole bind against base-cpus).  With MZ_BUILD_KIND=
# upstream, or a patches/ without a follow-up series, one patched kernel
# runs every patched boot.  Each boot binds every device once (first
# bind) and then REBINDS more times, recording per bind the memmap init
# time (the function_graph tracer on memmap_init_zone_device() alone,
# the same on every kernel; the patched kernels' tracepoint as a
# cross-check), its thread count, the whole enable time (ndctl's command)
# and the kernel's part of it (nd_pmem_probe() and dax_pmem_probe(),
# function_graph), then times the store floor for
# the device's pages (memremap_bench floor_pages=, built for both
# kernels).  A patched boot whose tracepoint reports another backend, or
# another thread count than the boot asks for, fails.  Then the
# user-space store probe (store-probe.sh) runs on the host, and
# bench-report.py prints the table (verdicts, floor, ns per page, the
# threads' speedup) and writes the JSON and the SVG chart.
# "bench-report.py --cover FILE.json" prints that table again.
#
# Options (all checked before anything is built or booted; errors exit 2):
#   --devices LIST  comma-separated, from fsdax-dev, fsdax-mem, devdax-2m,
#                   devprivate (default: these four, in that order), and
#                   the CXL memory devices cxl-fsdax-dev (a CXL pmem
#                   region's namespace, fsdax map=dev: its memmap is
#                   written to the CXL device) and cxl-devdax (a CXL ram
#                   region's device-dax, its memmap in RAM); these boot
#                   QEMU 10 (vm.sh --cxl-pmem/--cxl-ram of --size each;
#                   mz_qemu_cxl, make qemu) and ndctl 81's cxl tool
#                   (build-ndctl.sh) for every boot of the run.  Under
#                   TCG every access to CXL memory is an MMIO exit to
#                   QEMU's device model: a CXL map=dev bind costs 100
#                   times an NVDIMM's, so keep the size small (make bench
#                   runs them apart, at 1G)
#   --rebinds N     rebinds per device and boot, 1..200 (default 10)
#   --size SIZE     NVDIMM size and device-private range, NNNM, NNNG or NNNT,
#                   a multiple of 128M, at least 256M (default 4G: a few
#                   minutes under TCG; e.g. 100G on a KVM host); 128M with
#                   --devices devprivate alone (a namespace needs 256M); a
#                   multiple of 256M with a CXL device (CXL's capacity unit)
#   --sizes LIST    several sizes in one run, e.g. 1G,8G,64G: six boots
#                   per size; the table adds ns per page per size (the
#                   cost curve) and gives the breakdown of the whole bind
#                   at the largest size
#   --smp N         guest vCPUs, 1..64 (default 2; QEMU runs a TCG guest's
#                   vCPUs on as many host threads, so under TCG more vCPUs
#                   than host CPUs measure nothing).  On a KVM host --smp N
#                   measures the scaling of the threaded init: run e.g.
#                   --accel kvm --smp 8 --size 100G once per N and compare
#                   the "template, N threads" rows.  With --smp 1 the
#                   threaded boots are skipped: one vCPU runs one thread.
#   --no-threads    skip the two threaded boots and base-cpus (three boots
#                   per size)
#   --busy          add the busy host's two boots per size (above; guest/
#                   tests/bench THREADS=busy1 and busy): does splitting the
#                   init still pay when the other vCPUs are taken, and
#                   what does holding it to one thread cost?  Needs the
#                   threaded boots (two or more vCPUs)
#   --accel auto|kvm|tcg   as vm.sh (default $MZ_ACCEL, else auto); auto
#                   takes KVM only if kvm-probe.sh says both kernels boot
#                   under it, so all the boots use the same accelerator
#   --results FILE  JSON output (default $BENCH_RESULTS, else
#                   $MZ_RESULTS/bench.json); the table also goes to
#                   FILE with .txt for .json
#   --chart FILE    SVG chart (default: FILE of --results with .svg)
#   --no-probe      skip the user-space store probe
#   --nvdimm-memory ram|file
#                   what holds the emulated NVDIMM's contents (vm.sh's
#                   option; default ram): QEMU's anonymous memory, like
#                   the guest's RAM, or a sparse file in $MZ_VM_DIR.  With
#                   the file on the host's disk, binds run slower for base
#                   and the series alike (docs/bench.md), a cost of the
#                   host's file that no pmem has: file measures it, ram
#                   leaves it out
#   --base-build DIR, --first-build DIR, --patched-build DIR
#                   use these built kernels (build-kernel.sh output
#                   directories) instead of building base, the first
#                   series' stream-y and both series' stream-y; a
#                   --patched-build without --first-build runs every
#                   patched boot on that one kernel
#   --timeout S     per boot (default: from the sizes, devices and rebinds)
#   --assume-mem-avail MIB, --assume-disk-free MIB
#                   check the host against these figures instead of its
#                   MemAvailable and free disk space (the harness's tests)
#   --check-args    validate the options and exit (make bench does this
#                   before it installs anything)
#
# The host must back the run: the guest RAM (2 GiB, more for large sizes:
# it holds the map=mem and device-private memmaps) plus the worst case of
# the NVDIMM's map=dev metadata (64 bytes of struct page per 4 KiB page,
# in QEMU's memory or, with --nvdimm-memory file, in the page cache) plus
# QEMU's overhead must fit MemAvailable; with --nvdimm-memory file that
# metadata must also fit the free space of the filesystem holding
# $MZ_VM_DIR.
#
# Environment (harness/lib.sh): MZ_VM_DIR (default $MZ_VM_BENCH_FILES)
# holds the NVDIMM file with --nvdimm-memory file.  Logs:
# $MZ_LOGS/bench-{base,template,streaming,base-cpus,template-threads,
# streaming-threads,template-busy,template-threads-busy}-SIZEM.{log,out}
# (SIZEM-cxl with a CXL device).
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

ALL_DEVICES="fsdax-dev fsdax-mem devdax-2m devprivate cxl-fsdax-dev cxl-devdax"
# The CXL devices (cxl-*) need QEMU 10 and are asked for by name.
DEFAULT_DEVICES="fsdax-dev fsdax-mem devdax-2m devprivate"
MAX_REBINDS=200
MAX_SMP=64

devices_arg=${DEFAULT_DEVICES// /,}
rebinds=10
sizes_arg=4G
check_only=0
vcpus=2
accel=$MZ_ACCEL
results=$BENCH_RESULTS
chart=
probe=1
threads=1
busy=0
base_dir=
first_dir=
patched_dir=
timeout=
assume_mem=
assume_disk=
nvmem=ram
while [ $# -gt 0 ]; do
	case "$1" in
	--devices|--rebinds|--size|--sizes|--smp|--accel|--results|--chart|--base-build|--first-build|--patched-build|--timeout|--assume-mem-avail|--assume-disk-free|--nvdimm-memory)
		mz_need_value "$1" $#
		case "$1" in
		--base-build) base_dir=$2 ;;
		--first-build) first_dir=$2 ;;
		--patched-build) patched_dir=$2 ;;
		--timeout) timeout=$2 ;;
		--assume-mem-avail) assume_mem=$2 ;;
		--assume-disk-free) assume_disk=$2 ;;
		--nvdimm-memory) nvmem=$2 ;;
		--devices) devices_arg=$2 ;;
		--rebinds) rebinds=$2 ;;
		--smp) vcpus=$2 ;;
		--size)
			case "$2" in *,*) mz_arg_error "--size '$2': one size (use --sizes for a list)" ;; esac
			sizes_arg=$2 ;;
		--sizes) sizes_arg=$2 ;;
		--accel) accel=$2 ;;
		--results) results=$2 ;;
		--chart) chart=$2 ;;
		esac
		shift 2 ;;
	--devices=*|--rebinds=*|--size=*|--sizes=*|--smp=*|--accel=*|--results=*|--chart=*|--base-build=*|--first-build=*|--patched-build=*|--timeout=*|--assume-mem-avail=*|--assume-disk-free=*|--nvdimm-memory=*)
		set -- "${1%%=*}" "${1#*=}" "${@:2}" ;;
	--no-probe) probe=0; shift ;;
	--no-threads) threads=0; shift ;;
	--busy) busy=1; shift ;;
	--check-args) check_only=1; shift ;;
	-h|--help) mz_help ;;
	*) mz_arg_error "unknown option '$1'" ;;
	esac
done

# --- validation: nothing is built or booted before this passes -------------

devices=()
IFS=, read -r -a devices <<<"$devices_arg"
[ ${#devices[@]} -gt 0 ] || mz_arg_error "--devices: empty list (known: $ALL_DEVICES)"
# pmem: an NVDIMM namespace is named; cxlp, cxlr: a CXL pmem, ram device.
pmem=0 cxlp=0 cxlr=0
for d in "${devices[@]}"; do
	case " $ALL_DEVICES " in
	*" $d "*) ;;
	*) mz_arg_error "--devices: unknown device '$d' (known: $ALL_DEVICES)" ;;
	esac
	[ "$(printf '%s\n' "${devices[@]}" | grep -cx -- "$d")" -eq 1 ] ||
		mz_arg_error "--devices: '$d' is named twice"
	case "$d" in
	devprivate) ;;
	cxl-fsdax-dev) cxlp=1 ;;
	cxl-devdax) cxlr=1 ;;
	*) pmem=1 ;;
	esac
done

[[ "$rebinds" =~ ^[0-9]+$ ]] || mz_arg_error "--rebinds '$rebinds': not a number"
rebinds=$((10#$rebinds))
[ "$rebinds" -ge 1 ] || mz_arg_error "--rebinds 0: the median is over the rebinds, at least 1 is needed"
[ "$rebinds" -le "$MAX_REBINDS" ] ||
	mz_arg_error "--rebinds $rebinds: at most $MAX_REBINDS (the guest's 128 KiB kernel log must hold the devprivate lines)"

sizes=()
IFS=, read -r -a sizes <<<"$sizes_arg"
[ ${#sizes[@]} -gt 0 ] || mz_arg_error "--size '': not a size like 512M, 4G or 1T"
size_mibs=()
size_mib=0 # the largest: it sizes the guest and the host checks
for sz in "${sizes[@]}"; do
	[[ "$sz" =~ ^([1-9][0-9]{0,6})([MGT])$ ]] ||
		mz_arg_error "--size '$sz': not a size like 512M, 4G or 1T"
	case "${BASH_REMATCH[2]}" in
	M) s=${BASH_REMATCH[1]} ;;
	G) s=$((BASH_REMATCH[1] * 1024)) ;;
	T) s=$((BASH_REMATCH[1] * 1024 * 1024)) ;;
	esac
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
	size_mibs+=("$s")
	if [ "$s" -gt "$size_mib" ]; then size_mib=$s; size=$sz; fi
done

[[ "$vcpus" =~ ^[0-9]+$ ]] || mz_arg_error "--smp '$vcpus': not a number of vCPUs (1..$MAX_SMP)"
vcpus=$((10#$vcpus))
if [ "$vcpus" -lt 1 ] || [ "$vcpus" -gt "$MAX_SMP" ]; then
	mz_arg_error "--smp $vcpus: the guest takes 1 to $MAX_SMP vCPUs"
fi
# One vCPU runs one thread: the threaded boots would repeat the others.
threads_skipped=
if [ "$threads" = 0 ]; then
	threads_skipped="--no-threads"
elif [ "$vcpus" = 1 ]; then
	threads=0 threads_skipped="--smp 1: one vCPU runs the threaded init on one thread"
fi
if [ "$busy" = 1 ] && [ "$threads" = 0 ]; then
	mz_arg_error "--busy: the busy host's boots need the threaded ones, which are skipped ($threads_skipped)"
fi
per_size=$((threads ? 6 + 2 * busy : 3))

case "$accel" in auto|kvm|tcg) ;; *) mz_arg_error "--accel '$accel': not auto, kvm or tcg" ;; esac
case "$nvmem" in
ram) nvwhere="in QEMU's memory" ;;
file) nvwhere="in a file in ${MZ_VM_DIR:-$MZ_VM_BENCH_FILES}" ;;
*) mz_arg_error "--nvdimm-memory '$nvmem': not ram or file" ;;
esac

[ -n "$results" ] || mz_arg_error "--results: empty file name"
case "$results" in */) mz_arg_error "--results '$results': a directory, not a file" ;; esac
if [ -z "$chart" ]; then chart=${results%.json}.svg; fi
case "$chart" in
*.svg) ;;
*) mz_arg_error "--chart '$chart': the chart is SVG, name it *.svg" ;;
esac
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

for a in "$assume_mem:--assume-mem-avail" "$assume_disk:--assume-disk-free"; do
	[ -z "${a%%:*}" ] || [[ "${a%%:*}" =~ ^[0-9]+$ ]] || mz_arg_error "${a#*:} '${a%%:*}': not a number of MiB"
done
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
elif [ ! -f "$MZ_PATCHES/$MZ_FOLLOWUP/series" ]; then
	split=0 why="$MZ_PATCHES has no follow-up series ($MZ_FOLLOWUP/series)"
elif [ -n "$patched_dir" ] && [ -z "$first_dir" ]; then
	split=0 why="--patched-build without --first-build"
fi
[ "$split" = 1 ] || [ -z "$first_dir" ] ||
	mz_arg_error "--first-build: $why, so one patched kernel runs every patched boot (--patched-build)"

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
fi
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] || mz_arg_error "--timeout '$timeout': not a positive number of seconds"

if [ "$check_only" = 1 ]; then
	echo "bench.sh: arguments OK: ${#devices[@]} device(s), $rebinds rebinds, size(s) $(IFS=,; echo "${sizes[*]}"), $vcpus vCPU(s), $per_size boots per size${threads_skipped:+ (threaded boots skipped: $threads_skipped)}"
	exit 0
fi

# A CXL device boots QEMU 10 (make qemu fetches it), for every boot of
# the run: the kernels compare under one QEMU.  Checked here, not with the
# arguments: make bench checks those before it fetches QEMU 10.
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
[ -z "$threads_skipped" ] || info "threaded boots skipped ($threads_skipped): the table has the single-threaded rows only"

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
# The kernels the patched boots run: first (the single-threaded ones) and
# patched (the threaded ones); one kernel for both without the split, and
# no second one when the threaded boots are skipped.
if [ "$split" = 1 ]; then
	first_build=$(build first "$first_dir" --first "$MZ_STREAM_VARIANT")
	patched_build=$first_build
	[ "$threads" = 0 ] || patched_build=$(build patched "$patched_dir" "$MZ_STREAM_VARIANT")
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

# boot N LABEL FILE BUILD INITRD EXPECT THREADS SIZE_MIB [APPEND]: one boot
# (THREADS 1, auto, busy1 or busy, guest/tests/bench's), output in
# $MZ_LOGS/bench-FILE-SIZE_MIBM.out.
nboots=$((per_size * ${#size_mibs[@]}))
run_args=()
boot() {
	local n=$1 label=$2 file=$3 build=$4 initrd=$5 expect=$6 thr=$7 smib=$8 append=${9:-} b0 out t
	file=$file-${smib}M${ndctl_arg[*]:+-cxl}
	out=$MZ_LOGS/bench-$file.out
	local args=(--accel "$accel" --timeout "$timeout" --nvdimms "$nvdimms"
		--nvdimm-size "${smib}M" --nvdimm-memory "$nvmem" --mem "${mem_mib}M" --smp "$vcpus"
		--log "$MZ_LOGS/bench-$file.log")
	[ "$cxlp" = 0 ] || args+=(--cxl-pmem "${smib}M")
	[ "$cxlr" = 0 ] || args+=(--cxl-ram "${smib}M")
	if [ -n "$append" ]; then args+=(--append "$append"); fi
	sample_noise "before boot $n"
	b0=$(date +%s)
	info "boot $n/$nboots: $label, $smib MiB ($(basename "$build")${append:+, $append}), up to ${timeout}s"
	"$MZ_ROOT/harness/vm/vm.sh" "${args[@]}" "$build" "$initrd" \
		bench "$(IFS=+; echo "${devices[*]}")" "$rebinds" "$smib" "$expect" "$thr" \
		>"$out" || {
		grep -a 'BENCH-ERROR' "$out" >&2 || true
		die "boot $n/$nboots ($label, $smib MiB) failed; console: $MZ_LOGS/bench-$file.log, output: $out"
	}
	# Its binds and the threads they ran on, read by the report's own
	# parser (one reader of the guest's lines), which also stops a boot
	# whose output the report would refuse, before the next boot.
	t=$("$MZ_ROOT/harness/bench/bench-report.py" --boot-summary "$label=$out" \
		--devices "$(IFS=,; echo "${devices[*]}")" --rebinds "$rebinds") ||
		die "boot $n/$nboots ($label, $smib MiB): bench-report.py cannot read its output $out (above)"
	info "boot $n/$nboots: $label done in $(mz_since "$b0") s ($t)"
	run_args+=(--run "$label=$out")
}
n=0
for smib in "${size_mibs[@]}"; do
	boot $((n + 1)) base base "$base_build" "$base_initrd" base 1 "$smib"
	boot $((n + 2)) template template "$first_build" "$first_initrd" template 1 "$smib" memmap_streaming=off
	boot $((n + 3)) template+streaming streaming "$first_build" "$first_initrd" template+streaming 1 "$smib" memmap_streaming=on
	if [ "$threads" = 1 ]; then
		boot $((n + 4)) base-cpus base-cpus "$base_build" "$base_initrd" base auto "$smib"
		boot $((n + 5)) template-threads template-threads "$patched_build" "$patched_initrd" template auto "$smib" memmap_streaming=off
		boot $((n + 6)) template+streaming-threads streaming-threads "$patched_build" "$patched_initrd" template+streaming auto "$smib" memmap_streaming=on
	fi
	if [ "$busy" = 1 ]; then
		boot $((n + 7)) template-busy template-busy "$patched_build" "$patched_initrd" template busy1 "$smib" memmap_streaming=off
		boot $((n + 8)) template-threads-busy template-threads-busy "$patched_build" "$patched_initrd" template busy "$smib" memmap_streaming=off
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
"$MZ_ROOT/harness/bench/bench-report.py" "${run_args[@]}" \
	--devices "$devlist" --rebinds "$rebinds" --accel "$accel" \
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
