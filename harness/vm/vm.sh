#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # the options' variables: mz_opt and mz_flag set them
# vm.sh: boot a built guest kernel under QEMU and run one guest test.
#
#   vm.sh [options] BUILD_DIR INITRAMFS [--] TEST [ARG...]
#   vm.sh [options] --shell BUILD_DIR INITRAMFS
#
# guest/init runs /mz/tests/TEST ARG... and powers off.  The test's output
# goes to stdout, progress and errors to stderr, the console to --log.
# SIZE is a whole number of MiB or GiB: 512M, 2G.
# Exit status: the test's; 1 when the guest timed out or did not finish or
# the kernel reported a problem; 75 when it stalled before its test
# started (booting again is safe); 2 for a usage error.
# docs/developing.md, "Guests: vm.sh", says more.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

# Kernel reports that fail a run, as an extended regexp.
REPORTS='BUG:|WARNING:|Oops|Kernel panic|KASAN|UBSAN|possible circular locking|INFO: possible recursive locking'
# dump_page() of a struct page nothing initialized (CONFIG_DEBUG_VM).
REPORTS+='|is uninitialized and poisoned'

size='^[1-9][0-9]*[MG]$' count='^[1-9][0-9]*$'
mz_opt --accel accel '' 'kvm|tcg' '^(kvm|tcg)$' \
	"QEMU's accelerator; without it MZ_ACCEL's, and for MZ_ACCEL=auto kvm-probe.sh's answer for this kernel"
mz_opt --timeout timeout 300 SECONDS "$count" 'kill the guest after this long'
mz_opt --boot-timeout boot_timeout 240 SECONDS "$count" \
	'kill it earlier, exit 75, when its test has not started by then; --timeout if that is shorter'
mz_opt --log log '' FILE '.' \
	"the console log, else \$MZ_LOGS/vm-TEST.log; the test's output goes to FILE's .test.log sibling"
mz_opt --append 'appends[]' '' TEXT '^[^[:cntrl:]]+$' 'more kernel command line (repeatable)'
mz_opt --nvdimms nvdimms 1 N '^[0-9]+$' 'how many NVDIMMs, 0 for none'
mz_opt --nvdimm-size nvsize "$MZ_NVDIMM_SIZE" SIZE "$size" "each NVDIMM's size; MZ_NVDIMM_SIZE sets the default"
mz_opt --label-size nvlabel '' SIZE '^[1-9][0-9]*[KM]$' \
	'a label area for each of the --nvdimms, beyond --nvdimm-size: K or M, a multiple of 128K'
mz_opt --nvdimm-align nvalign '' SIZE "$size" \
	"align each NVDIMM's backend, and so its region, to SIZE in guest physical memory"
mz_opt --nvdimm-memory nvmem file 'file|ram' '^(file|ram)$' \
	"what holds the NVDIMMs' contents: sparse files in MZ_VM_DIR, or QEMU's memory, nothing on disk"
mz_opt --label-nvdimm labelsize '' SIZE "$size" \
	'one more NVDIMM of SIZE, with a 128K label area (label-backed namespaces)'
mz_opt --mem mem 2G SIZE "$size" 'guest RAM'
mz_opt --smp smp 2 N "$count" 'guest CPUs'
mz_opt --nvme-cmb cmb '' MIB "$count" \
	'an NVMe controller with a memory buffer of MIB MiB (a power of two, 2 or more): p2pdma memory'
mz_opt --soft-reserved softres '' SIZE "$size" \
	'more RAM marked soft reserved, a multiple of 128M: dax_hmem makes it a device-dax instance'
mz_opt --device-reserved devres '' SIZE "$size" \
	"more RAM marked reserved, a multiple of 128M and 512M or more: test_hmm's device-coherent devices"
mz_opt --cxl-pmem cxlpmem '' SIZE "$size" \
	'a CXL type-3 device with SIZE (a multiple of 256M) of persistent capacity, in a sparse file'
mz_opt --cxl-ram cxlram '' SIZE "$size" \
	'a CXL type-3 device with SIZE (a multiple of 256M) of volatile capacity'
mz_flag --numa numa \
	'three NUMA nodes: CPUs and RAM; CPUs, RAM and the NVDIMMs; RAM only (needs --smp 2 or more, --mem 1G or more)'
