#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Tests of harness/series/send-prep.sh (make send-prep, send-prep-fixes,
# send-prep-threads, send-prep-hotplug, send-prep-v11-fixes,
# send-prep-mm-unstable, send-prep-ndctl): the copy of patches/ (of the
# fixes in patches/fixes/ it applies on, of its follow-up series
# patches/threads/ and patches/hotplug/, of the mm tree's postings on a
# tree with v11, and of patches/ndctl/ on the ndctl tree of
# harness/series/ndctl-tree.sh) prepared for git send-email.
#
#   bats tests/bats/system/send.bats
#   MZ_PATCHES=/path/to/patches bats tests/bats/system/send.bats   # another series
#
# The sender is a throwaway identity in a temporary gitconfig
# (GIT_CONFIG_GLOBAL; the system gitconfig is ignored).  send-prep.sh runs
# once per file, with MZ_CACHE in the file's temporary directory; the
# tests then read its output.  Needs the kernel tree of harness/series/tree.sh
# (MZ_TREE, default ~/.cache/memmap-zone-device/linux), which 'make check'
# makes before the bats step; without it those tests are skipped.  About
# 2 minutes (a checkout of the kernel tree, checkpatch on every patch).

# shellcheck disable=SC2154 # $stderr is set by run --separate-stderr
bats_require_minimum_version 1.5.0

setup_file() {
	# One scratch clone for the file (SEND_CACHE): the tests that check
	# it out or run send-prep.sh in it take turns (bats --jobs).
	# shellcheck disable=SC2034 # read by bats
	BATS_NO_PARALLELIZE_WITHIN_FILE=true
	export ROOT H PATCHES TAG RELEASE SENDER_NAME SENDER_EMAIL SENDER_CONFIG SEND_CACHE SEND_OUT MZ_TREE
	ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
	H=$ROOT/harness
	PATCHES=${MZ_PATCHES:-$ROOT/patches}
	# shellcheck disable=SC2016
	TAG=$(bash -c '. "$1/lib.sh" && echo "$MZ_BASE_TAG"' _ "$H")
	# shellcheck disable=SC2016
	RELEASE=$(bash -c '. "$1/lib.sh" && echo "$MZ_RELEASE_TAG"' _ "$H")
	MZ_TREE=${MZ_TREE:-${MZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memmap-zone-device}/linux}
	SENDER_NAME="Ada Q. Sender"
	SENDER_EMAIL=ada.sender@kernel-mail.dev
	SENDER_CONFIG=$BATS_FILE_TMPDIR/sender.gitconfig
	# diff.noprefix: the prepared patches must still be -p1 patches.
	# gc.auto=0, maintenance.auto=false: the scratch clone has the kernel
	# tree's loose objects (git clone --local), and git's automatic gc
	# would pack them in the background, minutes of CPU for a clone
	# deleted at the end; what send-prep.sh does is the same.
	printf '[user]\n\tname = %s\n\temail = %s\n[diff]\n\tnoprefix = true\n' \
		"$SENDER_NAME" "$SENDER_EMAIL" >"$SENDER_CONFIG"
	printf '[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n' >>"$SENDER_CONFIG"
	SEND_CACHE=$BATS_FILE_TMPDIR/cache
	SEND_OUT=$BATS_FILE_TMPDIR/out
	if git -C "$MZ_TREE" rev-parse -q --verify "refs/tags/$TAG" >/dev/null 2>&1; then
		rc=0
		MZ_PATCHES=$PATCHES GIT_CONFIG_GLOBAL=$SENDER_CONFIG GIT_CONFIG_NOSYSTEM=1 MZ_CACHE=$SEND_CACHE \
			MZ_LOGS=$SEND_CACHE/logs "$H/series/send-prep.sh" "$SEND_OUT" \
			>"$BATS_FILE_TMPDIR/send.out" 2>"$BATS_FILE_TMPDIR/send.err" || rc=$?
		echo "$rc" >"$BATS_FILE_TMPDIR/send.rc"
	fi
}

