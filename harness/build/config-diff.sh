#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# config-diff.sh: print the options two kernel .config files set differently.
#
#   config-diff.sh BASE_CONFIG PATCHED_CONFIG      (bench.sh runs it)
#
# One line each ("CONFIG_NUMA: base not set, patched y"), leaving out the
# symbols the series adds (the "+config NAME" lines of patches/*.patch)
# and what their absence means in the base.  Exit status 0 when nothing
# else differs, 1 when something does (bench.sh refuses to compare such
# kernels), 2 on usage errors.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

mz_operands 2 2 'BASE_CONFIG PATCHED_CONFIG' "$@"
set -- "${MZ_OPERANDS[@]}"
for f in "$1" "$2"; do
	[ -f "$f" ] || die "$f: no such file"
done

# The series' own symbols, as an awk-readable list.
own=$(mz_own_configs "$MZ_ROOT/patches" | tr '\n' ' ')

awk -v own="$own" '
	BEGIN { n = split(own, o, " "); for (i = 1; i <= n; i++) skip[o[i]] = 1 }
	# "CONFIG_X=v" and "# CONFIG_X is not set"; the rest are comments.
	function parse(line, arr,    k) {
		if (line ~ /^CONFIG_[A-Za-z0-9_]+=/) {
			k = line; sub(/=.*/, "", k); sub(/^[^=]*=/, "", line)
			arr[k] = line; all[k] = 1
		} else if (line ~ /^# CONFIG_[A-Za-z0-9_]+ is not set$/) {
			k = line; sub(/^# /, "", k); sub(/ is not set$/, "", k)
			arr[k] = "not set"; all[k] = 1
		}
	}
	FNR == NR { parse($0, a); next }
	{ parse($0, b) }
	END {
		bad = 0
		for (k in all) {
			if (k in skip) continue
			va = (k in a) ? a[k] : "not set"
			vb = (k in b) ? b[k] : "not set"
			if (va != vb) { printf "%s: base %s, patched %s\n", k, va, vb; bad = 1 }
		}
		exit bad
	}' "$1" "$2" | sort
exit "${PIPESTATUS[0]}"
