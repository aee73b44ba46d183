#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # mz_opt and mz_flag set the options' variables
# fetch-qemu.sh: QEMU with full CXL type-3 emulation, beside the host's; prints its path.
#
#   fetch-qemu.sh [--version]       (make qemu)
#
# The packages of MZ_QEMU_PACKAGES (lib.sh), from MZ_QEMU_SUITE on the
# host's Debian mirror through a private apt state (apt checks them
# against the suite's signed index), extracted into MZ_QEMU_DIR, whose
# bin/qemu-system-x86_64 runs that QEMU with its own firmware and modules:
# the path to give vm.sh as MZ_QEMU.  Nothing is installed; run again, it
# prints the path and does nothing else.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_flag --version show_version "print the QEMU's version line instead of its path"
mz_parse "$@"
[ ${#MZ_OPERANDS[@]} -eq 0 ] || mz_arg_error "unexpected argument '${MZ_OPERANDS[0]}'"

dir=$MZ_QEMU_DIR
wrapper=$dir/bin/qemu-system-x86_64
want=$(printf '%s\n' "${MZ_QEMU_PACKAGES[@]}")
# The QEMU release of those packages ("1:10.0.2+ds-2..." -> 10.0.2).
release=${MZ_QEMU_PACKAGES[0]#*=}
release=${release#*:}
release=${release%%[+~-]*}
done_() {
	if [ "$show_version" = 1 ]; then "$wrapper" --version | head -n 1; else echo "$wrapper"; fi
	exit 0
}
[ -f "$dir/.mz-ready" ] && [ "$(cat "$dir/.mz-ready")" = "$want" ] && done_

need_tool dpkg-deb dpkg
need_tool ldd libc-bin
debs=()
for p in "${MZ_QEMU_PACKAGES[@]}"; do
	debs+=("$(mz_deb_download "${p%%=*}" "${p#*=}" "QEMU $release needs it" \
		"set MZ_QEMU to a QEMU $MZ_QEMU_CXL_MIN (or newer) qemu-system-x86_64 of your own" \
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
	die "QEMU $release needs libraries this host lacks: $missing; install Debian 12's qemu-system-x86 (harness/deps.sh), which needs the same ones"

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
