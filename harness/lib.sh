# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# Common helpers for the harness scripts: configuration, the cache's
# layout, logging, quoting, errors, and the series' bookkeeping.  Sourced,
# never executed, right after 'set -euo pipefail'.  It defines and never
# runs another harness script: callers run tree.sh, kvm-probe.sh and the
# other steps themselves.

# Keep 'set -e' inside command substitutions: without this, a failing
# command inside a function called as x=$(f) is ignored and f carries on.
shopt -s inherit_errexit

# Where the repository lives (the directory holding this harness/).
MZ_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# --- Configuration --------------------------------------------------------
# Every setting the harness takes from the environment, with its default,
# here and nowhere else.  Each has a "#= NAME  what it is (default ...)"
# line, which 'make help' prints as it is: harness.bats checks that every
# setting has one and that the defaults they state are the values set.
#
# Everything large lives outside the repository.
#= MZ_CACHE       caches, builds, logs, results (default ${XDG_CACHE_HOME:-~/.cache}/memmap-zone-device)
MZ_CACHE=${MZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memmap-zone-device}
#= MZ_LOGS        build logs and guest consoles (default $MZ_CACHE/logs)
MZ_LOGS=${MZ_LOGS:-$MZ_CACHE/logs}
#= MZ_TREE        the git kernel tree (default $MZ_CACHE/linux)
MZ_TREE=${MZ_TREE:-$MZ_CACHE/linux}
#= MZ_FORCE       1: tree.sh and ndctl-tree.sh discard commits that were never exported
MZ_FORCE=${MZ_FORCE:-0}
#= MZ_ACCEL       kvm or tcg: force QEMU's accelerator (default auto: probe for KVM once per kernel)
MZ_ACCEL=${MZ_ACCEL:-auto}
#= MZ_KVM_DEV     the KVM device (default /dev/kvm)
MZ_KVM_DEV=${MZ_KVM_DEV:-/dev/kvm}
#= MZ_PROBE_TIMEOUT  seconds the KVM probe boot may take (default 20)
MZ_PROBE_TIMEOUT=${MZ_PROBE_TIMEOUT:-20}
#= MZ_QEMU        the qemu-system-x86_64 the guests boot in (default: the one on PATH; make qemu prints the path of its QEMU)
MZ_QEMU=${MZ_QEMU:-qemu-system-x86_64}
# The size of each NVDIMM of the test guests (vm.sh's default; the
# matrix gives every guest one plain and one labelled NVDIMM of it).
# The benchmark sizes its own from --size.
#= MZ_NVDIMM_SIZE  each test guest NVDIMM's size (default 1G; the benchmark's follow --size)
MZ_NVDIMM_SIZE=${MZ_NVDIMM_SIZE:-1G}
# The matrix's numa cell's NVDIMM: room for three 1 GiB folios of devdax
# align=1G after the memmap.
#= MZ_NUMA_NVDIMM_SIZE  the NVDIMM of the matrix's NUMA guest (default 5G: devdax align=1G)
MZ_NUMA_NVDIMM_SIZE=${MZ_NUMA_NVDIMM_SIZE:-5G}
# The other ZONE_DEVICE memory of the matrix's guests (vm.sh's options):
# an NVMe controller memory buffer (p2pdma) of 1 GiB, four chunks of the
# multithreaded memmap init; 512 MiB of soft-reserved memory for dax_hmem;
# the 512 MiB test_hmm's two device-coherent devices take.
MZ_ZONE_DEVICES=(--nvme-cmb 1024 --soft-reserved 512M --device-reserved 512M)
# The CXL memory of the matrix's cxl cell (vm.sh --cxl-pmem, --cxl-ram):
# a persistent device as large as the other cells' NVDIMM, whose pmem
# region gets the namespace tests; a volatile one whose ram region's
# device-dax is as large as the soft-reserved memory.
#= MZ_CXL_PMEM_SIZE  the cxl cell's CXL persistent capacity (default 1G)
MZ_CXL_PMEM_SIZE=${MZ_CXL_PMEM_SIZE:-1G}
#= MZ_CXL_RAM_SIZE  the cxl cell's CXL volatile capacity (default 512M)
MZ_CXL_RAM_SIZE=${MZ_CXL_RAM_SIZE:-512M}
#= MZ_QEMU_CXL    the qemu-system-x86_64 of the CXL guests (default: MZ_QEMU when it is MZ_QEMU_CXL_MIN or newer, else make qemu's)
MZ_QEMU_CXL=${MZ_QEMU_CXL:-}
# QEMU emulates CXL type-3 devices in full from 10.0 on: vm.sh refuses
# --cxl-pmem and --cxl-ram on an older QEMU, and mz_qemu_cxl takes MZ_QEMU
# for the CXL guests only from this version on.
#= MZ_QEMU_CXL_MIN  the oldest QEMU major version the CXL guests boot in (default 10)
MZ_QEMU_CXL_MIN=${MZ_QEMU_CXL_MIN:-10}

