#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # the options' variables: mz_opt and mz_flag set them
# initramfs.sh: make the guest initramfs for a kernel build-kernel.sh built.
#
#   initramfs.sh [options] BUILD_DIR OUTPUT.cpio.gz
#
# It holds guest/ as /mz (guest/init as /init), ktap_helpers.sh of the
# kernel tree (MZ_KSRC, else BUILD_DIR/source), BUILD_DIR's modules
# (modroot, depmod'ed), static busybox, bash, kmod, ndctl, daxctl,
# mkfs.ext4 and chrt with their libraries, in a merged-/usr layout.
# OUTPUT is kept while a digest of its inputs (OUTPUT.stamp) is unchanged;
# delete it to have it made anew.  Prints OUTPUT.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_opt --ndctl ndctl_root '' ROOT '.' \
	"take ndctl, daxctl, cxl and their libraries from ROOT, build-ndctl.sh's install, instead of the host's"
mz_opt --depmod-conf depmod_conf '' FILE '.' \
	"put FILE in /etc/depmod.d and have depmod read only it (ndctl's nfit_test_depmod.conf)"
mz_opt --add 'adds[]' '' SRC:DST '^[^:]+:/.+$' \
	"more files: SRC, a file or a directory's contents, copied to the absolute DST (into it when it ends in /), executables with their libraries (repeatable)"
