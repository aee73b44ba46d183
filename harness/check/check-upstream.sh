#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-upstream.sh [matrix.sh options]: test Part 2 as maintainers get it.
#
# patches/v11-fixes/ and patches/mm-unstable/ (upstream.sh export) applied
# to MZ_UPSTREAM_SRC, a tree with v11 queued (upstream.sh apply), built
# from the project's fragments as build/upstream-VARIANT, and the selftest
# matrix's no-parameter cell of each variant booted from it (matrix.sh
# --params none): with the backend (policy altmap: map=dev streams;
# device-private, p2pdma, hmem and map=mem do not) and without it.  Options go to
# matrix.sh after these, so --variants chooses the variants.
set -euo pipefail
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../lib.sh"

tree=$("$MZ_ROOT/harness/series/upstream.sh" apply)
export MZ_BUILD_KIND=upstream
info "matrix on $tree ($(git -C "$tree" log -1 --format='%h %s')); the selftests are Part 2's, built from the series tree"
exec "$MZ_ROOT/harness/matrix/matrix.sh" --params none \
	--summary "$MZ_RESULTS/check-upstream.json" --logs "$MZ_LOGS/matrix-upstream" "$@"
