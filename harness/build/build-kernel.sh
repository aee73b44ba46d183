#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # mz_opt and mz_flag set the options' variables
# build-kernel.sh: build one guest kernel variant.
#
#   build-kernel.sh [--base|--first] VARIANT     (VARIANT: guest or Kconfig.fragments/VARIANT.config)
#
# The config is tinyconfig merged with Kconfig.fragments/base.config and,
# but for guest, the variant's fragment (merge_config.sh); the build stops
# naming any option of the fragments that Kconfig dropped.  Prints the
# output directory, $MZ_BUILD/KIND-VARIANT (KIND: series, base, first;
# with MZ_BUILD_KIND=upstream, upstream or upstream-base: MZ_UPSTREAM_SRC
# with patches/v11-fixes/ and patches/mm-unstable/, or alone).  A new one
# starts as a copy of a finished build of another variant of the same tree
# (seed-build.sh), so that only what the configuration changes is rebuilt.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_flag --base base "the base tree, $MZ_BASE_VERSION with the fixes of patches/fixes/, not the series"
mz_flag --first first "the tree at the end of the first series, without the follow-up series (${MZ_FOLLOWUPS// //, }/: tree.sh first)"
mz_parse "$@"
[ "$base$first" != 11 ] || mz_arg_error "--base --first: want one of them at most"
[ ${#MZ_OPERANDS[@]} -eq 1 ] ||
	mz_arg_error "want [--base|--first] VARIANT, not ${#MZ_OPERANDS[@]} arguments"
variant=${MZ_OPERANDS[0]}
variants() {
	find "$MZ_ROOT/Kconfig.fragments" -name '*.config' ! -name base.config -printf '%f\n' |
		sed 's/\.config$//' | sort | paste -sd ' '
}
if [ "$variant" != guest ] &&
	{ [ "$variant" = base ] || [[ ! "$variant" =~ ^[A-Za-z0-9_-]+$ ]] ||
		[ ! -f "$MZ_ROOT/Kconfig.fragments/$variant.config" ]; }; then
	mz_arg_error "VARIANT '$variant': want guest or a variant of Kconfig.fragments/ (guest $(variants))"
fi
kind=$MZ_BUILD_KIND
case "$kind" in
series)
	if [ "$base" = 1 ]; then kind=base; fi
	if [ "$first" = 1 ]; then kind=first; fi ;;
upstream) [ "$first" = 0 ] ||
	die "--first: MZ_BUILD_KIND=upstream builds MZ_UPSTREAM_SRC with patches/mm-unstable/ and the follow-ups together; the first series alone is built on $MZ_BASE_VERSION only (MZ_BUILD_KIND=series)"
	[ "$base" = 0 ] || kind=upstream-base ;;
*) die "MZ_BUILD_KIND=$kind: want series (the series on $MZ_BASE_VERSION) or upstream (MZ_UPSTREAM_SRC, harness/series/upstream.sh)" ;;
esac

frags=("$MZ_ROOT/Kconfig.fragments/base.config")
[ "$variant" = guest ] || frags+=("$MZ_ROOT/Kconfig.fragments/$variant.config")

for t in gcc make flex bison bc perl; do need_tool "$t" "$t"; done
[ -e /usr/include/libelf.h ] || die "libelf headers missing; run harness/deps.sh (Debian package libelf-dev)"
[ -e /usr/include/openssl/ssl.h ] || die "OpenSSL headers missing; run harness/deps.sh (Debian package libssl-dev)"

