#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-qemu.sh: QEMU with full CXL type-3 emulation for the guests,
# without touching the host's QEMU.  Prints the path of a
# qemu-system-x86_64 to give vm.sh as MZ_QEMU.
#
# Debian 12 ships QEMU 7.2, whose CXL emulation is partial; its
# bookworm-backports suite carries QEMU 10.0, built against bookworm's
# libraries.  This downloads the packages of MZ_QEMU_PACKAGES (lib.sh)
# from that suite on the host's Debian mirror through a private apt state
# (apt checks them against the suite's signed index), extracts them into
# MZ_QEMU_DIR and writes MZ_QEMU_DIR/bin/qemu-system-x86_64, which runs
# that QEMU with its own firmware (-L) and modules (QEMU_MODULE_DIR).
# Nothing is installed: the host's apt state, packages and QEMU stay as
# they are.  Run again, it prints the path and does nothing else.
#
#   fetch-qemu.sh            fetch (once) and print the path
#   fetch-qemu.sh --version  fetch (once) and print its version line instead
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

usage() {
	echo "usage: ${0##*/} [--version]   (prints the path of QEMU 10's qemu-system-x86_64)" >&2
	exit 2
}
show_version=0
case "${1:-}" in
"") ;;
--version) show_version=1 ;;
*) usage ;;
esac
[ $# -le 1 ] || usage

dir=$MZ_QEMU_DIR
wrapper=$dir/bin/qemu-system-x86_64
want=$(printf '%s\n' "${MZ_QEMU_PACKAGES[@]}")
done_() {
	if [ "$show_version" = 1 ]; then "$wrapper" --version | head -n 1; else echo "$wrapper"; fi
	exit 0
}
[ -f "$dir/.mz-ready" ] && [ "$(cat "$dir/.mz-ready")" = "$want" ] && done_

need_tool dpkg-deb dpkg
need_tool ldd libc-bin
debs=()
for p in "${MZ_QEMU_PACKAGES[@]}"; do
	debs+=("$(mz_deb_download "${p%%=*}" "${p#*=}" "QEMU 10 needs it" \
		"set MZ_QEMU to a QEMU 10 (or newer) qemu-system-x86_64 of your own" \
		"$MZ_QEMU_SUITE" "$MZ_APT_QEMU_STATE")")
done

tmp=$dir.new.$$
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
for d in "${debs[@]}"; do
	info "extracting ${d##*/}"
	dpkg-deb -x "$d" "$tmp"
done
bin=$tmp/usr/bin/qemu-system-x86_64
[ -x "$bin" ] || die "no usr/bin/qemu-system-x86_64 in the packages of MZ_QEMU_PACKAGES"
# Built for bookworm: every library it needs is one of bookworm's, which
# a host with QEMU 7.2 has (deps.sh installs it).
missing=$(ldd "$bin" | awk '/not found/ { print $1 }' | tr '\n' ' ')
[ -z "$missing" ] ||
	die "QEMU 10 needs libraries this host lacks: $missing; install Debian 12's qemu-system-x86 (harness/deps.sh), which needs the same ones"

# QEMU looks for its firmware in the host's directories, compiled in, after
# those of -L; for modules in QEMU_MODULE_DIR, then in the host's, whose
# modules belong to another build and are refused.  The guests need no
# module; "-device help", which loads them all, aborts.  Paths are those
# of the final directory.
q=$(printf %q "$dir")
cat >"$tmp/bin/qemu-system-x86_64" <<EOF
#!/bin/sh
# QEMU ${MZ_QEMU_PACKAGES[0]#*=} from Debian's $MZ_QEMU_SUITE, extracted by
# harness/vm/fetch-qemu.sh; its own firmware and modules, not the host's.
QEMU_MODULE_DIR=$q/usr/lib/x86_64-linux-gnu/qemu
export QEMU_MODULE_DIR
exec $q/usr/bin/qemu-system-x86_64 -L $q/usr/share/seabios -L $q/usr/share/qemu "\$@"
EOF
chmod +x "$tmp/bin/qemu-system-x86_64"
printf '%s\n' "$want" >"$tmp/.mz-ready"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
info "QEMU ready: $("$wrapper" --version | head -n 1) ($wrapper)"
done_
