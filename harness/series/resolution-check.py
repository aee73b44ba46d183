#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""resolution-check.py SERIES_DIFF EXPORT_DIFF: what the export removes
that the series patch does not.

upstream.sh resolves a conflict of Part 2 with upstream's Part 1 by
taking Part 2's side of each conflicting hunk.  That is right only where
upstream's code that the hunk replaces is the code Part 2's own patch
removes.  Both arguments are unified diffs of one patch: as the series
has it (on the rewrite of Part 1) and as exported (on upstream).  Prints
the tokens of code lines the export removes beyond those the series
patch removes (comments and blank lines aside), one line of them per
removed line, and exits 1 when there are any.
"""
import collections
import re
import sys

TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|0[xX][0-9a-fA-F]+|\d+|\S")


def removed(path):
    """The removed code lines of diff PATH."""
    lines = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("-") or line.startswith("---"):
                continue
            code = line[1:].strip()
            if not code or code.startswith(("/*", "*", "//")):
                continue
            lines.append(code)
    return lines


def main():
    if len(sys.argv) != 3:
        print("usage: resolution-check.py SERIES_DIFF EXPORT_DIFF", file=sys.stderr)
        sys.exit(2)
    series = removed(sys.argv[1])
    lines = removed(sys.argv[2])
    # A line the series removes too, spaced alike or not, is fine; the
    # rest must be made of what the series' other removed lines hold
    # (upstream may break a statement over lines differently).
    left = collections.Counter(" ".join(TOKEN.findall(c)) for c in series)
    rest = []
    for code in lines:
        key = " ".join(TOKEN.findall(code))
        if left[key] > 0:
            left[key] -= 1
        else:
            rest.append(code)
    allowed = collections.Counter()
    for key, n in left.items():
        for _ in range(n):
            allowed.update(key.split())
    extra = []
    for code in rest:
        toks = TOKEN.findall(code)
        missing = [t for t in toks if allowed[t] <= 0]
        allowed.subtract(toks)
        if missing:
            extra.append(f"{code}    (not removed by the series: {' '.join(missing)})")
    for e in extra:
        print(e)
    sys.exit(1 if extra else 0)


if __name__ == "__main__":
    main()