out=$MZ_BUILD/$kind-$variant
# One build per output directory at a time (make bench and make check may
# both ask for one); a second build of the same variant waits.
mz_lock out_lock "$out.lock" "another build of $kind-$variant"
case "$kind" in
base) src=$("$MZ_ROOT/harness/series/tree.sh" base) ;;
first) src=$("$MZ_ROOT/harness/series/tree.sh" first) ;;
upstream) src=$("$MZ_ROOT/harness/series/upstream.sh" apply) ;;
upstream-base) src=$("$MZ_ROOT/harness/series/upstream.sh" base) ;;
*) src=$("$MZ_ROOT/harness/series/tree.sh" apply) ;;
esac
# Hold the kernel tree shared while building: tree.sh waits before it
# rewrites the tree under a running build.
mz_lock tree_lock "$MZ_TREE.lock" "tree.sh to finish rewriting $MZ_TREE" -s
head=$(git -C "$src" rev-parse HEAD)
# A variant built for the first time starts from a finished build of
# another variant of the same tree (seed-build.sh): Kbuild then recompiles
# only what the configuration change touches.  Not from one being built.
if [ ! -e "$out/.config" ]; then
	for d in "$MZ_BUILD/$kind"-*/; do
		d=${d%/}
		if [ "$d" = "$out" ] || [ ! -f "$d/.mz-built" ] || [ "$(cat "$d/.mz-built")" != "$head" ]; then
			continue
		fi
		exec {seed_fd}>>"$d.lock"
		if flock -n -s "$seed_fd"; then
			"$MZ_ROOT/harness/build/seed-build.sh" "$d" "$out" || warn "seeding from $d failed; building from scratch"
			exec {seed_fd}>&-
			break
		fi
		exec {seed_fd}>&-
	done
fi
mkdir -p "$out" "$MZ_LOGS"
rm -f "$out/.mz-built"
log=$MZ_LOGS/build-$kind-$variant.log
: >"$log"

export ARCH=x86_64
cc=$(mz_cc)
[ "$cc" != gcc ] || warn "ccache not found: rebuilds will be slow ('make deps' installs it)"
# Reproducible-ish builds so ccache hits across trees.
export KBUILD_BUILD_USER=mz KBUILD_BUILD_HOST=mz KBUILD_BUILD_TIMESTAMP="2026-06-01"
jobs=$MZ_JOBS
# Base and patched kernels get different release strings (uname -r).
localversion=-mz-$kind

info "configuring $kind-$variant: tinyconfig + ${frags[*]##*/}"
mz_merge_config "$src" "$out" "$log" kernel/configs/tiny.config arch/x86/configs/tiny.config "${frags[@]}"

# Verify every option the fragments ask for.  In the base tree and at the
# first series' end, options that tree's Kconfig does not define (those the
# series or the follow-ups add) are not expected.
verify=("$MZ_ROOT/harness/build/verify-config.sh")
if [ "$base" = 1 ] || [ "$first" = 1 ]; then verify+=(--src "$src"); fi
"${verify[@]}" "$out/.config" "${frags[@]}"

start=$(date +%s)
info "building $kind-$variant with $jobs jobs (log: $log)"
progress() {
	local n=0 line
	while IFS= read -r line; do
		printf '%s\n' "$line" >>"$log"
		case "$line" in
		*" CC "*|*" LD "*|*" AR "*|*" AS "*) n=$((n + 1))
			if [ $((n % 500)) -eq 0 ]; then info "  $n objects... ($line)"; fi ;;
		esac
	done
}
mk=(make -C "$src" O="$out" CC="$cc" HOSTCC="$cc" LOCALVERSION="$localversion" -j"$jobs" bzImage modules)
# Not mz_run: the output goes through progress() on its way to the log.
printf '+ %s\n' "$(mz_quote "${mk[@]}")" >>"$log"
set +e
"${mk[@]}" 2>&1 | progress
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" -ne 0 ]; then
	printf '+ %s\n' "$(mz_quote "${mk[@]}")" >&2
	grep -E 'error:|Error [0-9]' "$log" | head -n 20 >&2 || true
	die "kernel build failed (make exit $rc); full log: $log"
fi
rm -rf "$out/modroot"
mz_run "$log" make -C "$src" O="$out" -s LOCALVERSION="$localversion" INSTALL_MOD_PATH="$out/modroot" \
	INSTALL_MOD_STRIP=1 DEPMOD=/sbin/depmod modules_install || die "modules_install failed; see $log"
# The tree this directory holds a finished build of (for seeding others).
echo "$head" >"$out/.mz-built"
info "built $kind-$variant in $(mz_since "$start") s: $out/arch/x86/boot/bzImage"
echo "$out"