setup() {
	T=$BATS_TEST_TMPDIR
	export MZ_CACHE=$T/cache MZ_LOGS=$T/cache/logs
	export GIT_CONFIG_GLOBAL=$SENDER_CONFIG GIT_CONFIG_NOSYSTEM=1
	unset MZ_PATCHES
}

# The run of setup_file: skip without a kernel tree, fail if it failed.
need_prepared() {
	[ -f "$BATS_FILE_TMPDIR/send.rc" ] ||
		skip "no kernel tree at $MZ_TREE (tag $TAG): run harness/series/tree.sh"
	if [ "$(cat "$BATS_FILE_TMPDIR/send.rc")" != 0 ]; then
		cat "$BATS_FILE_TMPDIR/send.err" >&2
		false
	fi
	mapfile -t orig < <(grep -vE '^[[:space:]]*(#|$)' "$PATCHES/series")
	prep=()
	for p in "$SEND_OUT"/*.patch; do
		[ "${p##*/}" = 0000-cover-letter.patch ] || prep+=("${p##*/}")
	done
	[ "${#orig[@]}" -gt 0 ]
	[ "${#prep[@]}" -eq "${#orig[@]}" ]
	[ -f "$SEND_OUT/0000-cover-letter.patch" ]
}

# headers FILE: the mail headers, continuation lines joined.
headers() { awk '/^$/ { exit } /^[ \t]/ { sub(/^[ \t]+/, ""); h = h " " $0; next } { if (h != "") print h; h = $0 } END { if (h != "") print h }' "$1"; }
# trailers FILE: the commit message's trailers, in order.
trailers() {
	git mailinfo "$T/msg" "$T/patch" <"$1" >/dev/null
	git interpret-trailers --parse <"$T/msg"
}
# ccs FILE: the Cc: header addresses, one a line.
ccs() { headers "$1" | sed -n 's/^Cc: //p'; }

@test "send-prep.sh: argument errors exit 2 and write nothing" {
	run -2 "$H/series/send-prep.sh"
	[ "$output" = "send-prep.sh: error: want [--fixes|--threads|--hotplug|--v11-fixes|--mm-unstable|--ndctl] OUTDIR (see --help)" ]
	run -2 "$H/series/send-prep.sh" a b
	run -2 "$H/series/send-prep.sh" --bogus
	[ "$output" = "send-prep.sh: error: unknown option '--bogus' (see --help)" ]
	run -2 "$H/series/send-prep.sh" --fixes --ndctl "$T/out"
	[ "$output" = "send-prep.sh: error: --fixes --ndctl: want one series at most (see --help)" ]
	run -2 "$H/series/send-prep.sh" --threads --hotplug "$T/out"
	[ "$output" = "send-prep.sh: error: --threads --hotplug: want one series at most (see --help)" ]
	run -0 "$H/series/send-prep.sh" --help
	[ "${lines[0]}" = "send-prep.sh: prepare a copy of a series for git send-email (nothing is sent)." ]
	touch "$T/file"
	run -2 --separate-stderr "$H/series/send-prep.sh" "$T/file"
	[[ "$stderr" == *"not a directory"* ]]
	mkdir "$T/busy" && echo keep >"$T/busy/notes.txt"
	run -2 --separate-stderr "$H/series/send-prep.sh" "$T/busy"
	[[ "$stderr" == *notes.txt* ]]
	[ "$(ls "$T/busy")" = notes.txt ]
	[ ! -e "$MZ_CACHE" ]
}