mz_flag --no-shared-llc own_llc 'every CPU a socket of its own: no CPUs share a last-level cache'
mz_flag --keep-nvdimm keep "keep the backing files' contents instead of recreating them empty"
mz_flag --console console "also stream the console and the test's output to stderr"
mz_flag --shell shell 'interactive: no test, the console on this terminal (Ctrl-A X quits), no checks'
mz_flag --dry-run dry_run \
	"print the commands a run starts with, QEMU's last, and exit: start nothing, write nothing"
mz_parse --in-order "$@"
set -- ${MZ_OPERANDS[@]+"${MZ_OPERANDS[@]}"}

[ $# -ge 2 ] || mz_arg_error "want BUILD_DIR INITRAMFS [--] TEST [ARG...], or --shell BUILD_DIR INITRAMFS"
build=$1 initrd=$2
shift 2
[ "${1:-}" != -- ] || shift
test='' targs=()
if [ "$shell" = 1 ]; then
	[ $# -eq 0 ] || mz_arg_error "--shell runs no test: --shell BUILD_DIR INITRAMFS"
else
	[ $# -ge 1 ] || mz_arg_error "no TEST: want BUILD_DIR INITRAMFS [--] TEST [ARG...], or --shell BUILD_DIR INITRAMFS"
	test=$1
	shift
	targs=("$@")
	mz_form TEST "$test" '^[A-Za-z0-9_][A-Za-z0-9._-]*$' 'a guest test name (letters, digits, ., _, -)'
fi
for a in ${targs[@]+"${targs[@]}"}; do
	# mz.args joins arguments with commas on the kernel command line.
	[[ "$a" =~ ^[^[:space:],\"]+$ ]] || mz_arg_error "test arguments cannot be empty or hold spaces, commas or quotes: '$a'"
done
case "$MZ_ACCEL" in auto|kvm|tcg) ;; *) die "MZ_ACCEL=$MZ_ACCEL: not auto, kvm or tcg" ;; esac

# What the declarations' forms cannot say, and the options that do not
# go together.
mib() { case "$1" in *G) echo $((${1%G} * 1024)) ;; *M) echo "${1%M}" ;; esac; }
kib() { case "$1" in *K) echo "${1%K}" ;; *) echo $(($(mib "$1") * 1024)) ;; esac; }
# multiple OPTION VALUE MIB WHY: VALUE, when given, is a multiple of MIB
# MiB; else an error saying WHY.
multiple() {
	[ -z "$2" ] || [ $(($(mib "$2") % $3)) -eq 0 ] || mz_arg_error "$1 '$2': want a multiple of ${3}M ($4)"
}
if [ -n "$nvlabel" ] && [ $(($(kib "$nvlabel") % 128)) -ne 0 ]; then
	mz_arg_error "--label-size '$nvlabel': want a multiple of 128K (QEMU's smallest label area)"
fi
if [ -n "$cmb" ] && { [ "$cmb" -lt 2 ] || [ $((cmb & (cmb - 1))) -ne 0 ]; }; then
	mz_arg_error "--nvme-cmb '$cmb': want a power of two of 2 or more (MiB)"
fi
multiple --soft-reserved "$softres" 128 'a memory section'
multiple --device-reserved "$devres" 128 'a memory section'
multiple --cxl-pmem "$cxlpmem" 256 "CXL's capacity unit"
multiple --cxl-ram "$cxlram" 256 "CXL's capacity unit"
softmib=0 devmib=0 cxlpmib=0 cxlrmib=0
[ -z "$softres" ] || softmib=$(mib "$softres")
[ -z "$devres" ] || devmib=$(mib "$devres")
[ -z "$cxlpmem" ] || cxlpmib=$(mib "$cxlpmem")
[ -z "$cxlram" ] || cxlrmib=$(mib "$cxlram")
if [ -n "$devres" ] && [ "$devmib" -lt 512 ]; then
	mz_arg_error "--device-reserved '$devres': want 512M or more (test_hmm's two devices take 256 MiB each)"
fi
if [ "$nvmem" = ram ] && { [ "$keep" = 1 ] || [ -n "$nvalign" ]; }; then
	mz_arg_error "--nvdimm-memory ram keeps nothing and aligns nothing: it does not go with --keep-nvdimm or --nvdimm-align"