# The variant (Kconfig.fragments/NAME.config) with the streaming backend
# built: the one kernel of make check, of the code-generation check and of
# the peer suites, and the bench's patched kernels.  The matrix's variants
# are harness/matrix/matrix-cells.txt's.
MZ_STREAM_VARIANT=stream-y
# The hmm-tests cases a matrix guest under TCG leaves out: the timed
# ones, whose own limit (benchmark_thp_migration's 120 s) an emulated
# guest meets or not depending on the host's load (docs/matrix.md,
# "hmm-tests under TCG").  Passed to the guest as MEMMAP_INIT_HMM_EXCLUDE;
# each is reported as a skip.  With KVM every case runs.
MZ_HMM_TCG_EXCLUDE=benchmark_thp_migration
# mz_hmm_exclude ACCEL: the hmm-tests cases a guest under ACCEL (kvm or
# tcg) leaves out, comma-separated; nothing for kvm.
mz_hmm_exclude() {
	[ "$1" != tcg ] || echo "$MZ_HMM_TCG_EXCLUDE"
}
#= MZ_CHECK_QUICK  1: make check skips the selftest matrix (what make check-quick does)
MZ_CHECK_QUICK=${MZ_CHECK_QUICK:-0}
# CI gives one run of .ci/run 90 minutes on a machine that may be new;
# make check keeps a cold run well inside it (docs/matrix.md, "Time").
#= MZ_CHECK_BUDGET  seconds make check may take before it warns, naming its slowest steps (default 3000)
MZ_CHECK_BUDGET=${MZ_CHECK_BUDGET:-3000}
# What a cold make check leaves in an empty MZ_CACHE (6.5 GiB measured,
# a fresh clone's run of 2026-11-30, rounded up) and what it holds under
# TMPDIR at most (2.6 GiB measured in the same run: bats keeps every
# test's directory until it ends, send.bats' scratch clones 1.3 GiB of
# it), which check-space.sh asks to be free before it starts.
MZ_CHECK_CACHE_MIB=7168
MZ_CHECK_TMP_MIB=3072
# The apt sources fetch-base.sh takes its Debian mirror from (deb822
# .sources or one-line .list files).
#= MZ_APT_SOURCES  apt sources files fetch-base.sh takes the Debian mirror from (default: the host's)
MZ_APT_SOURCES=${MZ_APT_SOURCES:-/etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list}
#= MZ_JOBS        parallel jobs of a kernel build (default: nproc)
MZ_JOBS=${MZ_JOBS:-$(nproc)}
# ccache's directory (builds use ccache when it is installed).
#= CCACHE_DIR     ccache's directory (default $MZ_CACHE/ccache)
export CCACHE_DIR=${CCACHE_DIR:-$MZ_CACHE/ccache}
# The series the checks read (export.sh always writes patches/).
#= MZ_PATCHES     the series the checks and send-prep read (default patches/)
MZ_PATCHES=${MZ_PATCHES:-$MZ_ROOT/patches}
# The subject prefix export.sh gives the series of patches/ and every
# follow-up series (the fixes have MZ_FIXES_PREFIX).
#= MZ_SUBJECT_PREFIX  export.sh's subject prefix (default 'PATCH': v1 of a series of our own, not Li Zhe's v11)
MZ_SUBJECT_PREFIX=${MZ_SUBJECT_PREFIX:-PATCH}
# The follow-up series, applied on top of the series of patches/: their
# folders under patches/, in the order the kernel tree stacks them.  The
# first starts at branch MZ_FIRST_BRANCH (the first series' end), each
# starts where the one before it ends, each but the last ends at a
# branch named after it and the last at branch "series", which holds them
# all (mz_followup_range).  Each is sent on the fixes and patches/ alone
# (send-prep.sh), where check-series.sh first applies and builds it.
MZ_FOLLOWUPS="threads hotplug"
# The follow-ups posted as RFCs: export.sh's subject prefix for them is
# "RFC $MZ_SUBJECT_PREFIX".
MZ_RFC_FOLLOWUPS="hotplug"
MZ_FIRST_BRANCH=opt-in
# The fixes of bugs the peer suites found: a series of their own, on
# Linux $MZ_BASE_VERSION itself, that the series of patches/ applies on:
# their folder under patches/, their branch in the kernel tree (it ends
# where MZ_BASE_TAG is) and their subject prefix.
MZ_FIXES=fixes
MZ_FIXES_PREFIX=PATCH
#= CHECK_SUMMARY  the matrix's JSON summary (default $MZ_CACHE/results/check-summary.json)
CHECK_SUMMARY=${CHECK_SUMMARY:-$MZ_CACHE/results/check-summary.json}
#= BENCH_RESULTS  the benchmark's JSON (default $MZ_CACHE/results/bench.json)
BENCH_RESULTS=${BENCH_RESULTS:-$MZ_CACHE/results/bench.json}
#= MZ_NDCTL_TREE  the git ndctl tree of patches/ndctl/ (default $MZ_CACHE/ndctl)
MZ_NDCTL_TREE=${MZ_NDCTL_TREE:-$MZ_CACHE/ndctl}
# How many patches of the series are Part 1 (v11 of the original series,
# queued upstream); the rest is Part 2, the delta upstream.sh exports.
#= MZ_PART1       how many patches of the series are Part 1, v11's equivalent (default 7)
MZ_PART1=${MZ_PART1:-7}
# The first patches of Part 2 fix v11's own code: upstream.sh exports
# them as a series of their own (their folder under patches/), for v11's
# thread, and the rest of Part 2 on top of them.
MZ_V11_FIXES=v11-fixes
MZ_V11_FIXES_N=2
#= MZ_UPSTREAM_TREE  where upstream.sh clones MZ_UPSTREAM_SRC (default $MZ_CACHE/linux-upstream)
MZ_UPSTREAM_TREE=${MZ_UPSTREAM_TREE:-$MZ_CACHE/linux-upstream}
# Which trees build-kernel.sh builds: series (the series on 7.3.4 and
# the fixes of patches/fixes/, or with --base 7.3.4 and the fixes alone)
# or upstream (MZ_UPSTREAM_SRC plus the fixes, patches/v11-fixes/ and
# patches/mm-unstable/,
# or with --base MZ_UPSTREAM_SRC and the fixes alone: make
# check-upstream, and make bench to compare Part 2 with v11 itself).
#= MZ_BUILD_KIND  series (7.3.4, the default) or upstream (MZ_UPSTREAM_SRC with patches/v11-fixes/ and patches/mm-unstable/): the kernels builds and make bench use
MZ_BUILD_KIND=${MZ_BUILD_KIND:-series}
# Also read, without a default here (the .deb's and the ndctl tarball's
# checksums have theirs below):
#= LINUX_SRC      your own 7.3.y tree as the base instead of Debian's linux-source-7.3
#= MZ_UPSTREAM_SRC  a git tree with v11 queued (mm-unstable, or 7.3.y plus v11): upstream-export, check-upstream
#= MZ_DEB_FILE    a linux-source-7.3 .deb you downloaded, instead of fetching it
#= MZ_NDCTL_TARBALL  an ndctl_81.orig.tar.gz you downloaded, instead of fetching it
#= MZ_KSRC        kernel tree for the selftests and ktap_helpers.sh (default: the build's)
#= MZ_VM_DIR      NVDIMM backing files (default $MZ_CACHE/vm, $MZ_CACHE/vm-bench)
#= MZ_TEST_BUILD  the kernel the bats VM tests boot (make check passes the one it built)
# and one that is not a setting: check.sh exports MZ_TREE_APPLIED to the
# steps it runs (tree.sh apply then takes the tree as it is).
# --- end of configuration ---------------------------------------------------

# --- The cache's layout -------------------------------------------------------
# Every folder of MZ_CACHE (and next to MZ_TREE) the scripts use, named
# here once; docs/developing.md says what each holds.  The Makefile reads
# the ones it needs from here too.
MZ_DL=$MZ_CACHE/dl                      # downloaded .deb and tarballs
MZ_APT_STATE=$MZ_CACHE/apt              # fetch-base.sh's private apt state
MZ_APT_SRC_STATE=$MZ_CACHE/apt-src      # fetch-ndctl.sh's (deb-src)
MZ_APT_QEMU_STATE=$MZ_CACHE/apt-qemu    # fetch-qemu.sh's (bookworm-backports)
MZ_QEMU_DIR=$MZ_CACHE/qemu              # make qemu's QEMU, extracted (fetch-qemu.sh)
MZ_SRC=$MZ_CACHE/src                    # the extracted sources
MZ_BUILD=$MZ_CACHE/build                # O= directories, ndctl's builds
MZ_SELFTESTS=$MZ_CACHE/selftests        # installed kselftest targets
MZ_INITRAMFS=$MZ_CACHE/initramfs        # the test guests' initramfs archives
MZ_BENCH_FILES=$MZ_CACHE/bench          # the benchmark's initramfs, probe JSON
MZ_BENCH_MODULES=$MZ_CACHE/bench-module # memremap_bench.ko per kernel
MZ_LAB_MODULES=$MZ_CACHE/lab-module     # the lab's test modules per kernel
MZ_VM_FILES=$MZ_CACHE/vm                # NVDIMM backing files (MZ_VM_DIR's default)
MZ_VM_BENCH_FILES=$MZ_CACHE/vm-bench    # the benchmark's, with --nvdimm-memory file
MZ_RESULTS=$MZ_CACHE/results            # JSON and tables of the last runs
MZ_ACCEL_PROBES=$MZ_CACHE/accel-probe   # kvm-probe.sh's answer per kernel image
MZ_PROBE_FILES=$MZ_CACHE/probe          # store-probe.sh's extracted copy and binary
MZ_CHECK_TREE=$MZ_CACHE/linux-check     # check-series.sh's worktree
MZ_SEND_TREE=$MZ_CACHE/linux-send       # send-prep.sh's scratch clones
MZ_NDCTL_SEND_TREE=$MZ_CACHE/ndctl-send
MZ_SEND_OUT=$MZ_CACHE/send              # send-prep.sh's output, and -threads, -hotplug, -ndctl
MZ_BASE_WORKTREE=$MZ_TREE-base          # worktrees of MZ_TREE: the base,
MZ_FIRST_WORKTREE=$MZ_TREE-first        # and the first series' end
# --- end of the cache's layout ------------------------------------------------

