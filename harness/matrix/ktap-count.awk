# SPDX-License-Identifier: GPL-2.0
#
# ktap-count.awk: count results per test group in run_kselftest.sh output.
#
# Input: a guest console log or stdout holding kselftest's nested KTAP:
#   # selftests: TARGET: memmap_controls.sh      <- starts group "controls"
#   # ok 1 description                           <- pass
#   # not ok 2 description                       <- fail
#   # ok 3 description # SKIP reason             <- skip
#   not ok 1 selftests: TARGET: memmap_x.sh      <- the group itself failed
# Output: one line per group, "GROUP PASS FAIL SKIP", in order of
# appearance, with any blank in GROUP made "_" (a mangled line cannot make
# a count of a word).  A group that failed at the top level without any failing
# subtest (a crash or timeout) counts one extra failure; a group skipped
# as a whole counts one skip.
#
# With -v list=skips: one line per skip instead, "GROUP<US>TEST<US>WHY"
# (fields separated by the ASCII unit separator, \037),
# TEST empty for a group skipped as a whole, WHY the reason the test gave
# (after "# SKIP", in its "TEST: skipped: WHY" message, or in "1..0 # SKIP").
function group_name(s) {
	sub(/ # .*$/, "", s)
	sub(/^.*: /, "", s)
	sub(/\.sh$/, "", s)
	sub(/^memmap_/, "", s)
	gsub(/[ \t]+/, "_", s)
	return s
}
function skip_desc(s) {
	sub(/^# (not )?ok [0-9]+ /, "", s)
	sub(/ # [Ss][Kk][Ii][Pp].*$/, "", s)
	return s
}
function skip_why(s, desc) {
	if (s ~ /# [Ss][Kk][Ii][Pp] ./) {
		sub(/^.*# [Ss][Kk][Ii][Pp] /, "", s)
		return s
	}
	if (index(lastmsg, "# # " desc ": skipped: ") == 1)
		return substr(lastmsg, length("# # " desc ": skipped: ") + 1)
	return ""
}
function list_skip(grp, desc, why) {
	if (list == "skips") printf "%s\037%s\037%s\n", grp, desc, why
}
{ sub(/\r$/, "") }
/^# 1\.\.0 # [Ss][Kk][Ii][Pp]/ { allwhy = $0; sub(/^# 1\.\.0 # [Ss][Kk][Ii][Pp] */, "", allwhy) }
/^# # / { lastmsg = $0 }
/^# selftests: [^ ]+: / {
	g = group_name($0)
	allwhy = ""
	if (!(g in seen)) { seen[g] = 1; order[n++] = g }
	next
}
g != "" && /^# (not )?ok [0-9]+/ {
	if ($0 ~ /# [Ss][Kk][Ii][Pp]/) {
		skip[g]++
		d = skip_desc($0)
		list_skip(g, d, skip_why($0, d))
	}
	else if ($0 ~ /^# not ok/) fail[g]++
	else pass[g]++
	next
}
/^not ok [0-9]+ selftests: [^ ]+: / {
	h = group_name($0)
	if (!(h in seen)) { seen[h] = 1; order[n++] = h }
	if ($0 !~ /# [Ss][Kk][Ii][Pp]/ && !fail[h]) fail[h]++
	next
}
/^ok [0-9]+ selftests: [^ ]+: / {
	# A group that skipped as a whole ("1..0 # SKIP reason") counts one skip.
	h = group_name($0)
	if (!(h in seen)) { seen[h] = 1; order[n++] = h }
	if ($0 ~ /# [Ss][Kk][Ii][Pp]/ && !pass[h] && !fail[h] && !skip[h]) {
		skip[h]++
		list_skip(h, "", allwhy)
	}
	g = ""
	allwhy = ""
	next
}
END {
	if (list == "skips") exit
	for (i = 0; i < n; i++) {
		h = order[i]
		printf "%s %d %d %d\n", h, pass[h], fail[h], skip[h]
	}
}