mz_parse "$@"
[ ${#MZ_OPERANDS[@]} -eq 2 ] || mz_arg_error "want BUILD_DIR OUTPUT.cpio.gz, not ${#MZ_OPERANDS[@]} arguments"
build=${MZ_OPERANDS[0]}
output=${MZ_OPERANDS[1]}

PATH=$PATH:/usr/sbin:/sbin
for t in busybox:busybox-static bash:bash kmod:kmod ndctl:ndctl daxctl:daxctl \
	mkfs.ext4:e2fsprogs chrt:util-linux depmod:kmod ldd:libc-bin cpio:cpio gzip:gzip; do
	need_tool "${t%%:*}" "${t#*:}"
done

[ -d "$build" ] || die "$build is not a directory (a build-kernel.sh output directory)"
relfile=$build/include/config/kernel.release
[ -f "$relfile" ] || die "$relfile missing: $build is not a built kernel (run harness/build/build-kernel.sh)"
krel=$(cat "$relfile")
moddir=
for d in "$build/modroot/lib/modules/$krel" "$build/modroot/usr/lib/modules/$krel"; do
	if [ -d "$d" ]; then moddir=$d; break; fi
done
[ -n "$moddir" ] || die "no modules for $krel under $build/modroot (run harness/build/build-kernel.sh)"
for a in ${adds[@]+"${adds[@]}"}; do
	[ -e "${a%%:*}" ] || die "--add $a: ${a%%:*} does not exist"
done
[ -z "$depmod_conf" ] || [ -f "$depmod_conf" ] || die "--depmod-conf $depmod_conf: no such file"
ndctl_libs=
if [ -n "$ndctl_root" ]; then
	for t in ndctl daxctl cxl; do
		[ -x "$ndctl_root/usr/bin/$t" ] ||
			die "--ndctl $ndctl_root: no usr/bin/$t in it (an install root of harness/build/build-ndctl.sh)"
	done
	ndctl_libs=$(find "$ndctl_root/usr/lib" -maxdepth 2 -name 'libndctl.so.*' -printf '%h\n' | head -n 1)
	[ -n "$ndctl_libs" ] || die "--ndctl $ndctl_root: no libndctl.so under usr/lib in it"
fi

ksrc=${MZ_KSRC:-}
if [ -z "$ksrc" ]; then
	# Kbuild leaves a "source" link to the tree in every O= directory.
	ksrc=$(readlink -f "$build/source" 2>/dev/null || true)
	[ -n "$ksrc" ] || die "$build/source missing: set MZ_KSRC to the kernel tree $build was built from"
fi
ktap=$ksrc/tools/testing/selftests/kselftest/ktap_helpers.sh
[ -f "$ktap" ] || die "$ktap missing: MZ_KSRC=$ksrc is not a kernel tree"

# hash_tree PATH: what identifies a file's or a directory's contents
# (names relative to PATH, modes, file digests), so that a copy elsewhere
# hashes the same.
hash_tree() {
	if [ -d "$1" ]; then
		(cd "$1" && find . -printf '%m %y %P\n' | LC_ALL=C sort &&
			find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
	else
		stat -c %a "$1" && sha256sum <"$1"
	fi
}
stamp=$({
	echo "$krel"
	hash_tree "$moddir"
	hash_tree "$MZ_ROOT/guest"
	sha256sum <"$ktap"
	sha256sum <"$0"
	for a in ${adds[@]+"${adds[@]}"}; do
		echo "--add ${a#*:}"
		hash_tree "${a%%:*}"
	done
	for t in busybox bash kmod ndctl daxctl mkfs.ext4 chrt; do
		sha256sum <"$(PATH=$PATH:/usr/sbin:/sbin command -v "$t")"
	done
	if [ -n "$depmod_conf" ]; then
		echo "--depmod-conf"
		sha256sum <"$depmod_conf"
	fi
	if [ -n "$ndctl_root" ]; then
		echo "--ndctl"
		hash_tree "$ndctl_root/usr/bin"
		hash_tree "$ndctl_libs"
	fi
} | sha256sum | cut -d' ' -f1)
if [ -f "$output" ] && [ "$(cat "$output.stamp" 2>/dev/null)" = "$stamp" ]; then
	info "reusing $output (its inputs are unchanged)"
	echo "$output"
	exit 0
fi

start=$(date +%s)
stage=$(mktemp -d "${TMPDIR:-/tmp}/mz-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/usr/{bin,sbin,lib,lib64} "$stage"/{dev,proc,sys,tmp,run,mnt,root,etc,mz,var/log}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$stage/$d"; done
chmod 1777 "$stage/tmp"

# copy_libs FILE: stage the shared libraries and interpreter FILE needs.
copy_libs() {
	local lib
	# ldd prints "name => /path (addr)" and "/interp (addr)"; a static
	# binary makes it fail, which is fine.
	while read -r lib; do
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage${lib%/*}"
		cp -L "$lib" "$stage$lib"
	done < <(ldd "$1" 2>/dev/null | sed -n 's|.*=> \(/[^ ]*\) .*|\1|p; s|^[[:space:]]*\(/[^ ]*\) (.*|\1|p')
}

# copy_bin HOSTPATH GUESTPATH: stage one executable and its libraries.
copy_bin() {
	mkdir -p "$stage$(dirname "$2")"
	cp -L "$1" "$stage$2"
	copy_libs "$1"
}

copy_bin "$(command -v busybox)" /usr/bin/busybox
copy_bin "$(command -v bash)" /usr/bin/bash
copy_bin "$(command -v kmod)" /usr/bin/kmod
if [ -n "$ndctl_root" ]; then
	# Its libraries first, where Debian's would go: copy_libs keeps them.
	mkdir -p "$stage${ndctl_libs#"$ndctl_root"}"
	cp -a "$ndctl_libs"/lib*.so* "$stage${ndctl_libs#"$ndctl_root"}/"
	copy_bin "$ndctl_root/usr/bin/ndctl" /usr/bin/ndctl
	copy_bin "$ndctl_root/usr/bin/daxctl" /usr/bin/daxctl
	copy_bin "$ndctl_root/usr/bin/cxl" /usr/bin/cxl
else
	copy_bin "$(command -v ndctl)" /usr/bin/ndctl
	copy_bin "$(command -v daxctl)" /usr/bin/daxctl
fi
copy_bin "$(command -v mkfs.ext4)" /usr/sbin/mkfs.ext4
# Busybox has no chrt; the threads group runs a SCHED_FIFO task with it.
copy_bin "$(command -v chrt)" /usr/bin/chrt
for t in modprobe insmod rmmod lsmod modinfo depmod; do
	ln -s ../bin/kmod "$stage/usr/sbin/$t"
done
[ ! -f /etc/mke2fs.conf ] || cp /etc/mke2fs.conf "$stage/etc/"
# Busybox applets for everything not staged above (busybox has no bash).
while read -r applet; do
	[ -e "$stage/$applet" ] || [ -L "$stage/$applet" ] || ln -s /usr/bin/busybox "$stage/$applet"
done < <("$stage/usr/bin/busybox" --list-full)

printf 'root:x:0:0:root:/root:/bin/bash\n' >"$stage/etc/passwd"
printf 'root:x:0:\n' >"$stage/etc/group"

mkdir -p "$stage/usr/lib/modules"
cp -a "$moddir" "$stage/usr/lib/modules/"
rm -f "$stage/usr/lib/modules/$krel/build" "$stage/usr/lib/modules/$krel/source"
depmod_args=()
if [ -n "$depmod_conf" ]; then
	mkdir -p "$stage/etc/depmod.d"
	cp "$depmod_conf" "$stage/etc/depmod.d/"
	depmod_args=(-C "$stage/etc/depmod.d")
fi
depmod -b "$stage" ${depmod_args[@]+"${depmod_args[@]}"} "$krel" || die "depmod failed for $krel"

cp -a "$MZ_ROOT/guest/." "$stage/mz/"
cp "$MZ_ROOT/guest/init" "$stage/init"
chmod 755 "$stage/init"
cp "$ktap" "$stage/mz/ktap_helpers.sh"

for a in ${adds[@]+"${adds[@]}"}; do
	src=${a%%:*} dst=${a#*:}
	# --remove-destination: a busybox applet link in the way (an absolute
	# link to /usr/bin/busybox) is replaced, not written through to the
	# host's busybox.
	if [ -d "$src" ]; then
		mkdir -p "$stage$dst"
		cp -a --remove-destination "$src/." "$stage$dst/"
		list=$(find "$src" -type f -perm -u+x)
	else
		case "$dst" in */) mkdir -p "$stage$dst" ;; *) mkdir -p "$stage$(dirname "$dst")" ;; esac
		cp -a --remove-destination "$src" "$stage$dst"
		list=$src
	fi
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		# Only ELF files: ldd would run other executables' interpreters.
		if [ "$(head -c 4 "$f" | tail -c 3)" = ELF ]; then copy_libs "$f"; fi
	done <<<"$list"
done

mkdir -p "$(dirname "$output")"
rm -f "$output.stamp"
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -6 >"$output.tmp" || die "making $output failed"
mv "$output.tmp" "$output"
echo "$stamp" >"$output.stamp"
info "made $output ($(du -k "$output" | cut -f1) KiB, kernel $krel) in $(mz_since "$start") s"
echo "$output"