# The base this project targets (Debian's linux-source-7.3).  Used by the
# scripts that source this file.
MZ_BASE_VERSION=7.3.4
# The first paragraph of the first series' cover letter that only the
# 7.3.4 form has (it explains patches 1-7); upstream.sh puts the base of
# patches/mm-unstable/ in its place.
MZ_COVER_RELEASE_PARAGRAPH="Linux $MZ_BASE_VERSION has no v11"
MZ_DEB_PACKAGE=linux-source-7.3
MZ_DEB_VERSION=7.3.4-1~bpo13+1
MZ_DEB_SUITE=trixie-backports
#= MZ_DEB_SHA256  the sha256 that .deb must have (default: Debian's 7.3.4-1~bpo13+1)
MZ_DEB_SHA256=${MZ_DEB_SHA256:-703e369ddd4cce971452f5a593ee55df3a5c10c83caf0fa0df039633ed181ee3}
# In the kernel tree, MZ_RELEASE_TAG is the release as Debian ships it
# and MZ_BASE_TAG what the series applies on, the release with the fixes
# of patches/$MZ_FIXES/: the base every comparison builds.
MZ_RELEASE_TAG=v$MZ_BASE_VERSION
MZ_BASE_TAG=v$MZ_BASE_VERSION-base

# The companion ndctl series (patches/ndctl/) applies to this ndctl
# release: the newest whose source Debian serves these machines (trixie's
# orig tarball; sid's newer one is refused), fetched by fetch-ndctl.sh.
MZ_NDCTL_VERSION=81
MZ_NDCTL_SUITE=trixie
#= MZ_NDCTL_SHA256  the sha256 that tarball must have (default: Debian's ndctl 81)
MZ_NDCTL_SHA256=${MZ_NDCTL_SHA256:-e40784687ac2d0c176748c9ffb8bde541a12301b6fedb607a9a70c8fd1f94929}
MZ_NDCTL_TAG=ndctl-v$MZ_NDCTL_VERSION-base
# checkpatch.pl's options for the ndctl series, which follows the
# kernel's coding style (ndctl's CONTRIBUTING.md) but is not a kernel
# tree (--no-tree) and has no MAINTAINERS file to update for a new file.
MZ_NDCTL_CHECKPATCH=(--no-tree --ignore FILE_PATH_CHANGES)

# QEMU with full CXL type-3 emulation (persistent and volatile capacity,
# label area, fixed memory windows): Debian's 10.0 in bookworm-backports,
# built against bookworm's libraries.  fetch-qemu.sh extracts these
# packages into MZ_QEMU_DIR, beside the host's QEMU (7.2 on Debian 12),
# which stays as it is.
MZ_QEMU_SUITE=bookworm-backports
MZ_QEMU_PACKAGES=(qemu-system-x86=1:10.0.2+ds-2+deb13u1~bpo12+1
	qemu-system-common=1:10.0.2+ds-2+deb13u1~bpo12+1
	qemu-system-data=1:10.0.2+ds-2+deb13u1~bpo12+1
	seabios=1.16.3-2~bpo12+1)

# Who the commits of the git trees (tree.sh, ndctl-tree.sh, upstream.sh)
# are by: an unsent patch, never a person.  Every exported patch keeps it
# as its From:, so that 'git am' takes the patch as exported, and carries
# no Signed-off-by:; send-prep.sh replaces it with the sender's From: and
# adds the sender's Signed-off-by: at send time.
MZ_TREE_NAME="Unsent memmap-zone-device patch" MZ_TREE_EMAIL="unsent@memmap-zone-device.invalid"

mz_ts() { date +%H:%M:%S; }

