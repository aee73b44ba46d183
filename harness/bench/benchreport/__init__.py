# SPDX-License-Identifier: GPL-2.0
"""bench-report.py's parts: lines (the results format), parse, stats,
render and svg.  Standard library only."""
