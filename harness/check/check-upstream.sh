#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-upstream.sh: test Part 2 as maintainers get it, on upstream's tree.
#
#   check-upstream.sh [matrix.sh options]    (make check-upstream MATRIX_ARGS='...')
#
# The no-parameter cell of each variant (matrix.sh --params none) with
# MZ_BUILD_KIND=upstream: the kernels are MZ_UPSTREAM_SRC, a tree with v11
# queued, plus patches/v11-fixes/ and patches/mm-unstable/ (upstream.sh
# apply).  The options are matrix.sh's (matrix.sh --help says what each
# does; --variants chooses the variants) and go to it after these.
# docs/developing.md says more.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

# matrix.sh's options, from its own declarations: checked here, so that an
# error names this script, and passed on as given.
decls=$(MZ_LIST_OPTIONS=1 "$MZ_ROOT/harness/matrix/matrix.sh") || decls=
[ -n "$decls" ] || die "harness/matrix/matrix.sh did not list its options"
while IFS=$'\t' read -r o meta re; do
	v=${o#--} && v=o_${v//-/_}
	if [ "$meta" = - ]; then
		mz_flag "$o" "$v" 'as matrix.sh --help says'
	else
		mz_opt "$o" "$v" '' "$meta" "$re" 'as matrix.sh --help says'
	fi
done <<<"$decls"
mz_parse "$@"
[ ${#MZ_OPERANDS[@]} -eq 0 ] || mz_arg_error "unexpected argument '${MZ_OPERANDS[0]}'"

export MZ_BUILD_KIND=upstream
exec "$MZ_ROOT/harness/matrix/matrix.sh" --params none \
	--summary "$MZ_RESULTS/check-upstream.json" --logs "$MZ_LOGS/matrix-upstream" "$@"