# Progress and errors go to stderr so stdout stays machine-readable.
info() { printf '[%s] %s: %s\n' "$(mz_ts)" "${0##*/}" "$*" >&2; }
warn() { printf '[%s] %s: warning: %s\n' "$(mz_ts)" "${0##*/}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# Options, parsed the same way in every script.  A script declares each
# option once, before mz_parse:
#   mz_opt OPTION VAR DEFAULT METAVAR REGEX HELP
#       an option with a value: VAR is set to DEFAULT now, and to the
#       value, which must match REGEX, when OPTION is given; a VAR ending
#       in [] names an array the option appends to (repeatable).
#   mz_flag OPTION VAR HELP
#       an option without a value: VAR is set to 0 now, to 1 when given.
# mz_parse [--in-order] ARG... then takes --OPTION VALUE and
# --OPTION=VALUE anywhere (with --in-order, up to the first operand) and
# leaves the operands, and everything after --, in MZ_OPERANDS.  -h and
# --help print the script's header comment and a line per option, built
# from these declarations: the one place its help is written.  Every
# error names the option and the value and exits 2 (mz_arg_error).
# MZ_LIST_OPTIONS=1 makes mz_parse print the declarations (OPTION, METAVAR
# or -, REGEX, tab-separated) and exit: the harness's tests read them.  It
# is read here, when lib.sh is sourced, and taken out of the environment,
# so that no script this one runs sees it.
# The parser's own names start with _mz or mz_: an option's variable must
# not (mz_opt refuses it).
declare -ga _mz_opts=() MZ_OPERANDS=()
declare -gA _mz_var=() _mz_def=() _mz_meta=() _mz_re=() _mz_text=()
_mz_list_options=${MZ_LIST_OPTIONS:-0}
unset MZ_LIST_OPTIONS
mz_arg_error() { printf '%s: error: %s (see --help)\n' "${0##*/}" "$*" >&2; exit 2; }
# _mz_declare OPTION VAR: bookkeeping shared by mz_opt and mz_flag.
_mz_declare() {
	if ! [[ "$1" =~ ^--[a-z0-9][a-z0-9-]*$ && "$2" =~ ^[a-z][a-z0-9_]*(\[\])?$ && ! "$2" =~ ^mz_ ]] ||
		[ -n "${_mz_var[$1]+set}" ]; then
		die "${0##*/} declares option $1 with variable $2: a new --name and a variable of its own"
	fi
	_mz_opts+=("$1")
}
mz_opt() {
	_mz_declare "$1" "$2"
	_mz_var[$1]=$2 _mz_def[$1]=$3 _mz_meta[$1]=$4 _mz_re[$1]=$5 _mz_text[$1]=$6
	case "$2" in
	*'[]')
		[ -z "$3" ] || die "${0##*/}: option $1 appends to ${2%[]}: it has no default"
		declare -ga "${2%[]}=()" ;;
	*) printf -v "$2" %s "$3" ;;
	esac
}
mz_flag() {
	_mz_declare "$1" "$2"
	_mz_var[$1]=$2 _mz_def[$1]='' _mz_meta[$1]=- _mz_re[$1]='' _mz_text[$1]=$3
	printf -v "$2" 0
}
# _mz_set OPTION VALUE: check VALUE and store it.
_mz_set() {
	local _mz_v=${_mz_var[$1]}
	[[ "$2" =~ ${_mz_re[$1]} ]] ||
		mz_arg_error "$1 '$2': want ${_mz_meta[$1]} (${_mz_text[$1]}), of the form ${_mz_re[$1]}"
	case "$_mz_v" in
	*'[]') local -n _mz_a=${_mz_v%[]}; _mz_a+=("$2") ;;
	*) printf -v "$_mz_v" %s "$2" ;;
	esac
}
mz_parse() {
	local _mz_o _mz_in_order=0
	if [ "${1:-}" = --in-order ]; then _mz_in_order=1; shift; fi
	if [ "$_mz_list_options" = 1 ]; then
		for _mz_o in ${_mz_opts[@]+"${_mz_opts[@]}"}; do
			printf '%s\t%s\t%s\n' "$_mz_o" "${_mz_meta[$_mz_o]}" "${_mz_re[$_mz_o]}"
		done
		exit 0
	fi
	MZ_OPERANDS=()
	while [ $# -gt 0 ]; do
		case "$1" in
		-h|--help) mz_help ;;
		--) shift; break ;;
		-?*)
			_mz_o=${1%%=*}
			[ -n "${_mz_var[$_mz_o]+set}" ] || mz_arg_error "unknown option '$_mz_o'"
			if [ "${_mz_meta[$_mz_o]}" = - ]; then
				[ "$_mz_o" = "$1" ] || mz_arg_error "$_mz_o takes no value, not '${1#*=}'"
				printf -v "${_mz_var[$_mz_o]}" 1
				shift
			elif [ "$_mz_o" != "$1" ]; then
				_mz_set "$_mz_o" "${1#*=}"
				shift
			else
				[ $# -ge 2 ] || mz_arg_error "$_mz_o needs a value"
				_mz_set "$_mz_o" "$2"
				shift 2
			fi ;;
		*)
			[ "$_mz_in_order" = 0 ] || break
			MZ_OPERANDS+=("$1")
			shift ;;
		esac
	done
	MZ_OPERANDS+=("$@")
}
# mz_operands MIN MAX WANT ARG...: the parser of a script that takes no
# options, only MIN to MAX operands (MAX "-": no limit): mz_parse with
# nothing declared (so -h and --help print its header and any option is
# unknown), then a count outside the range is an error naming WANT (e.g.
# "BUILD_DIR OUTDIR").  Leaves the operands in MZ_OPERANDS.
mz_operands() {
	local _mz_min=$1 _mz_max=$2 _mz_want=$3
	shift 3
	mz_parse "$@"
	if [ ${#MZ_OPERANDS[@]} -lt "$_mz_min" ] || { [ "$_mz_max" != - ] && [ ${#MZ_OPERANDS[@]} -gt "$_mz_max" ]; }; then
		mz_arg_error "want $_mz_want, not ${#MZ_OPERANDS[@]} argument(s)"
	fi
}
# mz_form NAME VALUE REGEX WANT: VALUE matches REGEX, else an error naming
# NAME (an option, or an operand's name) and VALUE and what it wants.
mz_form() { [[ "$2" =~ $3 ]] || mz_arg_error "$1 '$2': want $4"; }
# mz_help: the header comment of the running script (from the line after
# its SPDX tag to the first line that is not a comment), then its options.
mz_help() {
	local _mz_o _mz_m
	awk 'NR > 3 && !/^#/ { exit } NR > 3 { sub(/^# ?/, ""); print }' "$0"
	if [ ${#_mz_opts[@]} -gt 0 ]; then
		printf '\nOptions:\n'
		for _mz_o in "${_mz_opts[@]}"; do
			_mz_m=" ${_mz_meta[$_mz_o]}"
			[ "$_mz_m" != " -" ] || _mz_m=
			printf '  %s\n      %s%s\n' "$_mz_o$_mz_m" "${_mz_text[$_mz_o]}" \
				"${_mz_def[$_mz_o]:+ (default: ${_mz_def[$_mz_o]})}"
		done
	fi
	exit 0
}

# mz_upstream_src: check MZ_UPSTREAM_SRC (a git kernel tree whose HEAD
# has v11 of Li Zhe's series) and set MZ_UPSTREAM_DIR to its absolute path
# and MZ_UPSTREAM_HEAD to its HEAD; else stop, saying what is wrong.
mz_upstream_src() {
	local src head
	[ -n "${MZ_UPSTREAM_SRC:-}" ] ||
		die "set MZ_UPSTREAM_SRC to a git kernel tree with v11 of Li Zhe's series (mm-unstable, or 7.3.y plus v11)"
	src=$(cd "$MZ_UPSTREAM_SRC" 2>/dev/null && pwd) ||
		die "MZ_UPSTREAM_SRC=$MZ_UPSTREAM_SRC does not exist"
	head=$(git -C "$src" rev-parse -q --verify HEAD 2>/dev/null) ||
		die "MZ_UPSTREAM_SRC=$src is not a git tree"
	if ! git -C "$src" grep -q zone_device_page_init_from_template HEAD -- mm/mm_init.c ||
		! git -C "$src" grep -q 'define memcpy_nontemporal' HEAD -- include/linux/string.h; then
		die "MZ_UPSTREAM_SRC=$src (HEAD ${head:0:12}) does not have v11 of the template series (zone_device_page_init_from_template(), memcpy_nontemporal()); use mm-unstable from next-20260901 on, or 7.3.y with v11 applied"
	fi
	MZ_UPSTREAM_DIR=$src MZ_UPSTREAM_HEAD=$head
}

# mz_keep_cover_date NEW OLD: a cover letter's Date: is when format-patch
# ran; where NEW differs from OLD in nothing else, NEW becomes OLD, so
# that an export changes only what the series did.
mz_keep_cover_date() {
	[ -f "$1" ] && [ -f "$2" ] &&
		cmp -s <(grep -v '^Date: ' "$1") <(grep -v '^Date: ' "$2") &&
		cp "$2" "$1"
	return 0
}

# need_tool TOOL PACKAGE: stop with a fix when TOOL is missing.
need_tool() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found; install it with harness/deps.sh (Debian package $2)"
}

# mz_lock VAR FILE WHAT [-s]: lock FILE (flock, exclusive or with -s shared)
# on a new file descriptor, stored in VAR, held until the script exits or
# the descriptor is closed.  When another process holds it, say "waiting
# for WHAT" and wait.
mz_lock() {
	local _fd _mode=${4:--x}
	need_tool flock util-linux
	mkdir -p "$(dirname "$2")"
	exec {_fd}>>"$2"
	if ! flock -n "$_mode" "$_fd"; then
		info "waiting for $3 (lock: $2)"
		flock "$_mode" "$_fd"
	fi
	printf -v "$1" %s "$_fd"
}

# mz_quote WORD...: the words as one shell-quoted command line, to print
# what a script runs so that it can be pasted.
# Words of safe characters stay as they are, the others are single-quoted
# (as Python's shlex.quote does).
mz_quote() {
	local w _mzq=() sq="'\\''"
	for w in "$@"; do
		if [[ "$w" =~ ^[A-Za-z0-9_@%+=:,./-]+$ ]]; then
			_mzq+=("$w")
		else
			_mzq+=("'${w//\'/$sq}'")
		fi
	done
	printf '%s\n' "${_mzq[*]}"
}

# mz_kvm_usable: the KVM device (MZ_KVM_DEV, default /dev/kvm) exists and
# this user may open it.  Whether kernels boot under it is kvm-probe.sh's
# question.
mz_kvm_usable() {
	[ -c "$MZ_KVM_DEV" ] && [ -r "$MZ_KVM_DEV" ] && [ -w "$MZ_KVM_DEV" ]
}

# mz_run LOG COMMAND [ARG]...: run COMMAND with its output appended to LOG,
# after a "+ COMMAND" line (shell-quoted: it can be pasted); when it
# fails, print that line to stderr too, so that the failure says what
# ran.  Returns COMMAND's status.
mz_run() {
	local log=$1 line rc=0
	shift
	line="+ $(mz_quote "$@")"
	mkdir -p "$(dirname "$log")"
	printf '%s\n' "$line" >>"$log"
	"$@" >>"$log" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || printf '%s\n' "$line" >&2
	return "$rc"
}

# mz_kernelversion DIR: the kernel version of the source tree DIR.  A make
# run from make (make -C ... check) passes "w" in MAKEFLAGS, and the
# sub-make would print its directory around the version.
mz_kernelversion() {
	make -s --no-print-directory -C "$1" kernelversion
}

# mz_cc: the C compiler command for builds: "ccache gcc" when ccache is
# installed (in CCACHE_DIR, up to 8 GiB), else gcc.
mz_cc() {
	if command -v ccache >/dev/null 2>&1; then
		ccache -M 8G >/dev/null
		echo "ccache gcc"
	else
		echo gcc
	fi
}

# mz_series_patches ARRAY DIR: set ARRAY to the patch files DIR/series
# lists, without blank and comment lines (none without DIR/series); stops
# when one is missing.
mz_series_patches() {
	local -n _mzsp=$1
	local p
	_mzsp=()
	[ -f "$2/series" ] || return 0
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		[ -f "$2/$p" ] || die "$2/series names $p, which does not exist"
		_mzsp+=("$p")
	done <"$2/series"
}

# mz_followup_range NAME: the kernel tree's branches that delimit the
# follow-up series NAME (one of MZ_FOLLOWUPS), as START..END: it starts
# where the follow-up before it ends (the first at MZ_FIRST_BRANCH) and
# ends at branch NAME, or at "series" for the last one.
mz_followup_range() {
	local f start=$MZ_FIRST_BRANCH
	for f in $MZ_FOLLOWUPS; do
		if [ "$f" = "$1" ]; then
			if [ "$f" = "${MZ_FOLLOWUPS##* }" ]; then echo "$start..series"; else echo "$start..$f"; fi
			return 0
		fi
		start=$f
	done
	die "mz_followup_range: '$1' is not a follow-up series (MZ_FOLLOWUPS: $MZ_FOLLOWUPS)"
}

# mz_stack_patches ARRAY [DIR]: set ARRAY to the patches of the fixes
# DIR/$MZ_FIXES, then those of DIR (default patches/), then those of each
# follow-up series (DIR/NAME for each NAME of MZ_FOLLOWUPS, in order), in
# the order they apply on the release, as paths relative to DIR.
mz_stack_patches() {
	local -n _mzst=$1
	local dir=${2:-$MZ_ROOT/patches} p f
	local -a _mzst_p=()
	_mzst=()
	mz_series_patches _mzst_p "$dir/$MZ_FIXES"
	for p in ${_mzst_p[@]+"${_mzst_p[@]}"}; do
		_mzst+=("$MZ_FIXES/$p")
	done
	mz_series_patches _mzst_p "$dir"
	_mzst+=(${_mzst_p[@]+"${_mzst_p[@]}"})
	for f in $MZ_FOLLOWUPS; do
		mz_series_patches _mzst_p "$dir/$f"
		for p in ${_mzst_p[@]+"${_mzst_p[@]}"}; do
			_mzst+=("$f/$p")
		done
	done
}

# mz_own_configs [DIR]: the Kconfig symbols the patches of DIR (default
# patches/) and its follow-ups add, as CONFIG_NAME lines, sorted.
mz_own_configs() {
	local dir=${1:-$MZ_ROOT/patches} p
	local -a _mzoc=()
	mz_stack_patches _mzoc "$dir"
	for p in ${_mzoc[@]+"${_mzoc[@]}"}; do
		sed -n 's/^+\(menu\)\{0,1\}config \([A-Za-z0-9_]*\)$/CONFIG_\2/p' "$dir/$p"
	done | sort -u
}

# mz_boot_files BUILD INITRAMFS: stop unless both exist; prints the
# kernel image, BUILD/arch/x86/boot/bzImage.
mz_boot_files() {
	[ -f "$1/arch/x86/boot/bzImage" ] ||
		die "$1/arch/x86/boot/bzImage missing: build the kernel with harness/build/build-kernel.sh"
	[ -f "$2" ] || die "$2 missing: make it with harness/vm/initramfs.sh"
	echo "$1/arch/x86/boot/bzImage"
}

# mz_module_build DIR: stop unless DIR holds a finished kernel build that
# external modules can be built against (.config with CONFIG_MODULES=y,
# Module.symvers, which modpost needs and a full build writes last).
mz_module_build() {
	[ -f "$1/.config" ] || die "$1 has no .config: not a kernel build directory"
	grep -qx 'CONFIG_MODULES=y' "$1/.config" || die "$1: kernel built without CONFIG_MODULES"
	[ -f "$1/Module.symvers" ] ||
		die "$1 has no Module.symvers: build the kernel first (build-kernel.sh)"
}

# mz_ext_module SRC OUT BUILD LOG: build the out-of-tree Kbuild modules
# of directory SRC (its *.c and Makefile) against the kernel build BUILD
# (mz_module_build), with W=1, in OUT: a copy, so that the checkout stays
# clean and modules for different kernels do not mix.  A source whose
# contents changed is copied with a new time, so that make rebuilds it
# even when the checkout's file is older than the module built from
# another checkout's; unchanged ones keep their objects.  Stops on a
# failed build and on any compiler or modpost warning, naming LOG.
mz_ext_module() {
	local src=$1 out=$2 build=$3 log=$4 f cc
	mkdir -p "$out" "$(dirname "$log")"
	for f in "$src"/*.c "$src/Makefile"; do
		cmp -s "$f" "$out/${f##*/}" || cp "$f" "$out/${f##*/}"
	done
	cc=$(mz_cc)
	: >"$log"
	if ! ARCH=x86_64 mz_run "$log" make -C "$build" M="$out" W=1 CC="$cc" HOSTCC="$cc" modules; then
		tail -n 30 "$log" >&2
		die "module build failed; full log: $log"
	fi
	if grep -q 'warning:' "$log"; then
		grep 'warning:' "$log" >&2
		die "module build has warnings (W=1); full log: $log"
	fi
}

# mz_merge_config SRC OUT LOG FRAGMENT...: OUT/.config from allnoconfig
# and the fragments (paths absolute or relative to SRC), with the kernel's
# scripts/kconfig/merge_config.sh run in SRC (ARCH from the environment);
# its output is appended to LOG.
mz_merge_config() {
	local src=$1 out=$2 log=$3
	shift 3
	mkdir -p "$out"
	mz_run "$log" env -C "$src" KCONFIG_CONFIG="$out/.config" scripts/kconfig/merge_config.sh \
		-n -O "$out" "$@" || die "merge_config.sh failed; see $log"
}

# Print elapsed seconds since the given epoch second.
mz_since() { echo $(( $(date +%s) - $1 )); }

# The top-level directories (and MAINTAINERS) that mirror the kernel tree
# (see export.sh).
MZ_MIRROR_DIRS="mm arch include drivers kernel lib Documentation tools/testing/selftests MAINTAINERS"

# A stamp of the series as it is in patches/ now, its fixes and follow-ups
# included.
series_stamp() {
	local f d
	{
		for d in "$MZ_FIXES" . $MZ_FOLLOWUPS; do
			for f in "$MZ_ROOT/patches/$d"/series "$MZ_ROOT/patches/$d"/*.patch; do
				[ -f "$f" ] && cat "$f"
			done
		done
		true
	} | sha256sum | cut -d' ' -f1
}

# mz_checkpatch TREE PATCH [OPTION]...: scripts/checkpatch.pl --strict
# (and OPTIONs, e.g. --no-tree for the ndctl series) on PATCH, run
# from inside the kernel tree TREE (so that its git lookups and its
# CamelCase cache belong to the kernel's repository), printing what it
# reports except three: "Unknown commit id" for an id that
# patches/cited-commits.txt lists (the tree has no history to find it
# in), "Non-standard signature: Originally-by:", and "Avoid CamelCase"
# for a non-atomic page flag setter such as __SetPageOffline().
# The series credits Li Zhe's v4 with that tag, which
# Documentation/process/maintainer-tip.rst documents but checkpatch's list
# of signatures lacks; checkpatch exempts SetPageFoo() and ClearPageFoo()
# from CamelCase but not their __ variants, which page-flags.h generates
# as well.  Every other report is printed.  spdxcheck.py needs
# Debian's python3 (python3-ply, python3-git).
#
# A patch of patches/ is from the neutral MZ_TREE_NAME and has no
# Signed-off-by: (mz_patch_identity); it is checked as send-prep.sh will
# send it, from and signed off by a stand-in sender.
mz_checkpatch() {
	local tree=$1 patch=$2 signed
	shift 2
	signed=$(mktemp)
	mz_patch_identity "$patch" "Patch Sender" "sender@localhost" signoff >"$signed"
	{ (cd "$tree" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict -q "$@" "$signed" 2>&1) || true; } |
		awk -v cited="$(sed -n 's/^\([0-9a-f]\{12,40\}\) .*/\1/p' "$MZ_ROOT/patches/cited-commits.txt" 2>/dev/null | tr '\n' ' ')" '
		     BEGIN { RS = ""; ORS = "\n\n"; n = split(cited, c, " "); for (i = 1; i <= n; i++) ok[c[i]] = 1 }
		     /^WARNING: Non-standard signature: Originally-by:\n[^\n]*\nOriginally-by: [^\n]*$/ { next }
		     # The non-atomic page flag setters, __SetPageOffline() and
		     # the like, are generated: checkpatch knows only the atomic
		     # ones (its "Page<foo> variants" exception).
		     /^CHECK: Avoid CamelCase: <__(Set|Clear)Page[A-Z][A-Za-z]*>\n/ { next }
		     /^WARNING: Unknown commit id \047[0-9a-f]+\047, maybe rebased or not pulled\?\n/ {
			     id = $0; sub(/^WARNING: Unknown commit id \047/, "", id); sub(/\047.*/, "", id)
			     if (id in ok) next
		     }
		     /^total: [0-9]+ errors, [0-9]+ warnings, / { next }
		     { print }'
	rm -f "$signed"
}

# mz_host_mirror: the first Debian mirror URI of the host's apt sources
# (MZ_APT_SOURCES, deb822 or one-line), without a trailing slash.
mz_host_mirror() {
	local f uri=
	# shellcheck disable=SC2086 # a list of files and globs
	for f in $MZ_APT_SOURCES; do
		[ -r "$f" ] || continue
		uri=$(awk '
			/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }
			/^deb[ \t]/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z+]+:\/\/.*\/debian\/?$/) { print $i; exit } }
		' "$f")
		[ -n "$uri" ] && break
	done
	[ -n "$uri" ] || die "no Debian mirror found in the host's apt sources; set MZ_APT_SOURCES to a sources file naming one, or download the file by hand (MZ_DEB_FILE for the kernel, MZ_NDCTL_TARBALL for ndctl)"
	echo "${uri%/}"
}

# mz_private_apt ARRAY DIR TYPE SUITE: set up a private apt state in DIR
# (its own sources list, package lists and cache: the host's apt setup is
# not touched) with one TYPE ("deb" or "deb-src") line for SUITE's main
# component on the host's mirror, update it, and set ARRAY to the apt-get
# options that use it.
mz_private_apt() {
	local -n _mzpa=$1
	local dir=$2 type=$3 suite=$4 mirror keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	need_tool apt-get apt
	mirror=$(mz_host_mirror)
	[ -r "$keyring" ] || die "$keyring missing; install Debian package debian-archive-keyring"
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	printf '%s [signed-by=%s] %s %s main\n' "$type" "$keyring" "$mirror" "$suite" >"$dir/sources.list"
	_mzpa=(-o "Dir::Etc::SourceList=$dir/sources.list"
	       -o "Dir::Etc::SourceParts=/nonexistent"
	       -o "Dir::State::Lists=$dir/lists"
	       -o "Dir::Cache=$dir/cache"
	       -o "APT::Sandbox::User=root")
	info "updating a private package list ($type $suite) from the host's mirror"
	: >"$dir/update.log"
	mz_run "$dir/update.log" apt-get "${_mzpa[@]}" -q update ||
		die "apt-get update for $suite failed (see $dir/update.log); check network access to the host's Debian mirror"
}

# mz_qemu_version: MZ_QEMU's version, as "QEMU 10.0.2 (Debian
# 1:10.0.2+ds-2+deb13u1~bpo12+1)", from its --version.
mz_qemu_version() {
	local v
	v=$("$MZ_QEMU" --version 2>/dev/null | head -n 1) ||
		die "MZ_QEMU=$MZ_QEMU --version failed; is it a qemu-system-x86_64?"
	case "$v" in
	"QEMU emulator version "*) echo "QEMU ${v#QEMU emulator version }" ;;
	*) die "MZ_QEMU=$MZ_QEMU --version printed '$v', not a QEMU version" ;;
	esac
}