fi
if [ "$numa" = 1 ] && { [ "$smp" -lt 2 ] || [ "$(mib "$mem")" -lt 1024 ]; }; then
	mz_arg_error "--numa needs --smp 2 or more and --mem 1G or more, not --smp $smp --mem $mem"
fi
if [ $((softmib + devmib)) -gt 0 ]; then
	if [ "$numa" = 1 ]; then
		mz_arg_error "--soft-reserved and --device-reserved do not go with --numa"
	fi
	if [ "$(mib "$mem")" -lt 2048 ] || [ $(($(mib "$mem") + softmib + devmib)) -lt 2816 ]; then
		mz_arg_error "--mem '$mem': want 2G or more, and 2816M or more with" \
			"--soft-reserved and --device-reserved (so that q35 maps RAM above 4 GiB)"
	fi
fi
# A guest that has not started its test when the run's own timeout comes
# has stalled during boot, whichever of the two is shorter: nothing ran.
[ "$boot_timeout" -le "$timeout" ] || boot_timeout=$timeout

if [ "$MZ_QEMU" = qemu-system-x86_64 ]; then
	need_tool qemu-system-x86_64 qemu-system-x86
else
	command -v "$MZ_QEMU" >/dev/null 2>&1 ||
		die "MZ_QEMU=$MZ_QEMU: no such program; unset it for the host's qemu-system-x86_64, or run 'make qemu' and set MZ_QEMU to the path it prints"
fi
# A dry run starts no QEMU, not even for its version.
qemu_version=
if [ "$dry_run" = 0 ]; then
	qemu_version=$(mz_qemu_version)
	if [ $((cxlpmib + cxlrmib)) -gt 0 ] && ! mz_qemu_cxl_capable "$qemu_version"; then
		die "--cxl-pmem and --cxl-ram need QEMU $MZ_QEMU_CXL_MIN or newer (full CXL type-3 emulation), and MZ_QEMU=$MZ_QEMU is $qemu_version: run 'make qemu' and set MZ_QEMU to the path it prints"
	fi
elif [ $((cxlpmib + cxlrmib)) -gt 0 ]; then
	warn "--dry-run: MZ_QEMU=$MZ_QEMU was not asked its version; --cxl-pmem and --cxl-ram need QEMU $MZ_QEMU_CXL_MIN or newer"
fi
bzimage=$(mz_boot_files "$build" "$initrd")

kvmdev=$MZ_KVM_DEV
why=requested
if [ -z "$accel" ]; then
	why="MZ_ACCEL=$MZ_ACCEL"
	if [ "$dry_run" = 1 ]; then
		# kvm-probe.sh --no-boot exits 3 when only a boot would tell.
		rc=0
		accel=$("$MZ_ROOT/harness/vm/kvm-probe.sh" --no-boot --accel "$MZ_ACCEL" "$build" "$initrd") || rc=$?
		[ "$rc" != 3 ] ||
			die "--dry-run: the accelerator needs a KVM boot probe of this kernel ($why, none cached), which would start QEMU; give --accel kvm or tcg"
		[ "$rc" = 0 ] || exit "$rc"
	else
		accel=$("$MZ_ROOT/harness/vm/kvm-probe.sh" --accel "$MZ_ACCEL" "$build" "$initrd")
	fi
fi
case "$accel" in
kvm)
	mz_kvm_usable || die "accel kvm ($why): $kvmdev is missing or not read-writable"
	cpu=host ;;
tcg) cpu=max ;;
*) die "the accelerator settled as '$accel', not kvm or tcg" ;;
esac

# The RAM QEMU gives the guest: --mem and the ranges carved out of it,
# which start at 4 GiB: with 2.75 GiB or more, q35 maps 2 GiB below 4 GiB
# and the rest from 4 GiB on.
memmib=$(mib "$mem")
carve=()
if [ $((softmib + devmib)) -gt 0 ]; then
	memmib=$((memmib + softmib + devmib))
	carve_at=4096
	if [ "$softmib" -gt 0 ]; then
		carve+=("memmap=${softmib}M%$(printf '%#x' $((carve_at << 20)))-1+0xefffffff")
		carve_at=$((carve_at + softmib))
	fi
	if [ "$devmib" -gt 0 ]; then
		carve+=("memmap=${devmib}M%$(printf '%#x' $((carve_at << 20)))-1+2")
	fi
