#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# install-lab-tests.sh: install the lab's memmap_init tests into a kselftest tree.
#
#   install-lab-tests.sh LABDIR OUTDIR      (build-selftests.sh runs it)
#
# LABDIR is guest/memmap_init, OUTDIR the kselftest tree build-selftests.sh
# installed: LABDIR's memmap_lib_lab.sh and the tests its "list" names go
# to OUTDIR/memmap_init next to the target's memmap_lib.sh, which they
# source, listed in that order after the target's tests in
# OUTDIR/kselftest-list.txt.  Fails, installing nothing, when the list
# names a file LABDIR lacks or one the target has too, or when LABDIR
# holds a test the list does not name (it would never run).
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 2 2 'LABDIR OUTDIR' "$@"
lab=${MZ_OPERANDS[0]} out=${MZ_OPERANDS[1]}
[ -f "$lab/list" ] || die "$lab/list: no such file"
if [ ! -f "$out/kselftest-list.txt" ] || [ ! -d "$out/memmap_init" ]; then
	die "$out is not a kselftest tree with memmap_init (build-selftests.sh makes one)"
fi
tests=()
while read -r t; do
	case "$t" in ''|'#'*) continue ;; esac
	[ -f "$lab/$t" ] || die "$lab/list names $t, which $lab does not have"
	[ ! -e "$out/memmap_init/$t" ] ||
		die "$t is in the kselftest target and in $lab: keep one"
	tests+=("$t")
done <"$lab/list"
for f in "$lab"/*.sh; do
	t=${f##*/}
	[ "$t" != memmap_lib_lab.sh ] || continue
	[[ " ${tests[*]} " == *" $t "* ]] ||
		die "$lab/$t is not in $lab/list, so it would never run: add it there"
done
install -m 644 "$lab/memmap_lib_lab.sh" "$out/memmap_init/"
for t in "${tests[@]}"; do
	install -m 755 "$lab/$t" "$out/memmap_init/$t"
	echo "memmap_init:$t" >>"$out/kselftest-list.txt"
done
info "installed ${#tests[@]} lab tests from $lab into $out/memmap_init"
