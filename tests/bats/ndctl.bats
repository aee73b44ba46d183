#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the harness's ndctl side: fetch-ndctl.sh, ndctl-tree.sh (apply,
# export), build-ndctl.sh, initramfs.sh --ndctl and matrix.sh --ndctl.
#
#   bats tests/bats/ndctl.bats
#
# The tree tests run on a small fake ndctl release (a tarball whose
# meson.build says version '81', verified against its own sha256) and a
# temporary copy of the project with a 2-patch series made against it.
# The build test builds the real series on the real ndctl 81 tarball that
# fetch-ndctl.sh keeps in the cache (make check's ndctl step fetches it
# before the bats step; without it that test is skipped) into a temporary
# cache (~20 s).  Nothing real is touched.

# shellcheck disable=SC2154 # $stderr is set by run --separate-stderr
bats_require_minimum_version 1.5.0
load common

setup_file() {
	export REAL_TARBALL
	# shellcheck disable=SC2016
	REAL_TARBALL=$(bash -c '. "$1/harness/lib.sh" &&
		echo "$MZ_CACHE/dl/ndctl_$MZ_NDCTL_VERSION.orig.tar.gz"' _ "$BATS_TEST_DIRNAME/../..")
}

setup() {
	mz_test_dirs
	export MZ_NDCTL_TREE=$MZ_CACHE/ndctl
	export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@localhost
	export GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@localhost
	unset MZ_FORCE MZ_NDCTL_TARBALL MZ_NDCTL_SHA256
}

# fake_release: a fake ndctl 81 source tarball (MZ_NDCTL_TARBALL, with its
# sha256 as MZ_NDCTL_SHA256) and a project copy in $P with two patches
# against it in patches/ndctl/.
fake_release() {
	mkdir -p "$T/rel/ndctl-81/ndctl"
	printf "project('ndctl', 'c',\n  version : '81',\n)\n" >"$T/rel/ndctl-81/meson.build"
	printf 'int list(void)\n{\n\treturn 0;\n}\n' >"$T/rel/ndctl-81/ndctl/list.c"
	tar -C "$T/rel" -czf "$T/ndctl_81.orig.tar.gz" ndctl-81
	export MZ_NDCTL_TARBALL=$T/ndctl_81.orig.tar.gz
	MZ_NDCTL_SHA256=$(sha256sum "$MZ_NDCTL_TARBALL" | cut -d' ' -f1)
	export MZ_NDCTL_SHA256
	cp -r "$T/rel/ndctl-81" "$T/gen"
	g() { git -C "$T/gen" "$@"; }
	g init -q -b main
	g add -A && g commit -q -m base
	printf 'int list(void)\n{\n\treturn 1;\n}\n' >"$T/gen/ndctl/list.c"
	g commit -q -am "ndctl/list: Return one"
	printf 'int streaming;\n' >"$T/gen/ndctl/streaming.c"
	g add -A && g commit -q -m "ndctl: Add streaming"
	P=$T/proj
	mkdir -p "$P/patches/ndctl"
	cp -r "$ROOT/harness" "$P/harness"
	g format-patch -q -o "$P/patches/ndctl" HEAD~2..HEAD
	(cd "$P/patches/ndctl" && ls -- *.patch) >"$P/patches/ndctl/series"
	git -C "$P" init -q -b main
	git -C "$P" add -A && git -C "$P" commit -q -m project
}

nd() { git -C "$MZ_NDCTL_TREE" "$@"; }

@test "fetch-ndctl.sh, ndctl-tree.sh, build-ndctl.sh: argument errors" {
	run -2 "$ROOT/harness/series/fetch-ndctl.sh" extra
	run -2 "$ROOT/harness/series/ndctl-tree.sh" bogus
	[ "$output" = "ndctl-tree.sh: error: SUBCOMMAND 'bogus': want apply or export (see --help)" ]
	run -2 "$ROOT/harness/series/ndctl-tree.sh" apply extra
	[ "$output" = "ndctl-tree.sh: error: want [apply|export], not 2 argument(s) (see --help)" ]
	run -2 "$ROOT/harness/build/build-ndctl.sh" extra
	run -2 "$ROOT/harness/peers/check-ndctl-base.sh" extra
}

@test "fetch-ndctl.sh: checksum mismatch is a one-line error, nothing extracted" {
	echo 'not a tarball' >"$T/ndctl_81.orig.tar.gz"
	MZ_NDCTL_TARBALL=$T/ndctl_81.orig.tar.gz run -1 "$ROOT/harness/series/fetch-ndctl.sh"
	[ "$(grep -c 'error:' <<<"$output")" -eq 1 ]
	grep -q '^fetch-ndctl.sh: error: checksum mismatch for .*ndctl_81.orig.tar.gz: got ' <<<"$output"
	[ ! -e "$MZ_CACHE/src/ndctl-81" ]
}

@test "fetch-ndctl.sh: a verified tarball that is not ndctl 81 is refused" {
	mkdir -p "$T/rel/ndctl-80"
	printf "project('ndctl', 'c',\n  version : '80',\n)\n" >"$T/rel/ndctl-80/meson.build"
	tar -C "$T/rel" -czf "$T/other.tar.gz" ndctl-80
	MZ_NDCTL_TARBALL=$T/other.tar.gz MZ_NDCTL_SHA256=$(sha256sum "$T/other.tar.gz" | cut -d' ' -f1) \
		run -1 "$ROOT/harness/series/fetch-ndctl.sh"
	[[ "$output" == *"is not ndctl 81's source"* ]]
	[ ! -e "$MZ_CACHE/src/ndctl-81" ]
}

@test "ndctl-tree.sh: the release as a tagged base, the series on it, then up to date" {
	fake_release
	run -0 --separate-stderr "$P/harness/series/ndctl-tree.sh" apply
	[ "$output" = "$MZ_NDCTL_TREE" ]
	[[ "$stderr" == *"applied 2 patches on ndctl-v81-base"* ]]
	[ "$(nd rev-list --count ndctl-v81-base..series)" -eq 2 ]
	[ "$(nd log -1 --format=%s)" = "ndctl: Add streaming" ]
	[ "$(cat "$MZ_NDCTL_TREE/ndctl/streaming.c")" = 'int streaming;' ]
	[ ! -e "$MZ_NDCTL_TREE/.mz-extracted" ]
	run -0 --separate-stderr "$P/harness/series/ndctl-tree.sh"
	[[ "$stderr" == *"up to date with patches/ndctl (2 patches)"* ]]
}

@test "ndctl-tree.sh export: a new commit becomes a patch with ndctl's prefix" {
	fake_release
	"$P/harness/series/ndctl-tree.sh" apply >/dev/null 2>&1
	printf 'int streaming = 1;\n' >"$MZ_NDCTL_TREE/ndctl/streaming.c"
	nd commit -q -am "ndctl: Stream by default"
	nd config branch.series.description "$(printf 'ndctl: a test series\n\nIts cover letter.')"
	run -0 --separate-stderr "$P/harness/series/ndctl-tree.sh" export
	[[ "$stderr" == *"exported 3 ndctl patches"* ]]
	[ "$(grep -vc '^#' "$P/patches/ndctl/series")" -eq 3 ]
	grep -q '^Subject: \[ndctl PATCH 3/3\] ndctl: Stream by default' "$P"/patches/ndctl/0003-*.patch
	grep -q '^Subject: \[ndctl PATCH 0/3\] ndctl: a test series' "$P/patches/ndctl/0000-cover-letter.patch"
	# The kernel series is not touched.
	[ -z "$(git -C "$P" status --porcelain -- patches/ ':!patches/ndctl')" ]
	# The exported series is what the tree has: apply finds it up to date.
	run -0 --separate-stderr "$P/harness/series/ndctl-tree.sh" apply
	[[ "$stderr" == *"up to date with patches/ndctl (3 patches)"* ]]
}

@test "ndctl-tree.sh: refuses to overwrite commits that were never exported" {
	fake_release
	"$P/harness/series/ndctl-tree.sh" apply >/dev/null 2>&1
	printf 'int streaming = 2;\n' >"$MZ_NDCTL_TREE/ndctl/streaming.c"
	nd commit -q -am "ndctl: not exported"
	# patches/ndctl changes (another patch): apply would rebuild the branch.
	git -C "$P" rm -q "$(ls "$P"/patches/ndctl/0002-*.patch)"
	sed -i '/^0002-/d' "$P/patches/ndctl/series"
	run -1 "$P/harness/series/ndctl-tree.sh" apply
	[[ "$output" == *"has commits that patches/ndctl does not have"* ]]
	[ "$(nd log -1 --format=%s)" = "ndctl: not exported" ]
	MZ_FORCE=1 run -0 "$P/harness/series/ndctl-tree.sh" apply
	[ "$(nd rev-list --count ndctl-v81-base..series)" -eq 1 ]
}

@test "build-ndctl.sh: the series builds on ndctl 81 into a root whose ndctl has the options; write-infoblock keeps the saved choice" {
	[ -f "$REAL_TARBALL" ] ||
		skip "no $REAL_TARBALL: run harness/series/fetch-ndctl.sh (make ndctl) first"
	export MZ_NDCTL_TARBALL=$REAL_TARBALL
	run -0 --separate-stderr "$ROOT/harness/build/build-ndctl.sh"
	R=$output
	[ "$R" = "$MZ_CACHE/build/ndctl-root" ]
	[ -x "$R/usr/bin/ndctl" ] && [ -x "$R/usr/bin/daxctl" ]
	lib=$(find "$R/usr/lib" -name libndctl.so.6 | head -n 1)
	[ -n "$lib" ]
	for s in ndctl_namespace_get_memmap_streaming ndctl_namespace_set_memmap_streaming \
		ndctl_memmap_streaming_name ndctl_memmap_streaming_from_name; do
		nm -D --defined-only "$lib" | grep -q " $s@@LIBNDCTL_29$" || { echo "no $s"; false; }
	done
	export LD_LIBRARY_PATH=${lib%/*}
	[ "$("$R/usr/bin/ndctl" --version)" = 81 ]
	run "$R/usr/bin/ndctl" create-namespace -h
	[[ "$output" == *"--memmap-streaming <default|on|off>"* ]]
	# ndctl's parser refuses a bad word before it looks at any device.
	run -129 "$R/usr/bin/ndctl" create-namespace --memmap-streaming=fast
	[[ "$output" == *"Error: invalid --memmap-streaming 'fast': want default, on or off"* ]]
	# write-infoblock saves a choice in the flags and keeps the one there
	# when it rewrites a block; read-infoblock shows it.  A bad word
	# writes nothing.
	local img=$T/infoblock.img sum
	truncate -s 64M "$img"
	ib() {
		"$R/usr/bin/ndctl" read-infoblock -j -i "$img" 2>/dev/null |
			sed -n 's/.*"\(flags\|memmap_streaming\)":"\{0,1\}\([a-z0-9]*\).*/\2/p' | paste -sd' '
	}
	run -0 "$R/usr/bin/ndctl" write-infoblock -o "$img" --memmap-streaming=on
	[ "$(ib)" = "1 on" ]
	run -0 "$R/usr/bin/ndctl" write-infoblock -o "$img" --mode=devdax
	[ "$(ib)" = "1 on" ]
	sum=$(sha256sum <"$img")
	run -129 "$R/usr/bin/ndctl" write-infoblock -o "$img" --memmap-streaming=fast
	[ "$(sha256sum <"$img")" = "$sum" ]
	run -0 "$R/usr/bin/ndctl" write-infoblock -o "$img" --memmap-streaming=off
	[ "$(ib)" = "2 off" ]
	# A block for another namespace (another parent uuid) keeps nothing.
	run -0 "$R/usr/bin/ndctl" write-infoblock -o "$img" \
		--parent-uuid=5d0b9c8e-6e2a-4b3f-9a51-1f2e3d4c5b6a
	[ "$(ib)" = "0 default" ]
	run -0 "$R/usr/bin/ndctl" write-infoblock -o "$img" --memmap-streaming=off
	run -0 "$R/usr/bin/ndctl" write-infoblock -o "$img" --memmap-streaming=default
	[ "$(ib)" = "0 default" ]
}

@test "initramfs.sh --ndctl: the root's ndctl, daxctl, cxl and libraries replace Debian's" {
	mkdir -p "$T/build/include/config" "$T/build/modroot/lib/modules/0.0.1-fake/kernel" \
		"$T/ksrc/tools/testing/selftests/kselftest" "$T/root/usr/bin" "$T/root/usr/lib/x86_64-linux-gnu"
	echo 0.0.1-fake >"$T/build/include/config/kernel.release"
	echo '# fake ktap helpers' >"$T/ksrc/tools/testing/selftests/kselftest/ktap_helpers.sh"
	export MZ_KSRC=$T/ksrc
	printf '#!/bin/sh\necho patched ndctl\n' >"$T/root/usr/bin/ndctl"
	printf '#!/bin/sh\necho patched daxctl\n' >"$T/root/usr/bin/daxctl"
	chmod +x "$T/root/usr/bin/ndctl" "$T/root/usr/bin/daxctl"
	# No cxl: build-ndctl.sh's root always has one, so a root without is refused.
	run -1 "$ROOT/harness/vm/initramfs.sh" --ndctl "$T/root" "$T/build" "$T/out.cpio.gz"
	[[ "$output" == *"--ndctl $T/root: no usr/bin/cxl in it"* ]]
	printf '#!/bin/sh\necho cxl\n' >"$T/root/usr/bin/cxl"
	chmod +x "$T/root/usr/bin/cxl"
	echo 'patched libndctl' >"$T/root/usr/lib/x86_64-linux-gnu/libndctl.so.6.99.0"
	ln -s libndctl.so.6.99.0 "$T/root/usr/lib/x86_64-linux-gnu/libndctl.so.6"
	run -1 "$ROOT/harness/vm/initramfs.sh" --ndctl "$T/build" "$T/build" "$T/out.cpio.gz"
	[[ "$output" == *"--ndctl $T/build: no usr/bin/ndctl in it"* ]]
	run -0 --separate-stderr "$ROOT/harness/vm/initramfs.sh" "$T/build" "$T/distro.cpio.gz"
	run -0 --separate-stderr "$ROOT/harness/vm/initramfs.sh" --ndctl "$T/root" "$T/build" "$T/out.cpio.gz"
	[ "$(cat "$T/out.cpio.gz.stamp")" != "$(cat "$T/distro.cpio.gz.stamp")" ]
	mkdir "$T/x" && (cd "$T/x" && zcat "$T/out.cpio.gz" | cpio -id --quiet)
	cmp "$T/x/usr/bin/ndctl" "$T/root/usr/bin/ndctl"
	cmp "$T/x/usr/bin/daxctl" "$T/root/usr/bin/daxctl"
	cmp "$T/x/usr/bin/cxl" "$T/root/usr/bin/cxl"
	[ "$(cat "$T/x/usr/lib/x86_64-linux-gnu/libndctl.so.6")" = 'patched libndctl' ]
	# Without --ndctl: Debian's.
	mkdir "$T/y" && (cd "$T/y" && zcat "$T/distro.cpio.gz" | cpio -id --quiet)
	cmp "$T/y/usr/bin/ndctl" "$(command -v ndctl)"
}

@test "matrix.sh --ndctl: a directory that is not an install root is refused" {
	run -2 "$ROOT/harness/matrix/matrix.sh" --ndctl "$T" --variants stream-y:none
	[[ "$output" == *"--ndctl '$T': want distro or an install root"*"(no usr/bin/ndctl in it)"* ]]
	run -2 "$ROOT/harness/matrix/matrix.sh" --ndctl
}