fi
nvmib=$(mib "$nvsize")
# Each NVDIMM's share of the hotplug area: backend (region + label area),
# rounded up to the alignment QEMU places it at.
nvlabelkib=0
[ -z "$nvlabel" ] || nvlabelkib=$(kib "$nvlabel")
nvslotmib=$((nvmib + (nvlabelkib + 1023) / 1024))
[ -z "$nvalign" ] || nvslotmib=$((nvslotmib + $(mib "$nvalign")))
labelmib=0
[ -z "$labelsize" ] || labelmib=$(($(mib "$labelsize") + 1))
ndimms=$nvdimms
[ -z "$labelsize" ] || ndimms=$((nvdimms + 1))
slots=4
[ "$ndimms" -le "$slots" ] || slots=$ndimms
# With --numa every CPU is a socket of its own: QEMU would put them all in
# one, sharing a cache across nodes, which the kernel warns about
# (topology_sane()).
[ "$numa" = 0 ] || own_llc=1
smp_arg=$smp
[ "$own_llc" = 0 ] || smp_arg="$smp,sockets=$smp,cores=1,threads=1"
# shellcheck disable=SC2054 # the commas are QEMU's
machine=q35,nvdimm=on
[ $((cxlpmib + cxlrmib)) -eq 0 ] || machine+=,cxl=on
qemu=("$MZ_QEMU" -machine "$machine" -accel "$accel" -cpu "$cpu"
	-m "${memmib}M,slots=$slots,maxmem=$((memmib + nvdimms * nvslotmib + labelmib + 1024))M"
	-smp "$smp_arg" -nodefaults -nographic -no-reboot
	-kernel "$bzimage" -initrd "$initrd")
# The NUMA topology of --numa, and the node of the NVDIMMs.
nvnode=
if [ "$numa" = 1 ]; then
	half=$((memmib / 2))
	# Node 0 takes two CPUs when node 1 keeps three, else one.
	n0=0 cpus0=0
	[ "$smp" -lt 5 ] || n0=1 cpus0=0-1
	# shellcheck disable=SC2054 # the commas are QEMU's
	qemu+=(-object "memory-backend-ram,id=ram0,size=${half}M"
		-numa "node,nodeid=0,cpus=$cpus0,memdev=ram0"
		-object "memory-backend-ram,id=ram1,size=$((memmib - half - 256))M"
		-numa "node,nodeid=1,cpus=$((n0 + 1))-$((smp - 1)),memdev=ram1"
		-object "memory-backend-ram,id=ram2,size=256M"
		-numa "node,nodeid=2,memdev=ram2"
		-numa dist,src=0,dst=1,val=20 -numa dist,src=0,dst=2,val=30
		-numa dist,src=1,dst=2,val=15)
	nvnode=,node=1
fi

# prep CMD...: run CMD, one of the steps before QEMU starts; with
# --dry-run, print it instead, as a line of the script the dry run prints.
prep() {
	if [ "$dry_run" = 1 ]; then mz_quote "$@"; else "$@"; fi
}
if { [ "$ndimms" -gt 0 ] && [ "$nvmem" = file ]; } || [ -n "$cmb" ] || [ "$cxlpmib" -gt 0 ]; then
	vmdir=${MZ_VM_DIR:-$MZ_VM_FILES}
	prep mkdir -p "$vmdir"
	if [ "$dry_run" = 0 ]; then
		exec 9>"$vmdir/lock"
		flock -n 9 || die "another vm.sh is using the NVDIMM files in $vmdir; wait for it or set MZ_VM_DIR"
	fi
