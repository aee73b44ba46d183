# SPDX-License-Identifier: GPL-2.0
"""The layout of the results JSON: one record a line.

A record is an object or array whose values are all scalars or arrays of
scalars (one bind's numbers, one comparison); it is written on one line,
and everything that holds records is indented around them, so that a run
of thousands of binds stays a file of hundreds of lines that diffs record
by record.  json.load() reads it as any JSON.
"""

import json


def _scalar(x):
    return not isinstance(x, (dict, list))


def _record(x):
    vals = x.values() if isinstance(x, dict) else x
    return all(_scalar(v) or (isinstance(v, list) and all(map(_scalar, v)))
               for v in vals)


def dumps(doc, depth=0):
    """doc as JSON text, one record a line (no trailing newline)."""
    if _scalar(doc) or _record(doc):
        return json.dumps(doc)
    pad = "  " * (depth + 1)
    if isinstance(doc, dict):
        items = [f"{pad}{json.dumps(k)}: {dumps(v, depth + 1)}" for k, v in doc.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
    items = [pad + dumps(v, depth + 1) for v in doc]
    return "[\n" + ",\n".join(items) + "\n" + "  " * depth + "]"