# mz_qemu_cxl_capable VERSION: VERSION, as mz_qemu_version prints it, is
# MZ_QEMU_CXL_MIN or newer.
mz_qemu_cxl_capable() {
	local major=${1#QEMU }
	major=${major%%.*}
	[[ "$major" =~ ^[0-9]+$ ]] && [ "$major" -ge "$MZ_QEMU_CXL_MIN" ]
}

# mz_qemu_cxl: the qemu-system-x86_64 that runs CXL guests: MZ_QEMU_CXL,
# else MZ_QEMU when it is MZ_QEMU_CXL_MIN or newer, else the one fetch-qemu.sh
# (make qemu) extracted.  False, saying why on stdout, when there is none.
mz_qemu_cxl() {
	local v
	if [ -n "$MZ_QEMU_CXL" ]; then
		echo "$MZ_QEMU_CXL"
		return 0
	fi
	if command -v "$MZ_QEMU" >/dev/null 2>&1; then
		v=$(mz_qemu_version)
		if mz_qemu_cxl_capable "$v"; then
			echo "$MZ_QEMU"
			return 0
		fi
	fi
	if [ -f "$MZ_QEMU_DIR/.mz-ready" ] && [ -x "$MZ_QEMU_DIR/bin/qemu-system-x86_64" ]; then
		echo "$MZ_QEMU_DIR/bin/qemu-system-x86_64"
		return 0
	fi
	echo "CXL memory needs QEMU $MZ_QEMU_CXL_MIN or newer (full CXL type-3 emulation), and MZ_QEMU is ${v:-$MZ_QEMU}: run 'make qemu', which fetches Debian's from $MZ_QEMU_SUITE beside it"
	return 1
}

# mz_deb_download PKG VERSION SIZE INSTEAD [SUITE STATE]: download
# Debian's binary package PKG=VERSION from SUITE (default $MZ_DEB_SUITE;
# the host's mirror, through the private apt state of mz_private_apt in
# STATE, default $MZ_APT_STATE) into $MZ_CACHE/dl, unless it is there
# already, and print its path.  SIZE says how large it is, INSTEAD what to
# do when the suite no longer serves it.  apt checks the package against
# the suite's signed index.
mz_deb_download() {
	local pkg=$1 ver=$2 size=$3 instead=$4 suite=${5:-$MZ_DEB_SUITE} state=${6:-$MZ_APT_STATE} deb
	local -a apt_opts=()
	# The file name: the epoch's colon is %3a, a tilde may be %7e.
	local fver=${ver/:/%3a}
	mkdir -p "$MZ_DL"
	deb=$(find "$MZ_DL" -maxdepth 1 \( -name "${pkg}_${fver}_*.deb" -o -name "${pkg}_${fver//\~/%7e}_*.deb" \) | head -n 1)
	if [ -z "$deb" ]; then
		need_tool apt-get apt
		mz_private_apt apt_opts "$state" deb "$suite"
		info "downloading $pkg=$ver ($size)"
		(cd "$MZ_DL" && apt-get "${apt_opts[@]}" -qq download "$pkg=$ver" >&2) ||
			die "$pkg $ver is not served by $suite any more; $instead"
		deb=$(find "$MZ_DL" -maxdepth 1 \( -name "${pkg}_${fver}_*.deb" -o -name "${pkg}_${fver//\~/%7e}_*.deb" \) | head -n 1)
		[ -n "$deb" ] || die "apt-get download of $pkg=$ver left no .deb in $MZ_DL"
	fi
	echo "$deb"
}

# mz_placeholder_email EMAIL: true when EMAIL is no one's address: the
# reserved example domains and top-level domains of RFC 2606 and RFC 6761
# (example.org, .example, .test, .invalid, .localhost, localhost).
mz_placeholder_email() {
	local domain=${1##*@}
	domain=${domain,,}
	domain=${domain%.}
	case "$domain" in
	example.com|example.net|example.org|*.example.com|*.example.net|*.example.org) return 0 ;;
	localhost|*.localhost|example|*.example|test|*.test|invalid|*.invalid) return 0 ;;
	esac
	return 1
}

