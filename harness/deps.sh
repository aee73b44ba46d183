#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh: install every Debian package the project needs.
#
#   deps.sh      (make deps)
#
# Idempotent: asks dpkg-query first and does nothing when all packages are
# installed.  Otherwise runs 'apt-get update' once and installs the missing
# ones with 'apt-get install -y --no-install-recommends' (through sudo when
# not root).
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

mz_operands 0 0 'no arguments' "$@"

# Each one is used: qemu-system-x86 (vm.sh), ndctl daxctl busybox-static
# kmod e2fsprogs (initramfs.sh), bats shellcheck parallel (check.sh; GNU
# parallel runs bats --jobs), ccache flex
# bison libelf-dev libssl-dev bc gcc make perl (kernel builds), cpio
# (initramfs.sh), xz-utils (fetch-base.sh), rsync (headers for the
# selftests), jq (matrix.sh, bench.sh), git (tree.sh), sparse
# gcc-aarch64-linux-gnu python3-ply python3-git (check-series.sh;
# gcc-aarch64-linux-gnu and qemu-system-arm for kunit.sh too), meson
# ninja-build pkg-config and the -dev packages after them (build-ndctl.sh:
# ndctl's build dependencies), fio xfsprogs parted keyutils uuid-runtime
# dmsetup util-linux xxd trace-cmd (the guest tools ndctl's own tests use:
# check-ndctl.sh).
pkgs=(
	qemu-system-x86 ndctl daxctl bats shellcheck parallel ccache
	busybox-static flex bison libelf-dev libssl-dev bc cpio kmod xz-utils
	e2fsprogs rsync jq gcc make perl git
	sparse gcc-aarch64-linux-gnu python3-ply python3-git qemu-system-arm
	meson ninja-build pkg-config libkmod-dev libudev-dev uuid-dev libjson-c-dev
	libkeyutils-dev libiniparser-dev libtraceevent-dev libtracefs-dev
	fio xfsprogs parted keyutils uuid-runtime dmsetup util-linux xxd trace-cmd
)

need_tool dpkg-query dpkg
missing=()
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	info "all ${#pkgs[@]} packages are installed; nothing to do"
	exit 0
fi

need_tool apt-get apt
as_root=(env DEBIAN_FRONTEND=noninteractive)
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 ||
		die "not root and no sudo; as root run: apt-get install ${missing[*]}"
	as_root=(sudo "${as_root[@]}")
fi

info "installing ${#missing[@]} missing package(s): ${missing[*]}"
"${as_root[@]}" apt-get update ||
	die "apt-get update failed (see above); check the host's apt sources and network"
"${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}" ||
	die "apt-get install failed (see above); packages wanted: ${missing[*]}"
info "installed: ${missing[*]}"