@test "send-prep.sh: no git identity: clear error, exit 2, OUTDIR not created" {
	: >"$T/empty.gitconfig"
	GIT_CONFIG_GLOBAL=$T/empty.gitconfig run -2 --separate-stderr "$H/series/send-prep.sh" "$T/out"
	[[ "$stderr" == *"no sender identity"* ]]
	[[ "$stderr" == *"git config --global user.name"* ]]
	[[ "$stderr" == *"git config --global user.email"* ]]
	[ ! -e "$T/out" ]
	[ ! -e "$MZ_CACHE" ]
	# A name without an address is no identity either.
	printf '[user]\n\tname = Half Set\n' >"$T/half.gitconfig"
	GIT_CONFIG_GLOBAL=$T/half.gitconfig run -2 --separate-stderr "$H/series/send-prep.sh" "$T/out"
	[[ "$stderr" == *"user.email"* ]]
	[ ! -e "$T/out" ]
	# Nor is a placeholder: the sign-off must be a real sender's.
	for e in memmap-init@example.org dev@example.com x@users.noreply.seed.example \
		root@localhost me@host.localhost a@b.test a@B.Invalid; do
		printf '[user]\n\tname = Place Holder\n\temail = %s\n' "$e" >"$T/ph.gitconfig"
		GIT_CONFIG_GLOBAL=$T/ph.gitconfig run -2 --separate-stderr "$H/series/send-prep.sh" "$T/out"
		[[ "$stderr" == *"a placeholder"* ]] || { echo "$e: $stderr"; false; }
		[ ! -e "$T/out" ]
	done
	[ ! -e "$MZ_CACHE" ]
}

@test "prepared copy: the sender is author and only sign-off of every patch, author dates kept" {
	need_prepared
	local i o p
	for i in "${!orig[@]}"; do
		o=$PATCHES/${orig[$i]} p=$SEND_OUT/${prep[$i]}
		git mailinfo "$T/msg" "$T/patch" <"$p" >"$T/info"
		grep -qx "Author: $SENDER_NAME" "$T/info" || { echo "${prep[$i]}: $(grep Author: "$T/info")"; false; }
		grep -qx "Email: $SENDER_EMAIL" "$T/info" || { echo "${prep[$i]}: $(grep Email: "$T/info")"; false; }
		[ "$(trailers "$p" | grep -c '^Signed-off-by:')" -eq 1 ] || { echo "${prep[$i]}: sign-offs:"; trailers "$p"; false; }
		trailers "$p" | grep -qx "Signed-off-by: $SENDER_NAME <$SENDER_EMAIL>"
		[ "$(headers "$p" | grep '^Date:')" = "$(headers "$o" | grep '^Date:')" ]
	done
}

@test "prepared copy: every other trailer survives, in order" {
	need_prepared
	local i n=0 a b
	for i in "${!orig[@]}"; do
		a=$(trailers "$PATCHES/${orig[$i]}")
		b=$(trailers "$SEND_OUT/${prep[$i]}" | grep -vx "Signed-off-by: $SENDER_NAME <$SENDER_EMAIL>" || true)
		[ "$a" = "$b" ] || { diff <(echo "$a") <(echo "$b") || true; echo "in ${prep[$i]}"; false; }
		n=$((n + $(grep -c . <<<"$a" || true)))
	done
	# The series has such trailers (Suggested-by:, Link:, ...), so this
	# checked something.
	[ "$n" -gt 0 ]
}