fi
if [ "$ndimms" -gt 0 ]; then
	# add_nvdimm ID KIB [DEVICE-OPTIONS [BACKEND-OPTIONS]]: one NVDIMM backed by
	# $vmdir/nvdimmID.img of KIB KiB, recreated empty unless --keep-nvdimm,
	# or with --nvdimm-memory ram by KIB KiB of QEMU's memory.
	add_nvdimm() {
		local img=${vmdir:-}/nvdimm$1.img backend="memory-backend-ram,id=mem$1,size=${2}K"
		# An NVDIMM larger than the host's RAM (make bench's 64G): the
		# host kernel's heuristic overcommit refuses QEMU's one mapping
		# of it, although the guest touches only the metadata part;
		# reserve=off (MAP_NORESERVE) lets it through.
		if [ "$2" -gt "$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)" ]; then
			backend+=",reserve=off"
		fi
		if [ "$nvmem" = file ]; then
			if [ "$keep" = 0 ] || [ ! -f "$img" ] ||
				[ "$(stat -c %s "$img")" -ne $(($2 * 1024)) ]; then
				prep rm -f "$img"
				prep truncate -s "${2}K" "$img"
			fi
			backend="memory-backend-file,id=mem$1,share=on,mem-path=$img,size=${2}K${4:+,$4}"
		fi
		qemu+=(-object "$backend" -device "nvdimm,id=nv$1,memdev=mem$1${3:+,$3}")
	}
	devopts=${nvnode#,} beopts=
	if [ -n "$nvlabel" ]; then devopts="label-size=${nvlabel}${nvnode}"; fi
	if [ -n "$nvalign" ]; then beopts="align=$nvalign"; fi
	for ((i = 0; i < nvdimms; i++)); do
		add_nvdimm "$i" $((nvmib * 1024 + nvlabelkib)) "$devopts" "$beopts"
	done
	# QEMU carves the label area out of the end of the backend.
	if [ -n "$labelsize" ]; then
		add_nvdimm -label $(($(mib "$labelsize") * 1024 + 128)) "label-size=128K$nvnode"
	fi
fi

# CXL: one host bridge, a root port and a type-3 device per capacity, one
# window that holds both (guest regions are carved out of it).
if [ $((cxlpmib + cxlrmib)) -gt 0 ]; then
	# shellcheck disable=SC2054 # the commas are QEMU's
	qemu+=(-device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1)
	port=0
	if [ "$cxlpmib" -gt 0 ]; then
		# Recreated empty, as the NVDIMMs: stale labels would refuse a
		# namespace the run creates.
		img=$vmdir/cxl-pmem.img lsa=$vmdir/cxl-lsa.img
		if [ "$keep" = 0 ] || [ ! -f "$img" ] || [ ! -f "$lsa" ] ||
			[ "$(stat -c %s "$img")" -ne $((cxlpmib << 20)) ]; then
			prep rm -f "$img" "$lsa"
			prep truncate -s "${cxlpmib}M" "$img"
			prep truncate -s 128K "$lsa"
		fi
		# shellcheck disable=SC2054 # the commas are QEMU's
		qemu+=(-object "memory-backend-file,id=cxl-pmem-mem,share=on,mem-path=$img,size=${cxlpmib}M"
			-object "memory-backend-file,id=cxl-lsa-mem,share=on,mem-path=$lsa,size=128K"
			-device "cxl-rp,port=$port,bus=cxl.1,id=cxl-rp$port,chassis=0,slot=$((port + 2))"
			-device "cxl-type3,bus=cxl-rp$port,persistent-memdev=cxl-pmem-mem,lsa=cxl-lsa-mem,id=cxl-pmem,sn=$((port + 1))")
		port=$((port + 1))
	fi
	if [ "$cxlrmib" -gt 0 ]; then
		# shellcheck disable=SC2054 # the commas are QEMU's
		qemu+=(-object "memory-backend-ram,id=cxl-ram-mem,share=on,size=${cxlrmib}M"
			-device "cxl-rp,port=$port,bus=cxl.1,id=cxl-rp$port,chassis=0,slot=$((port + 2))"
			-device "cxl-type3,bus=cxl-rp$port,volatile-memdev=cxl-ram-mem,id=cxl-ram,sn=$((port + 1))")
	fi
	qemu+=(-M "cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=$((cxlpmib + cxlrmib))M")
fi

cmdline="console=ttyS0 panic=-1 printk.devkmsg=on"
if [ -n "$cmb" ]; then
	prep rm -f "$vmdir/nvme.img"
	prep truncate -s 64M "$vmdir/nvme.img"
	# shellcheck disable=SC2054 # the commas are QEMU's
	qemu+=(-drive "file=$vmdir/nvme.img,if=none,id=nvme0,format=raw"
		-device "nvme,bus=pcie.0,serial=mz-cmb,drive=nvme0,cmb_size_mb=$cmb")
	cmdline+=" nvme.use_cmb_sqes=0"
fi
if [ ${#carve[@]} -gt 0 ]; then cmdline+=" ${carve[*]}"; fi
if [ -n "$test" ]; then
	cmdline+=" mz.test=$test mz.out=ttyS1"
	if [ ${#targs[@]} -gt 0 ]; then cmdline+=" mz.args=$(IFS=,; echo "${targs[*]}")"; fi
fi
if [ ${#appends[@]} -gt 0 ]; then cmdline+=" ${appends[*]}"; fi
qemu+=(-append "$cmdline")
what="$nvdimms x $nvsize NVDIMM${nvlabel:+ (label area $nvlabel)}${labelsize:+ + $labelsize labelled}, $memmib MiB RAM, $smp CPUs"
[ "$nvmem" = file ] || what+=" (NVDIMM contents in QEMU's memory)"
[ -z "$cmb" ] || what+=", NVMe with a $cmb MiB CMB"
[ -z "$softres" ] || what+=", $softres soft reserved"
[ -z "$devres" ] || what+=", $devres reserved"
[ "$numa" = 0 ] || what+=", 3 NUMA nodes (NVDIMMs on node 1, node 2 memory-only)"
[ "$own_llc" = 0 ] || [ "$numa" = 1 ] || what+=", a socket per CPU"
[ -z "$cxlpmem" ] || what+=", CXL $cxlpmem persistent"
[ -z "$cxlram" ] || what+=", CXL $cxlram volatile"

if [ "$shell" = 1 ]; then
	qemu+=(-serial mon:stdio)
	if [ "$dry_run" = 1 ]; then
		mz_quote "${qemu[@]}"
		exit 0
	fi
	info "booting $bzimage interactively: accel $accel ($why), $what; Ctrl-A X quits"
	info "running: $(mz_quote "${qemu[@]}")"
	exec "${qemu[@]}"
fi

log=${log:-$MZ_LOGS/vm-$test.log}
tlog=${log%.log}.test.log
# The console (ttyS0) is appended to the log, after the command line; the
# test's output (ttyS1) fills tlog.
qemu+=(-chardev "file,id=console,path=$log,append=on" -serial chardev:console
	-chardev "file,id=test,path=$tlog" -serial chardev:test)
prep mkdir -p "$(dirname "$log")"
if [ "$dry_run" = 1 ]; then
	mz_quote "${qemu[@]}"
	exit 0
fi
printf '+ %s\n# %s\n' "$(mz_quote "${qemu[@]}")" "$qemu_version" >"$log"
: >"$tlog"
qerr=$(mktemp)
clean=$(mktemp)
tclean=$(mktemp)
qpid='' tpid=''
stop_qemu() {
	local i
	if [ -z "$qpid" ] || ! kill -0 "$qpid" 2>/dev/null; then return 0; fi
	kill -TERM "$qpid" 2>/dev/null || true
	for ((i = 0; i < 25; i++)); do
		kill -0 "$qpid" 2>/dev/null || return 0
		sleep 0.2
	done
	kill -KILL "$qpid" 2>/dev/null || true
}
cleanup() {
	stop_qemu
	rm -f "$qerr" "$clean" "$tclean"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

info "booting $bzimage: $qemu_version, accel $accel ($why), $what, test $test, timeout ${timeout}s (boot ${boot_timeout}s), log $log"
t0=$EPOCHREALTIME
"${qemu[@]}" </dev/null >"$qerr" 2>&1 &
qpid=$!
if [ "$console" = 1 ]; then
	tail -q -n +1 -f --pid="$qpid" "$log" "$tlog" >&2 &
	tpid=$!
fi

# Times in microseconds.
deadline=$((${t0/./} + timeout * 1000000)) timed_out=0 no_poweroff=0 exit_at=
boot_deadline=$((${t0/./} + boot_timeout * 1000000)) started=0 stalled=0
while kill -0 "$qpid" 2>/dev/null; do
	now=${EPOCHREALTIME/./}
	if [ "$started" = 0 ]; then
		if grep -aqs '^MZ-TEST: ' "$tlog" "$log"; then
			started=1
		elif [ "$now" -ge "$boot_deadline" ]; then
			stalled=1
			break
		fi
	fi
	if [ "$now" -ge "$deadline" ]; then
		timed_out=1
		break
	fi
	if [ -z "$exit_at" ]; then
		if grep -aqs '^MZ-EXIT: ' "$tlog" "$log"; then exit_at=$now; fi
	elif [ $((now - exit_at)) -ge 15000000 ]; then
		no_poweroff=1
		break
	fi
	sleep 0.2
done
stop_qemu
qrc=0
wait "$qpid" || qrc=$?
qpid=
if [ -n "$tpid" ]; then wait "$tpid" || true; fi
elapsed=$(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $t0 }")

tr -d '\r' <"$log" >"$clean"
tr -d '\r' <"$tlog" >"$tclean"
# The test's output: between the markers.  Blank lines are held back so
# the one init prints before MZ-EXIT (which starts it on a line of its
# own) is dropped.  When init could not use ttyS1 (it says so on the
# console), the output is on the console, without the kernel's messages.
out_from=$tclean oncon=0
if ! grep -q '^MZ-TEST: ' "$tclean" && grep -q '^MZ-TEST: ' "$clean"; then
	out_from=$clean oncon=1
	warn "the test's output went to the console, not to ttyS1 ($(grep -m1 "^init: .*the test's output goes to the console" "$clean" || echo 'init said nothing')): a kernel message may split its lines"
fi
awk -v oncon="$oncon" '
	/^MZ-EXIT: / { p = 0 }
	p && !(oncon && /^\[ *[0-9]+\.[0-9]+\] /) {
		if ($0 == "") { blank++; next }
		for (; blank > 0; blank--) print ""
		print
	}
	/^MZ-TEST: / { p = 1; blank = 0 }' "$out_from"

status=$(sed -n 's/^MZ-EXIT: \([0-9][0-9]*\)$/\1/p' "$out_from" | tail -n 1)
problems=()
if [ "$stalled" = 1 ]; then
	problems+=("the guest stalled during boot: no MZ-TEST line after ${boot_timeout}s")
elif [ "$timed_out" = 1 ]; then
	problems+=("timed out after ${timeout}s")
elif [ -z "$status" ]; then
	problems+=("no MZ-EXIT line (qemu exit status $qrc)")
	if [ -s "$qerr" ]; then sed 's/^/  qemu: /' "$qerr" >&2; fi
fi
if [ "$no_poweroff" = 1 ]; then
	problems+=("the guest did not power off within 15 s of MZ-EXIT")
fi
if [ ${#problems[@]} -gt 0 ]; then
	echo "--- the command ($log, line 1) ---" >&2
	head -n 1 "$clean" >&2
	echo "--- last 30 console lines ($log) ---" >&2
	tail -n 30 "$clean" >&2
	echo "--- last 30 lines of the test's output ($tlog) ---" >&2
	tail -n 30 "$tclean" >&2
	echo "---" >&2
fi
# Kernel messages only (printk's "[ seconds]" stamp, CONFIG_PRINTK_TIME):
# a test's own output may say WARNING: (ndctl does).  Not the command line
# (line 1): a --append could hold anything.
reports=$(grep -anE "\[ *[0-9]+\.[0-9]+\] .*($REPORTS)" "$clean" | grep -v '^1:' || true)
if [ -n "$reports" ]; then
	echo "--- kernel reports on the console ($log) ---" >&2
	head -n 20 <<<"$reports" >&2
	echo "---" >&2
	problems+=("the kernel reported $(wc -l <<<"$reports") problem line(s)")
fi

if [ ${#problems[@]} -gt 0 ]; then
	msg=$(printf '%s; ' "${problems[@]}")
	if [ "$stalled" = 1 ] && [ -z "$reports" ]; then
		# Nothing ran: the caller may boot again.
		printf '%s: error: %s\n' "${0##*/}" "test $test did not start after ${elapsed}s (accel $accel): ${msg%; }; nothing ran, so booting again is safe; log: $log, test output: $tlog" >&2
		exit 75
	fi
	die "test $test failed after ${elapsed}s (accel $accel): ${msg%; }; log: $log, test output: $tlog"
fi
if [ "$status" -ne 0 ]; then
	warn "test $test failed: MZ-EXIT $status after ${elapsed}s (accel $accel); log: $log, test output: $tlog"
	exit "$status"
fi
info "test $test passed: MZ-EXIT 0 after ${elapsed}s (accel $accel); log: $log, test output: $tlog"
