# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Loaded first by every test file here and in system/ ("load common",
# "load ../common"): ROOT, the repository, and H, its harness/; and
# mz_test_dirs, which each test's setup runs: T, the test's temporary
# directory, and MZ_CACHE and MZ_LOGS in it, so that no test reads or
# writes the user's cache.
export ROOT H
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
H=$ROOT/harness
mz_test_dirs() {
	T=$BATS_TEST_TMPDIR
	export MZ_CACHE=$T/cache
	export MZ_LOGS=$MZ_CACHE/logs
}
