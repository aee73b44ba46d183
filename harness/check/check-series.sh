#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-series.sh: the checks a maintainer runs on the series itself.
#
#   check-series.sh [--build DIR] [CHECK]      (make check-series SERIES_CHECK=CHECK)
#
# CHECK is all (the default: every one, each in a process of its own,
# the status saying whether any failed) or one of
#   checkpatch  checkpatch.pl --strict on every patch of patches/, its fixes,
#               its follow-ups, the postings against v11 and patches/ndctl/
#   codegen     the template copies in mm/mm_init.o of the streaming
#               variant (harness/build/codegen-check.sh)
#   first       the C files the first series touches compile at its end,
#               and each follow-up applies there alone (git am) and the C
#               files it touches compile
#   bisect      every patch builds on its own (MZ_BISECT_FROM=REV starts
#               after REV, MZ_BISECT_TO=REV stops after REV)
#   sparse      no new sparse warnings in the C files the series touches
#   arm64       the objects the series touches compile for arm64
#   kunit-arm64 the KUnit test on arm64 (harness/build/kunit.sh arm64)
#   nozd        the libnvdimm objects compile without CONFIG_ZONE_DEVICE
# in the kernel tree of harness/series/tree.sh, builds in $MZ_BUILD/check-*.
# docs/matrix.md, "Other checks", says more.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

# The checks, in the order all runs them.
checks=(checkpatch codegen first bisect sparse arm64 kunit-arm64 nozd)
mz_opt --build prebuilt '' DIR . \
	"codegen reads DIR/mm/mm_init.o, a build-kernel.sh $MZ_STREAM_VARIANT output, instead of building one"
