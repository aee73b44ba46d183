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
