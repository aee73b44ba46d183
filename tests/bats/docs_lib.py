# SPDX-License-Identifier: GPL-2.0
"""Helpers of tests/bats/docs.bats."""

import re


def expand(pattern):
    """The names a shell brace pattern stands for: a{b,c}d -> abd, acd."""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    return [q for alt in m.group(1).split(",")
            for q in expand(pattern[:m.start()] + alt + pattern[m.end():])]


def harness_floors(root):
    """docs/developing.md's harness table, in its order (bottom first):
    a dict of folder ("harness", "harness/series", ...) to the set of
    names its files column gives."""
    text = open(f"{root}/docs/developing.md").read()
    table = text.split("## The harness, floor by floor", 1)[1].split("\n## ", 1)[0]
    floors = {}
    for row in table.splitlines():
        m = re.match(r"\| `(harness/[a-z]*/?)` \|[^|]*\| (.*) \|$", row)
        if m:
            floors[m.group(1).rstrip("/")] = set(re.findall(r"`([^`]+)`", m.group(2)))
    return floors