@test "prepared copy: Cc: headers from get_maintainer.pl, the cover letter has their union" {
	need_prepared
	local p subj files cc
	ccs "$SEND_OUT/0000-cover-letter.patch" >"$T/cover-cc"
	for p in "${prep[@]}"; do
		ccs "$SEND_OUT/$p" >"$T/cc"
		[ -s "$T/cc" ] || { echo "$p: no Cc:"; false; }
		subj=$(headers "$SEND_OUT/$p" | sed -n 's/^Subject: \[[^]]*\] //p')
		files=$(sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$SEND_OUT/$p")
		want=()
		case "$subj" in mm:*|mm/*) want+=(linux-mm@kvack.org) ;; esac
		case "$subj" in x86*) want+=(x86@kernel.org) ;; esac
		case "$subj" in libnvdimm*|nvdimm*) want+=(nvdimm@lists.linux.dev) ;; esac
		case "$subj" in selftests*) want+=(linux-kselftest@vger.kernel.org) ;; esac
		if grep -q '^include/trace/' <<<"$files"; then want+=(linux-trace-kernel@vger.kernel.org); fi
		for cc in "${want[@]}"; do
			grep -qxF "$cc" "$T/cc" || { echo "$p ($subj): no Cc: $cc"; cat "$T/cc"; false; }
		done
		while read -r cc; do
			grep -qxF "$cc" "$T/cover-cc" || { echo "cover letter lacks Cc: $cc of $p"; false; }
		done <"$T/cc"
		if grep -F "$SENDER_EMAIL" "$T/cc"; then echo "$p: the sender is Cc'd"; false; fi
	done
	# linux-mm is on the cover letter, and the printed command sends to it.
	grep -qxF linux-mm@kvack.org "$T/cover-cc"
	grep -q "^git send-email --to=linux-mm@kvack.org .*$SEND_OUT/\*\.patch$" "$BATS_FILE_TMPDIR/send.out"
}

@test "prepared copy: the cover letter's subject and version, numbered and threaded" {
	need_prepared
	local subj prefix n=${#prep[@]} i id
	subj=$(headers "$PATCHES/0000-cover-letter.patch" | grep '^Subject:')
	[ "$(headers "$SEND_OUT/0000-cover-letter.patch" | grep '^Subject:')" = "$subj" ]
	prefix=$(sed 's/^Subject: \[\(.*\) 0*0\/.*/\1/' <<<"$subj")
	[[ "$prefix" == PATCH* ]]
	id=$(headers "$SEND_OUT/0000-cover-letter.patch" | sed -n 's/^Message-I[dD]: //p')
	[ -n "$id" ]
	# The body of the cover letter is patches/'s.
	diff <("$H/series/cover-letter.sh" extract "$PATCHES/0000-cover-letter.patch") \
		<("$H/series/cover-letter.sh" extract "$SEND_OUT/0000-cover-letter.patch")
	grep -q "^$SENDER_NAME ($n):\$" "$SEND_OUT/0000-cover-letter.patch"
	for i in "${!prep[@]}"; do
		headers "$SEND_OUT/${prep[$i]}" | grep -q "^Subject: \[$prefix 0*$((i + 1))/$n\] " ||
			{ echo "${prep[$i]}: $(headers "$SEND_OUT/${prep[$i]}" | grep Subject:)"; false; }
		headers "$SEND_OUT/${prep[$i]}" | grep -qxF "In-Reply-To: $id"
	done
}

@test "prepared copy: git am applies it cleanly on the base tag and gives the series' tree" {
	need_prepared
	local wt=$SEND_CACHE/linux-send p
	# The sender's diff.noprefix is set: format-patch must not follow it.
	grep -q '^diff --git a/' "$SEND_OUT/${prep[0]}"
	git -C "$wt" checkout -q -f --detach "$TAG"
	# All in one git am, in order (its "Applying:" lines, on stdout, name
	# the patch a failure or a warning came with).
	run --separate-stderr git -C "$wt" am "${prep[@]/#/$SEND_OUT/}"
	[ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; git -C "$wt" am --abort; false; }
	[[ "$stderr" != *warning* ]] || { echo "$output"; echo "$stderr"; false; }
	[ "$(git -C "$wt" rev-list --count "$TAG..HEAD")" -eq "${#prep[@]}" ]
	# The same files as patches/ applied (send-prep.sh's branch mz-send).
	[ "$(git -C "$wt" rev-parse 'HEAD^{tree}')" = "$(git -C "$wt" rev-parse 'mz-send^{tree}')" ]
	[ "$(git -C "$wt" log --format='%an <%ae>' "$TAG..HEAD" | sort -u)" = "$SENDER_NAME <$SENDER_EMAIL>" ]
}

@test "send-prep.sh: checkpatch complaints stop it and OUTDIR is not written" {
	need_prepared
	# patches/ with its first patch only, one added line given a trailing blank.
	mkdir "$T/patches"
	cp "$PATCHES/0000-cover-letter.patch" "$T/patches/"
	awk '/^diff --git/ { d = 1 } d && !done && /^\+[^+]/ { $0 = $0 " "; done = 1 } { print }' \
		"$PATCHES/${orig[0]}" >"$T/patches/${orig[0]}"
	run -1 cmp -s "$PATCHES/${orig[0]}" "$T/patches/${orig[0]}"
	echo "${orig[0]}" >"$T/patches/series"
	MZ_PATCHES=$T/patches MZ_CACHE=$SEND_CACHE run -1 --separate-stderr "$H/series/send-prep.sh" "$T/out"
	[[ "$stderr" == *"trailing whitespace"* ]]
	[[ "$stderr" == *"checkpatch --strict reports"* ]]
	[ ! -e "$T/out" ]
}

@test "send-prep.sh --ndctl: the ndctl series as the sender, to nvdimm, libnvdimm maintainers Cc'd" {
	local nd n p
	# The kernel tree's get_maintainer.pl and the ndctl tree it applies to.
	nd=${MZ_NDCTL_TREE:-$(dirname "$MZ_TREE")/ndctl}
	git -C "$MZ_TREE" rev-parse -q --verify "refs/tags/$TAG" >/dev/null 2>&1 ||
		skip "no kernel tree at $MZ_TREE (tag $TAG): run harness/series/tree.sh"
	git -C "$nd" rev-parse -q --verify refs/tags/ndctl-v81-base >/dev/null 2>&1 ||
		skip "no ndctl tree at $nd: run harness/series/ndctl-tree.sh"
	n=$(grep -cvE '^[[:space:]]*(#|$)' "$PATCHES/ndctl/series")
	MZ_NDCTL_TREE=$nd MZ_TREE=$MZ_TREE run -0 --separate-stderr "$H/series/send-prep.sh" --ndctl "$T/nd"
	[ "$output" = "git send-email --to=nvdimm@lists.linux.dev $T/nd/*.patch" ]
	[ "$(find "$T/nd" -name '*.patch' | wc -l)" -eq $((n + 1)) ]
	headers "$T/nd/0000-cover-letter.patch" | grep -q "^Subject: \[ndctl PATCH 0/$n\] "
	ccs "$T/nd/0000-cover-letter.patch" >"$T/cover-cc"
	grep -qxF nvdimm@lists.linux.dev "$T/cover-cc"
	grep -qxF 'Vishal Verma <vishal.l.verma@intel.com>' "$T/cover-cc"
	if grep -qxF linux-kernel@vger.kernel.org "$T/cover-cc"; then false; fi
	for p in "$T"/nd/000[1-9]-*.patch; do
		headers "$p" | tr -d '"' | grep -qxF "From: $SENDER_NAME <$SENDER_EMAIL>"
		headers "$p" | grep -q "^Subject: \[ndctl PATCH [1-9]/$n\] "
		[ "$(trailers "$p" | grep '^Signed-off-by:')" = "Signed-off-by: $SENDER_NAME <$SENDER_EMAIL>" ]
		diff <(ccs "$p") "$T/cover-cc"
	done
	# The same tree as patches/ndctl/ applied to the base.
	[ "$(git -C "$MZ_CACHE/ndctl-send" rev-parse 'mz-send^{tree}')" = "$(git -C "$nd" rev-parse 'series^{tree}')" ]
}

@test "send-prep.sh --threads: the follow-up series alone, on top of patches/ named in its cover letter" {
	need_prepared
	local n npre p th=$PATCHES/threads
	[ -f "$th/series" ] || { echo "no $th/series: the follow-up series is missing"; false; }
	n=$(grep -cvE '^[[:space:]]*(#|$)' "$th/series")
	npre=$((${#orig[@]} + $(grep -cvE '^[[:space:]]*(#|$)' "$PATCHES/fixes/series")))
	MZ_PATCHES=$PATCHES MZ_CACHE=$SEND_CACHE run -0 --separate-stderr "$H/series/send-prep.sh" --threads "$T/th"
	[[ "$stderr" == *"applied the $npre patches it applies on (${PATCHES#"$ROOT/"}/fixes/ ${PATCHES#"$ROOT/"}/; not sent)"* ]]
	[ "$(find "$T/th" -name '*.patch' | wc -l)" -eq $((n + 1)) ]
	headers "$T/th/0000-cover-letter.patch" | grep '^Subject:' |
		grep -qF "$(headers "$th/0000-cover-letter.patch" | grep '^Subject:')"
	# The release and every patch of patches/fixes/ and patches/ it needs,
	# for git am and b4.
	grep -qx "base-commit: $(git -C "$MZ_TREE" rev-parse "$RELEASE^{commit}")" "$T/th/0000-cover-letter.patch"
	[ "$(grep -c '^prerequisite-patch-id: ' "$T/th/0000-cover-letter.patch")" -eq "$npre" ]
	for p in "$T"/th/000[1-9]-*.patch "$T"/th/00[1-9][0-9]-*.patch; do
		[ -e "$p" ] || continue
		headers "$p" | tr -d '"' | grep -qxF "From: $SENDER_NAME <$SENDER_EMAIL>"
		[ "$(trailers "$p" | grep '^Signed-off-by:')" = "Signed-off-by: $SENDER_NAME <$SENDER_EMAIL>" ]
	done
	# Both series applied give the kernel tree's branch threads, the end
	# of the follow-up (the tree stacks patches/hotplug/ after it).
	[ "$(git -C "$SEND_CACHE/linux-send" rev-parse 'mz-send^{tree}')" = "$(git -C "$MZ_TREE" rev-parse 'threads^{tree}')" ]
}

@test "send-prep.sh --hotplug: the follow-up alone, on the fixes and patches/ (not patches/threads/), which are not sent" {
	need_prepared
	local n npre hp=$PATCHES/hotplug p
	[ -f "$hp/series" ] || skip "no $hp/series: no hotplug series to send"
	n=$(grep -cvE '^[[:space:]]*(#|$)' "$hp/series")
	npre=$((${#orig[@]} + $(grep -cvE '^[[:space:]]*(#|$)' "$PATCHES/fixes/series")))
	MZ_PATCHES=$PATCHES MZ_CACHE=$SEND_CACHE run -0 --separate-stderr "$H/series/send-prep.sh" --hotplug "$T/hp"
	[[ "$stderr" == *"applied the $npre patches it applies on (${PATCHES#"$ROOT/"}/fixes/ ${PATCHES#"$ROOT/"}/; not sent)"* ]]
	[ "$(find "$T/hp" -name '*.patch' | wc -l)" -eq $((n + 1)) ]
	headers "$T/hp/0000-cover-letter.patch" | grep '^Subject:' |
		grep -qF "$(headers "$hp/0000-cover-letter.patch" | grep '^Subject:')"
	grep -qx "base-commit: $(git -C "$MZ_TREE" rev-parse "$RELEASE^{commit}")" "$T/hp/0000-cover-letter.patch"
	[ "$(grep -c '^prerequisite-patch-id: ' "$T/hp/0000-cover-letter.patch")" -eq "$npre" ]
	for p in "$T"/hp/000[1-9]-*.patch "$T"/hp/00[1-9][0-9]-*.patch; do
		[ -e "$p" ] || continue
		headers "$p" | tr -d '"' | grep -qxF "From: $SENDER_NAME <$SENDER_EMAIL>"
		[ "$(trailers "$p" | grep '^Signed-off-by:')" = "Signed-off-by: $SENDER_NAME <$SENDER_EMAIL>" ]
	done
	# It goes on the first series' end, and changes there what it
	# changes on threads' end in the tree.
	[ "$(git -C "$SEND_CACHE/linux-send" rev-parse "mz-send~$n^{tree}")" = "$(git -C "$MZ_TREE" rev-parse 'opt-in^{tree}')" ]
	[ "$(git -C "$SEND_CACHE/linux-send" diff -U0 "mz-send~$n" mz-send | grep -E '^[-+]' | grep -vE '^(\+\+\+|---) ')" = \
		"$(git -C "$MZ_TREE" diff -U0 threads series | grep -E '^[-+]' | grep -vE '^(\+\+\+|---) ')" ]
}

@test "prepared copy: the series names the release and each fix it applies on, which are not sent" {
	need_prepared
	local nfix
	nfix=$(grep -cvE '^[[:space:]]*(#|$)' "$PATCHES/fixes/series")
	[ "$nfix" -gt 0 ]
	grep -qF "applied the $nfix patches it applies on (${PATCHES#"$ROOT/"}/fixes/; not sent)" "$BATS_FILE_TMPDIR/send.err"
	grep -qx "base-commit: $(git -C "$MZ_TREE" rev-parse "$RELEASE^{commit}")" "$SEND_OUT/0000-cover-letter.patch"
	[ "$(grep -c '^prerequisite-patch-id: ' "$SEND_OUT/0000-cover-letter.patch")" -eq "$nfix" ]
	# Only the series is sent.
	if grep -l '^Subject: .*lib/test_hmm: ' "$SEND_OUT"/*.patch | grep -v memmap_streaming; then false; fi
}

@test "send-prep.sh --fixes: the fixes alone, on the release, with their own cover letter and prefix" {
	need_prepared
	local n p
	n=$(grep -cvE '^[[:space:]]*(#|$)' "$PATCHES/fixes/series")
	MZ_PATCHES=$PATCHES MZ_CACHE=$SEND_CACHE run -0 --separate-stderr "$H/series/send-prep.sh" --fixes "$T/fx"
	[ "$(find "$T/fx" -name '*.patch' | wc -l)" -eq $((n + 1)) ]
	# A long subject is folded; compare it unfolded.
	headers "$T/fx/0000-cover-letter.patch" |
		grep -qxF "Subject: [PATCH 0/$n] $(headers "$PATCHES/fixes/0000-cover-letter.patch" | sed -n 's/^Subject: \[PATCH 0\/[0-9]*\] //p')"
	if grep -q '^base-commit: ' "$T/fx/0000-cover-letter.patch"; then false; fi
	for p in "$T"/fx/000[1-9]-*.patch; do
		headers "$p" | tr -d '"' | grep -qxF "From: $SENDER_NAME <$SENDER_EMAIL>"
		[ "$(trailers "$p" | grep '^Signed-off-by:')" = "Signed-off-by: $SENDER_NAME <$SENDER_EMAIL>" ]
		ccs "$p" | grep -q 'linux-mm@kvack.org'
	done
	# The fixes applied on the release give the kernel tree's base.
	[ "$(git -C "$SEND_CACHE/linux-send" rev-parse 'mz-send^{tree}')" = "$(git -C "$MZ_TREE" rev-parse "$TAG^{tree}")" ]
}

@test "send-prep.sh --mm-unstable, --v11-fixes: on MZ_UPSTREAM_SRC's HEAD, the v11 fixes not sent with the delta" {
	need_prepared
	local base up=$T/up p n d part1 nv11 all
	# No v11 tree here: the series' own rewrite of v11 stands in for it.
	# Its end (after the fixes and Part 1) is the "upstream" HEAD; the
	# 7.3.4 form's Part 2 is split as upstream.sh splits it, with its
	# cover letters, and the fixes are in the base already.
	# shellcheck disable=SC2016
	read -r part1 nv11 < <(bash -c '. "$1/lib.sh" && echo "$MZ_PART1 $MZ_V11_FIXES_N"' _ "$H")
	base=$(git -C "$MZ_TREE" rev-list --reverse "$TAG..opt-in" | sed -n "${part1}p")
	[ -n "$base" ]
	git clone -q --shared --no-checkout "$MZ_TREE" "$up"
	git -C "$up" update-ref --no-deref HEAD "$base"
	mkdir -p "$T/p/fixes" "$T/p/v11-fixes" "$T/p/mm-unstable"
	echo '# none: in the base' >"$T/p/fixes/series"
	mapfile -t all < <(grep -vE '^[[:space:]]*(#|$)' "$PATCHES/series")
	for ((n = part1; n < ${#all[@]}; n++)); do
		p=${all[n]}
		if [ "$n" -lt $((part1 + nv11)) ]; then d=v11-fixes; else d=mm-unstable; fi
		cp "$PATCHES/$p" "$T/p/$d/" && echo "$p" >>"$T/p/$d/series"
	done
	cp "$PATCHES/v11-fixes/0000-cover-letter.patch" "$T/p/v11-fixes/"
	cp "$PATCHES/mm-unstable/0000-cover-letter.patch" "$T/p/mm-unstable/"
	MZ_PATCHES=$T/p MZ_UPSTREAM_SRC=$up MZ_CACHE=$SEND_CACHE \
		run -0 --separate-stderr "$H/series/send-prep.sh" --mm-unstable "$T/mm"
	n=$(grep -cvE '^[[:space:]]*(#|$)' "$T/p/mm-unstable/series")
	[ "$(find "$T/mm" -name '*.patch' | wc -l)" -eq $((n + 1)) ]
	[[ "$stderr" == *"applied the $nv11 patches it applies on ($T/p/fixes/ $T/p/v11-fixes/; not sent)"* ]]
	grep -qx "base-commit: $base" "$T/mm/0000-cover-letter.patch"
	[ "$(grep -c '^prerequisite-patch-id: ' "$T/mm/0000-cover-letter.patch")" -eq "$nv11" ]
	headers "$T/mm/0000-cover-letter.patch" | grep -q "^Subject: \[PATCH 0/$n\] mm: "
	for p in "$T"/mm/000[1-9]-*.patch; do
		[ "$(trailers "$p" | grep '^Signed-off-by:')" = "Signed-off-by: $SENDER_NAME <$SENDER_EMAIL>" ]
		[ -n "$(ccs "$p")" ]
	done
	ccs "$T/mm/0000-cover-letter.patch" | grep -qx 'linux-mm@kvack.org'
	ccs "$T/mm/0000-cover-letter.patch" | grep -qx 'nvdimm@lists.linux.dev'
	# Applied on the base with the v11 fixes, the delta gives the first
	# series' end.
	[ "$(git -C "$SEND_CACHE/linux-send-upstream" rev-parse 'mz-send^{tree}')" = \
		"$(git -C "$MZ_TREE" rev-parse 'opt-in^{tree}')" ]
	MZ_PATCHES=$T/p MZ_UPSTREAM_SRC=$up MZ_CACHE=$SEND_CACHE \
		run -0 --separate-stderr "$H/series/send-prep.sh" --v11-fixes "$T/v11"
	[ "$(find "$T/v11" -name '*.patch' | wc -l)" -eq $((nv11 + 1)) ]
	if grep -q '^base-commit: ' "$T/v11/0000-cover-letter.patch"; then false; fi
	ccs "$T/v11/0000-cover-letter.patch" | grep -q 'x86@kernel.org'
}

@test "send-prep.sh --mm-unstable: no tree with v11 in MZ_UPSTREAM_SRC: says so, writes nothing" {
	MZ_UPSTREAM_SRC='' run -1 --separate-stderr "$H/series/send-prep.sh" --mm-unstable "$T/out"
	[[ "$stderr" == *"set MZ_UPSTREAM_SRC to a git kernel tree with v11"* ]]
	mkdir "$T/plain"
	MZ_UPSTREAM_SRC=$T/plain run -1 --separate-stderr "$H/series/send-prep.sh" --v11-fixes "$T/out"
	[[ "$stderr" == *"MZ_UPSTREAM_SRC=$T/plain is not a git tree"* ]]
	git init -q "$T/plain" && git -C "$T/plain" commit -q --allow-empty -m empty
	MZ_UPSTREAM_SRC=$T/plain run -1 --separate-stderr "$H/series/send-prep.sh" --mm-unstable "$T/out"
	[[ "$stderr" == *"does not have v11 of the template series"* ]]
	[ ! -e "$T/out" ]
	[ ! -e "$MZ_CACHE/linux-send-upstream" ]
}