# mz_patch_identity PATCH NAME EMAIL [signoff]: PATCH on stdout as 'git am'
# takes it, by NAME <EMAIL>: its From: header is "From: NAME <EMAIL>" when
# it has none or has the trees' (MZ_TREE_NAME, every exported patch's), and
# with "signoff", a "Signed-off-by: NAME <EMAIL>" closes the commit
# message's trailers when it has no Signed-off-by: at all.  A From: of
# anybody else (a patch taken from a real author) stays.
mz_patch_identity() {
	awk -v from="From: $2 <$3>" -v sob="Signed-off-by: $2 <$3>" -v signoff="${4:-}" \
		-v tree="From: $MZ_TREE_NAME <$MZ_TREE_EMAIL>" '
		NR == 1 { print; next }
		hdr == 0 && $0 == tree { next }
		hdr == 0 && /^From: / { hasfrom = 1 }
		hdr == 0 && /^$/ { if (!hasfrom) print from; hdr = 1 }
		hdr == 1 && /^Signed-off-by: / { hassob = 1 }
		hdr == 1 && $0 == "---" { if (signoff == "signoff" && !hassob) print sob; hdr = 2 }
		{ print }
	' "$1"
}

# mz_strip_tree_signoff FILE...: remove what git format-patch wrote of the
# trees' own identity (MZ_TREE_NAME, MZ_TREE_EMAIL) in FILEs, in place,
# but for the From: header, which 'git am' needs: any Signed-off-by: of it
# and the name heading a cover letter's shortlog.
mz_strip_tree_signoff() {
	local f me="$MZ_TREE_NAME <$MZ_TREE_EMAIL>"
	for f in "$@"; do
		awk -v me="$me" -v name="$MZ_TREE_NAME" '
			$0 == "Signed-off-by: " me { next }
			# The shortlog heading of a cover letter: "NAME (3):".
			index($0, name " (") == 1 && /\([0-9]+\):$/ { next }
			{ print }
		' "$f" >"$f.mz-strip" && mv "$f.mz-strip" "$f"
	done
}

