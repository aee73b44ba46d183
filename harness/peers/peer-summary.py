#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""peer-summary.py: every peer suite in one table.

    peer-summary.py NDCTL_JSON HMM_JSON [--json FILE]

Reads the summaries that check-ndctl.sh (ndctl-compare.sh) and
hmm-compare.sh write, and prints each suite's pass/fail/skip counts per
run (base: 7.3.4 with patches/fixes/; off, on: the series with that
namespace choice; series: the series with test_hmm's default), then
every failure and every skip with the reason the suite itself gave.
--json writes the same as JSON.  Exits 1 when a summary cannot be read
or lacks what this reads, saying which.
"""

import argparse
import json
import re
import sys

RUNS = ("base", "off", "on", "series")


def fail(msg):
    print(f"peer-summary.py: {msg}", file=sys.stderr)
    sys.exit(1)


def load(path, keys):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"cannot read {path}: {e}")
    missing = [k for k in keys if k not in data]
    if missing:
        fail(f"{path} has no {', '.join(missing)}: not a summary of the right kind")
    return data


def ndctl_rows(data):
    """Counts, failures and skips of ndctl-compare.sh's summary."""
    counts, failed, skipped = {}, [], []
    for c in data["counts"]:
        counts.setdefault(c["suite"], {})[c["run"]] = (
            c["pass"], c["fail"], c["skip"], c.get("missing", 0))
    for r in data["results"]:
        row = (r.get("suite", "ndctl"), r["run"], r["test"])
        if r["result"] == "skip":
            skipped.append(row + (r.get("said") or "(said nothing)",))
        elif r["result"] != "pass":
            failed.append(row + (r["result"],))
    return counts, failed, skipped


def hmm_rows(data):
    """Counts, failures and skips of hmm-compare.sh's summary."""
    runs, failed, skipped = {}, [], []
    for run in ("base", "series"):
        if run not in data:
            continue
        m = re.search(r"pass:(\d+) fail:(\d+) .*skip:(\d+)", data[run]["totals"])
        if not m:
            fail(f"hmm-tests' {run} run has no totals: {data[run]['totals']!r}")
        runs[run] = (int(m[1]), int(m[2]), int(m[3]), 0)
        failed += [("hmm-tests", run, case, "fail") for case in data[run]["failed"]]
        skipped += [("hmm-tests", run, s["case"], s["reason"] or "(no reason given)")
                    for s in data[run]["skipped"]]
    return {"hmm-tests": runs}, failed, skipped


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ndctl_json")
    ap.add_argument("hmm_json")
    ap.add_argument("--json", metavar="FILE")
    a = ap.parse_args()
    nd = ndctl_rows(load(a.ndctl_json, ("counts", "results")))
    hm = hmm_rows(load(a.hmm_json, ("base", "series")))
    counts = {**nd[0], **hm[0]}
    failed = nd[1] + hm[1]
    skipped = nd[2] + hm[2]

    print("peer suites, pass/fail/skip per run (base: 7.3.4 with patches/fixes/;"
          " off, on, series: the series)")
    print(f"  {'suite':<12}" + "".join(f"{r:>14}" for r in RUNS))
    for suite, runs in counts.items():
        cells = []
        for r in RUNS:
            if r not in runs:
                cells.append("-")
                continue
            p, f, s, miss = runs[r]
            cells.append(f"{p}/{f}/{s}" + (f" ({miss} missing)" if miss else ""))
        print(f"  {suite:<12}" + "".join(f"{c:>14}" for c in cells))
    print(f"failed: {len(failed)}")
    for suite, run, test, res in failed:
        print(f"  {suite} {run}: {test} ({res})")
    print("skipped, with the suite's own reason:")
    groups = {}
    for suite, run, test, why in skipped:
        groups.setdefault((suite, why), {}).setdefault(test, []).append(run)
    for (suite, why), tests in groups.items():
        print(f"  {suite}: {why}")
        for test, runs in tests.items():
            print(f"    {test} ({', '.join(runs)})")
    if a.json:
        out = {
            "counts": [{"suite": s, "run": r, "pass": v[0], "fail": v[1],
                        "skip": v[2], "missing": v[3]}
                       for s, runs in counts.items() for r, v in runs.items()],
            "failed": [{"suite": s, "run": r, "test": t, "result": x}
                       for s, r, t, x in failed],
            "skipped": [{"suite": s, "run": r, "test": t, "reason": w}
                        for s, r, t, w in skipped],
        }
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
