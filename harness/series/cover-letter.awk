# SPDX-License-Identifier: GPL-2.0
#
# cover-letter.awk: print the hand-written part of a cover letter made by
# 'git format-patch --cover-letter --cover-from-description=subject'
# (subject line, blank line, body up to the shortlog), i.e. the branch
# description that regenerates it: awk -f cover-letter.awk FILE
# (cover-letter.sh extract FILE; lib.sh's mz_describe_branch).
	BEGIN { hdr = 1 }
	hdr && /^Subject: / { sub(/^Subject: (\[[^]]*\] )?/, ""); subj = $0; insubj = 1; next }
	hdr && insubj && /^[ \t]/ { sub(/^[ \t]+/, " "); subj = subj $0; next }
	hdr && /^$/ { hdr = 0; print subj; print ""; next }
	hdr { insubj = 0; next }
	/^[^ ].* \([0-9]+\):$/ { done = 1 }
	!done { body[n++] = $0 }
	END {
		# Without its "Name (N):" heading (mz_strip_tree_signoff removes
		# the tree's), the shortlog is found from the end: the
		# diffstat's " N files changed" line, the diffstat above it,
		# a blank line, the shortlog's indented subjects, a blank line.
		if (!done) {
			for (s = n - 1; s >= 0; s--)
				if (body[s] ~ /^ [0-9]+ files? changed/)
					break
			if (s >= 0) {
				for (i = s - 1; i >= 0 && body[i] ~ /^ .*\|/; i--)
					;
				if (i >= 0 && body[i] == "") {
					for (j = i - 1; j >= 0 && body[j] ~ /^  [^ ]/ || body[j] ~ /^    /; j--)
						;
					if (j < i - 1 && j >= 0 && body[j] == "")
						n = j
				}
			}
		}
		while (n > 0 && body[n - 1] == "") n--
		for (i = 0; i < n; i++) print body[i]
	}