mz_parse "$@"
[ ${#MZ_OPERANDS[@]} -le 1 ] || mz_arg_error "want [--build DIR] [CHECK], not ${#MZ_OPERANDS[@]} arguments"
what=${MZ_OPERANDS[0]:-all}
[[ " all ${checks[*]} " == *" $what "* ]] || mz_arg_error "CHECK '$what': want all or one of ${checks[*]}"
[ -z "$prebuilt" ] || [ -f "$prebuilt/mm/mm_init.o" ] ||
	mz_arg_error "--build '$prebuilt': want a build-kernel.sh $MZ_STREAM_VARIANT output directory (no mm/mm_init.o in it)"

tree=$("$MZ_ROOT/harness/series/tree.sh" apply)
g() { git -C "$tree" "$@"; }
export ARCH=x86_64
cc=$(mz_cc)
jobs=$MZ_JOBS
mkdir -p "$MZ_LOGS"

# MZ_PATCHES: check the series in this directory instead of patches/.
checkpatch() {
	local p out bad=0 dir plist n sub
	dir=$(cd "$MZ_PATCHES" && pwd) || die "no patches directory $MZ_PATCHES"
	[ -f "$dir/series" ] || die "$dir/series missing"
	# The series and its follow-ups (MZ_FOLLOWUPS).
	mz_stack_patches plist "$dir"
	for p in ${plist[@]+"${plist[@]}"}; do
		# From inside the kernel tree; see mz_checkpatch in lib.sh.
		out=$(mz_checkpatch "$tree" "$dir/$p")
		if [ -n "$out" ]; then
			printf '%s:\n%s\n' "$p" "$out" >&2
			bad=1
		fi
	done
	n=${#plist[@]}
	# The postings against v11 (upstream.sh export), where exported.
	for sub in "$MZ_V11_FIXES" mm-unstable; do
		[ -f "$dir/$sub/series" ] || continue
		mz_series_patches plist "$dir/$sub"
		for p in ${plist[@]+"${plist[@]}"}; do
			out=$(mz_checkpatch "$tree" "$dir/$sub/$p")
			if [ -n "$out" ]; then
				printf '%s/%s:\n%s\n' "$sub" "$p" "$out" >&2
				bad=1
			fi
			n=$((n + 1))
		done
	done
	# The companion ndctl series, with MZ_NDCTL_CHECKPATCH's options.
	mz_series_patches plist "$dir/ndctl"
	for p in ${plist[@]+"${plist[@]}"}; do
		out=$(mz_checkpatch "$tree" "$dir/ndctl/$p" "${MZ_NDCTL_CHECKPATCH[@]}")
		if [ -n "$out" ]; then
			printf 'ndctl/%s:\n%s\n' "$p" "$out" >&2
			bad=1
		fi
	done
	[ "$bad" -eq 0 ] || die "checkpatch --strict reports the above"
	info "checkpatch --strict: clean on every patch ($n kernel, ${#plist[@]} ndctl)"
}

# A worktree that can move between commits without touching the main tree.
worktree() {
	local wt=$MZ_CHECK_TREE
	if [ ! -f "$wt/Makefile" ]; then
		g worktree prune
		g worktree add -q --detach "$wt" "$MZ_RELEASE_TAG" >&2
	fi
	echo "$wt"
}

# guest_config WT REV OUT LOG: WT checked out at REV, and OUT configured
# as the guest's kernel of the default variant (the tiny configurations,
# base.config and MZ_STREAM_VARIANT's fragment); LOG starts empty.
guest_config() {
	git -C "$1" checkout -q --detach "$2"
	: >"$4"
	mz_merge_config "$1" "$3" "$4" \
		kernel/configs/tiny.config arch/x86/configs/tiny.config \
		"$MZ_ROOT/Kconfig.fragments/base.config" "$MZ_ROOT/Kconfig.fragments/$MZ_STREAM_VARIANT.config"
}

bisect() {
	local wt out c n=0 subj from=${MZ_BISECT_FROM:-$MZ_RELEASE_TAG} to=${MZ_BISECT_TO:-series}
	g rev-parse -q --verify "$from^{commit}" >/dev/null ||
		die "MZ_BISECT_FROM=$from: no such revision in $tree"
	g merge-base --is-ancestor "$from" series ||
		die "MZ_BISECT_FROM=$from: not a commit of the series branch"
	g rev-parse -q --verify "$to^{commit}" >/dev/null ||
		die "MZ_BISECT_TO=$to: no such revision in $tree"
	g merge-base --is-ancestor "$to" series ||
		die "MZ_BISECT_TO=$to: not a commit of the series branch"
	[ -n "$(g rev-list "$from..$to")" ] ||
		die "MZ_BISECT_TO=$to: no patch after MZ_BISECT_FROM=$from"
	wt=$(worktree)
	out=$MZ_BUILD/check-bisect
	guest_config "$wt" "$MZ_RELEASE_TAG" "$out" "$MZ_LOGS/check-bisect.log"
	# From a revision past the base: that revision's own build first,
	# the ground the next patches build on.
	[ "$(g rev-parse "$from^{commit}")" = "$(g rev-parse "$MZ_RELEASE_TAG^{commit}")" ] || {
		info "building $from first ($(g log -1 --format=%s "$from"))"
		git -C "$wt" checkout -q --detach "$from"
		mz_run "$MZ_LOGS/check-bisect.log" make -C "$wt" O="$out" CC="$cc" -j"$jobs" \
			olddefconfig bzImage modules ||
			die "$from does not build; see $MZ_LOGS/check-bisect.log"
		n=$(g rev-list --count "$MZ_RELEASE_TAG..$from")
	}
	for c in $(g rev-list --reverse "$from..$to"); do
		n=$((n + 1))
		subj=$(g log -1 --format=%s "$c")
		info "building patch $n: $subj"
		git -C "$wt" checkout -q --detach "$c"
		mz_run "$MZ_LOGS/check-bisect.log" make -C "$wt" O="$out" CC="$cc" -j"$jobs" \
			olddefconfig bzImage modules ||
			die "patch $n ($subj) does not build; see $MZ_LOGS/check-bisect.log"
		if grep -q 'warning:' <(sed -n '/CC/!p' "$MZ_LOGS/check-bisect.log" | grep -E '^(mm|drivers|lib|arch|include)/' || true); then
			warn "patch $n: compiler warnings in $MZ_LOGS/check-bisect.log"
		fi
	done
	info "patches $(($(g rev-list --count "$MZ_RELEASE_TAG..$from") + 1)) to $n of $(g rev-list --count "$MZ_RELEASE_TAG..series") (the fixes first) build on their own"
}

sparse_check() {
	need_tool sparse sparse
	local wt out files=() f base_w series_w
	wt=$(worktree)
	out=$MZ_BUILD/check-sparse
	mapfile -t files < <(g diff --name-only "$MZ_RELEASE_TAG" series -- '*.c')
	objs=()
	for f in "${files[@]}"; do
		case "$f" in tools/*) continue ;; esac
		objs+=("${f%.c}.o")
	done
	run() {
		git -C "$wt" checkout -q --detach "$1"
		[ -f "$out/.config" ] || cp "$MZ_BUILD/series-$MZ_STREAM_VARIANT/.config" "$out/.config"
		: >"$MZ_LOGS/check-sparse-$2.log"
		mz_run "$MZ_LOGS/check-sparse-$2.log" make -C "$wt" O="$out" CC="$cc" -j"$jobs" \
			olddefconfig prepare || die "make prepare failed at $1; see $MZ_LOGS/check-sparse-$2.log"
		mz_run "$MZ_LOGS/check-sparse-$2.log" make -C "$wt" O="$out" CC="$cc" C=2 -j"$jobs" "${objs[@]}" ||
			die "make C=2 failed at $1; see $MZ_LOGS/check-sparse-$2.log"
		# Kbuild silently drops C= when scripts/checker-valid.sh rejects
		# the installed sparse (7.3 needs __typeof_unqual__ support).
		if grep -q 'is not available or not up to date' "$MZ_LOGS/check-sparse-$2.log"; then
			die "sparse $(sparse --version 2>/dev/null) is too old for this kernel (scripts/checker-valid.sh rejects it), so nothing was checked; install a sparse newer than 0.6.4"
		fi
		# Warnings without line numbers, so that moved code compares equal.
		grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$MZ_LOGS/check-sparse-$2.log" |
			sed 's/:[0-9]*:[0-9]*:/:/' | sort || true
	}
	mkdir -p "$out"
	base_w=$(run "$MZ_RELEASE_TAG" base)
	series_w=$(run series series)
	if new=$(comm -13 <(echo "$base_w") <(echo "$series_w")) && [ -n "$new" ]; then
		echo "$new" >&2
		die "sparse: new warnings in files the series touches (above)"
	fi
	info "sparse: no new warnings in ${#objs[@]} touched objects ($(grep -c . <<<"$series_w") warnings with the series, $(grep -c . <<<"$base_w") on the base)"
}

arm64() {
	need_tool aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
	local wt out objs=(mm/mm_init.o mm/memremap.o lib/test_hmm.o drivers/nvdimm/namespace_devs.o
		drivers/nvdimm/pmem.o drivers/dax/pmem.o)
	wt=$(worktree)
	out=$MZ_BUILD/check-arm64
	git -C "$wt" checkout -q --detach series
	: >"$MZ_LOGS/check-arm64.log"
	ARCH=arm64 mz_merge_config "$wt" "$out" "$MZ_LOGS/check-arm64.log" \
		"$MZ_ROOT/harness/check/check-fragments/arm64-objects.config"
	ARCH=arm64 "$MZ_ROOT/harness/build/verify-config.sh" "$out/.config" \
		"$MZ_ROOT/harness/check/check-fragments/arm64-objects.config" || die "arm64 config lost options"
	mz_run "$MZ_LOGS/check-arm64.log" make -C "$wt" O="$out" ARCH=arm64 \
		CROSS_COMPILE=aarch64-linux-gnu- -j"$jobs" W=1 "${objs[@]}" ||
		die "arm64 build of the touched objects failed; see $MZ_LOGS/check-arm64.log"
	if grep -E 'warning:' "$MZ_LOGS/check-arm64.log" | grep -E '(mm/mm_init|mm/memremap|test_hmm|namespace_devs|pmem)\.c'; then
		die "arm64: warnings in touched files (above)"
	fi
	info "arm64: ${objs[*]} build without warnings"
}

# first_build REV LOG WHAT OBJ...: the objects OBJ... built in check-first
# at REV of the check worktree, in the default guest configuration (LOG
# starts empty), with no compiler warning in their sources; WHAT names
# the tree in the errors.
first_build() {
	local rev=$1 log=$2 what=$3 wt out=$MZ_BUILD/check-first
	shift 3
	wt=$(worktree)
	guest_config "$wt" "$rev" "$out" "$log"
	mz_run "$log" make -C "$wt" O="$out" CC="$cc" -j"$jobs" olddefconfig "$@" ||
		die "$what does not build; see $log"
	if grep -E 'warning:' "$log" | grep -F -f <(printf '%s\n' "${@/%.o/.c}"); then
		die "first: compiler warnings in files $what touches (above)"
	fi
}

first() {
	local wt f p n
	local -a objs plist
	if ! g rev-parse -q --verify "refs/heads/$MZ_FIRST_BRANCH" >/dev/null; then
		info "first: no follow-up series, so the first series is the whole series (the kernel build covers it)"
		return 0
	fi
	mapfile -t objs < <(g diff --name-only "$MZ_BASE_TAG" "$MZ_FIRST_BRANCH" -- '*.c' ':!tools' | sed 's/\.c$/.o/')
	[ ${#objs[@]} -gt 0 ] || die "first: the first series touches no C file"
	info "first: building ${#objs[@]} objects at the end of the first series ($MZ_FIRST_BRANCH)"
	first_build "$MZ_FIRST_BRANCH" "$MZ_LOGS/check-first.log" "the first series alone ($MZ_FIRST_BRANCH)" "${objs[@]}"
	info "first: ${objs[*]} build at the end of the first series"

	# Each follow-up is sent on the first series alone (send-prep.sh),
	# not on the follow-ups the tree stacks under it: it applies there
	# with git am, and the C files it touches compile.
	wt=$(worktree)
	for f in $MZ_FOLLOWUPS; do
		mz_series_patches plist "$MZ_PATCHES/$f"
		[ ${#plist[@]} -gt 0 ] || continue
		git -C "$wt" checkout -q --detach "$MZ_FIRST_BRANCH"
		n=0
		for p in "${plist[@]}"; do
			GIT_AUTHOR_NAME=check GIT_AUTHOR_EMAIL=check@check.invalid \
				GIT_COMMITTER_NAME=check GIT_COMMITTER_EMAIL=check@check.invalid \
				mz_run "$MZ_LOGS/check-first.log" git -C "$wt" am -q "$MZ_PATCHES/$f/$p" || {
				git -C "$wt" am --abort >/dev/null 2>&1 || true
				die "patches/$f/$p does not apply (git am) on the first series alone ($MZ_FIRST_BRANCH), where it is sent; see $MZ_LOGS/check-first.log"
			}
			n=$((n + 1))
		done
		mapfile -t objs < <(git -C "$wt" diff --name-only "$MZ_FIRST_BRANCH" HEAD -- '*.c' ':!tools' | sed 's/\.c$/.o/')
		[ ${#objs[@]} -gt 0 ] || { info "first: patches/$f/ applies on the first series alone and touches no C file"; continue; }
		info "first: patches/$f/ ($n patches) applies on the first series alone; building ${#objs[@]} objects it touches there"
		first_build HEAD "$MZ_LOGS/check-first-$f.log" "patches/$f/ on the first series alone ($MZ_FIRST_BRANCH)" "${objs[@]}"
		info "first: ${objs[*]} build with patches/$f/ on the first series alone"
	done
}

nozd() {
	local wt out objs=(drivers/nvdimm/namespace_devs.o drivers/nvdimm/pmem.o mm/mm_init.o)
	wt=$(worktree)
	out=$MZ_BUILD/check-nozd
	git -C "$wt" checkout -q --detach series
	: >"$MZ_LOGS/check-nozd.log"
	mz_merge_config "$wt" "$out" "$MZ_LOGS/check-nozd.log" "$MZ_ROOT/harness/check/check-fragments/nozd-objects.config"
	"$MZ_ROOT/harness/build/verify-config.sh" "$out/.config" \
		"$MZ_ROOT/harness/check/check-fragments/nozd-objects.config" || die "!ZONE_DEVICE config lost options"
	mz_run "$MZ_LOGS/check-nozd.log" make -C "$wt" O="$out" CC="$cc" -j"$jobs" W=1 "${objs[@]}" ||
		die "!CONFIG_ZONE_DEVICE build of the touched objects failed; see $MZ_LOGS/check-nozd.log"
	info "!CONFIG_ZONE_DEVICE: ${objs[*]} build"
}

# The code the template copies compile to (harness/build/codegen-check.sh).
codegen() {
	local b
	b=${prebuilt:-$("$MZ_ROOT/harness/build/build-kernel.sh" "$MZ_STREAM_VARIANT")}
	"$MZ_ROOT/harness/build/codegen-check.sh" "$b/mm/mm_init.o"
}

case "$what" in
checkpatch) checkpatch ;;
first) first ;;
codegen) codegen ;;
nozd) nozd ;;
bisect) bisect ;;
sparse) sparse_check ;;
arm64) arm64 ;;
kunit-arm64) "$MZ_ROOT/harness/build/kunit.sh" arm64 ;;
all)
	# Every check runs, each in its own process (a failing one stops only
	# itself), and the status says whether any failed.
	failed=()
	for s in "${checks[@]}"; do
		info "=== $s"
		"$0" ${prebuilt:+--build "$prebuilt"} "$s" || failed+=("$s")
	done
	[ ${#failed[@]} -eq 0 ] || die "failed: ${failed[*]} (reasons above)"
	info "all series checks passed" ;;
esac