# mz_apply_series TREE TAG DIR STAMP NAME LABEL EXPORT [BASETAG]: make
# branch "series" of the git tree TREE the base tag TAG plus one commit per
# patch that DIR/series lists (git am), with DIR/0000-cover-letter.patch's
# text as the branch description, and record STAMP (the patches' digest)
# and the head in TREE's git config.  When DIR has fixes
# (DIR/$MZ_FIXES/series), they come first, on branch $MZ_FIXES with their
# cover letter's text, and BASETAG (the tag the series applies on) marks
# their end; without them BASETAG is TAG.  When DIR has follow-up series
# (DIR/NAME/series for NAME in MZ_FOLLOWUPS), branch $MZ_FIRST_BRANCH ends
# after DIR's patches and takes that description, and "series" goes on
# with the follow-ups' patches in order: each follow-up's end branch
# (mz_followup_range: NAME, "series" for the last) takes its cover
# letter's description, and one without patches ends where it starts.
# Nothing happens while both still match.  A
# branch with commits that were never exported, or with uncommitted
# changes, is not rewritten unless MZ_FORCE=1.  Messages name the tree
# NAME and DIR LABEL, and EXPORT the command that keeps such commits.
mz_apply_series() {
	local tree=$1 tag=$2 dir=$3 stamp=$4 name=$5 label=$6 export=$7 basetag=${8:-}
	local head recorded p f b i n=0 fixes_end=0
	local -a plist=() starts=()
	head=$(git -C "$tree" rev-parse HEAD)
	if [ "$(git -C "$tree" config --get mz.stamp || true)" = "$stamp" ] &&
	   [ "$(git -C "$tree" config --get mz.head || true)" = "$head" ]; then
		info "$name is up to date with $label ($(git -C "$tree" rev-list --count "$tag"..HEAD) patches)"
		return
	fi
	recorded=$(git -C "$tree" config --get mz.head || true)
	if [ "$MZ_FORCE" != 1 ] && [ "$head" != "$(git -C "$tree" rev-parse "$tag")" ] &&
	   [ "$head" != "$recorded" ]; then
		die "$tree has commits that $label does not have; run '$export' to keep them or MZ_FORCE=1 to discard them"
	fi
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] || [ "$MZ_FORCE" = 1 ] ||
		die "$tree has uncommitted changes; commit and '$export' them, or MZ_FORCE=1 to discard them"
	# Commits made in the tree are the tree's, like those applied here:
	# export keeps that identity as the patches' neutral From:.
	git -C "$tree" config user.name "$MZ_TREE_NAME"
	git -C "$tree" config user.email "$MZ_TREE_EMAIL"
	git -C "$tree" checkout -q -f -B series "$tag"
	git -C "$tree" reset -q --hard "$tag"
	# The branches where the follow-ups start: MZ_FIRST_BRANCH and the end
	# of each but the last (stale ones go, made again below).
	for f in $MZ_FOLLOWUPS; do
		b=$(mz_followup_range "$f")
		starts+=("${b%%..*}")
	done
	for b in "${starts[@]}"; do
		git -C "$tree" branch -q -D "$b" 2>/dev/null || true
	done
	mz_stack_patches plist "$dir"
	for p in ${plist[@]+"${plist[@]}"}; do
		case "$p" in
		"$MZ_FIXES"/*) ;;
		*) [ -z "$basetag" ] || [ "$fixes_end" = 1 ] || { fixes_end=1; git -C "$tree" branch -q -f "$MZ_FIXES" HEAD; } ;;
		esac
		# A follow-up's patch: the branches where it and every follow-up
		# before it start, those not made yet, end here.
		if [[ "$p" == */* && "${p%%/*}" != "$MZ_FIXES" ]]; then
			i=0
			for f in $MZ_FOLLOWUPS; do
				[ -n "$(git -C "$tree" branch --list "${starts[i]}")" ] ||
					git -C "$tree" branch -q "${starts[i]}" HEAD
				i=$((i + 1))
				[ "$f" != "${p%%/*}" ] || break
			done
		fi
		mz_patch_identity "$dir/$p" "$MZ_TREE_NAME" "$MZ_TREE_EMAIL" |
			git -C "$tree" am -q --committer-date-is-author-date ||
			{ git -C "$tree" am --abort || true; die "patch $p does not apply to $tag; fix it in the tree and '$export'"; }
		n=$((n + 1))
	done
	# Keep each cover letter's text with its branch so export keeps it.
	if [ -n "$basetag" ]; then
		# Nothing but fixes: the whole branch is theirs.
		[ "$fixes_end" = 1 ] || git -C "$tree" branch -q -f "$MZ_FIXES" HEAD
		git -C "$tree" tag -f "$basetag" "$MZ_FIXES" >/dev/null
		mz_describe_branch "$tree" "$MZ_FIXES" "$dir/$MZ_FIXES/0000-cover-letter.patch"
	fi
	if [ -n "$(git -C "$tree" branch --list "$MZ_FIRST_BRANCH")" ]; then
		mz_describe_branch "$tree" "$MZ_FIRST_BRANCH" "$dir/0000-cover-letter.patch"
		# The follow-ups after the last with patches end at its end.
		for f in $MZ_FOLLOWUPS; do
			b=$(mz_followup_range "$f")
			[ -n "$(git -C "$tree" branch --list "${b%%..*}")" ] ||
				git -C "$tree" branch -q "${b%%..*}" HEAD
			mz_describe_branch "$tree" "${b#*..}" "$dir/$f/0000-cover-letter.patch"
		done
	else
		mz_describe_branch "$tree" series "$dir/0000-cover-letter.patch"
	fi
	git -C "$tree" config mz.stamp "$stamp"
	git -C "$tree" config mz.head "$(git -C "$tree" rev-parse HEAD)"
	info "applied $n patches on $tag in $tree"
}

# mz_describe_branch TREE BRANCH COVER: COVER's text (a cover letter git
# format-patch wrote) as the description of BRANCH, when COVER exists.
mz_describe_branch() {
	[ -f "$3" ] || return 0
	git -C "$1" config "branch.$2.description" "$(awk -f "$MZ_ROOT/harness/series/cover-letter.awk" "$3")"
}

# The runs of ndctl's suite, check-ndctl.sh's default and every run
# ndctl-compare.sh knows: base (MZ_BASE_TAG), the series with
# memmap_streaming=off, and with memmap_streaming=on.
MZ_NDCTL_RUNS=base,off,on
# mz_list_re LIST: an extended regexp matching a comma-separated list of
# words of the comma-separated LIST.
mz_list_re() {
	local w="(${1//,/|})"
	echo "^$w(,$w)*\$"
}
