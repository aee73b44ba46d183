#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# bench-report.py: turn the benchmark's boots (guest/tests/bench, run by
# harness/bench/bench.sh) into a table at most 72 columns wide, a JSON file
# and an SVG chart; or print the table again from a JSON file (--cover).
# Standard library only.
#
#   bench-report.py --plan PLAN [--accel kvm|tcg] [--fact KEY=VALUE]...
#                   [--kernel NAME=DIR]... [--probe PROBE.json | --no-probe]
#                   [--json FILE] [--svg FILE] [--text FILE]
#   bench-report.py --plan PLAN --boot-summary OUT
#   bench-report.py --cover RESULTS.json [--for-list]
#
# PLAN is bench.sh's: a line per boot, "run=RUN out=OUT" and the words the
# guest was given (devices=, rebinds=, size_bytes=, expect=, threads=).  The
# runs, devices, rebinds and sizes are the plan's; each OUT (what vm.sh
# printed) must echo its words ("BENCH-PLAN"), have every device's binds
# 0..N once and the floor's N+1 writes, and name its run's backend and
# thread count: anything else is an error (exit 1).  A memory hotplug run's
# devices run alone, on base, first and template (benchreport/lines.py's
# HOTPLUG_RUNS).  Usage errors exit 2;
# exit 3 when the floor does not bound the template paths.  What the
# table holds and how it is computed: docs/bench.md.

import argparse
import hashlib
import json
import os
import re
import sys

# The package next to this script, wherever it is run from.
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from benchreport.lines import (BACKENDS, BACKEND_OF, BASE_CPUS, BUSY, FIRST,  # noqa: E402
                               HOTPLUG, HOTPLUG_RUNS, NUMERIC_FACTS, ReportError, THREADED,
                               hotplug_run)
from benchreport.jsonfile import dumps  # noqa: E402
from benchreport.parse import parse_run, read_plan  # noqa: E402
from benchreport.render import human_bytes, table  # noqa: E402
from benchreport.stats import (aggregate, breakdown, common_threads, hotplug,  # noqa: E402
                               run_labels)
from benchreport.svg import svg_chart  # noqa: E402

PROG = os.path.basename(sys.argv[0])


def usage_error(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def plan_error(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(1)


def write(path, text):
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def kernel_facts(name, d):
    k = {"build": os.path.basename(os.path.normpath(d))}
    try:
        with open(os.path.join(d, "include/config/kernel.release"), encoding="utf-8") as f:
            k["release"] = f.read().strip()
    except OSError:
        k["release"] = None
    try:
        with open(os.path.join(d, ".config"), "rb") as f:
            k["config_sha256"] = hashlib.sha256(f.read()).hexdigest()
    except OSError:
        k["config_sha256"] = None
    return k


def main():
    ap = argparse.ArgumentParser(prog=PROG, description="Summarise bench.sh boots.")
    ap.add_argument("--plan", help="bench.sh's plan: a line per boot")
    ap.add_argument("--accel", default="unknown")
    ap.add_argument("--fact", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--kernel", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--probe")
    ap.add_argument("--no-probe", action="store_true",
                    help="record that the probe was skipped")
    ap.add_argument("--json")
    ap.add_argument("--svg")
    ap.add_argument("--text")
    ap.add_argument("--cover", metavar="RESULTS.json",
                    help="print the table of a results JSON")
    ap.add_argument("--for-list", action="store_true",
                    help="with --cover: as a cover letter carries it (kernels named "
                         "by what they hold, nothing of this repository)")
    ap.add_argument("--boot-summary", metavar="OUT",
                    help="check one boot's output and print its binds and their "
                         "most common thread count (bench.sh, after each boot)")
    try:
        a = ap.parse_args()
    except SystemExit as e:
        sys.exit(2 if e.code else 0)

    if a.cover:
        if a.plan or a.json or a.svg:
            usage_error("--cover takes only the results JSON")
        try:
            with open(a.cover, encoding="utf-8") as f:
                doc = json.load(f)
            sys.stdout.write(table(doc, for_list=a.for_list))
        except (OSError, ValueError) as e:
            print(f"{PROG}: error: cannot read {a.cover}: {e}", file=sys.stderr)
            sys.exit(1)
        except (KeyError, TypeError, ReportError) as e:
            print(f"{PROG}: error: {a.cover} is not a bench-report.py results file ({e})",
                  file=sys.stderr)
            sys.exit(1)
        fail_unbounded_floor(doc)
        return

    if a.for_list:
        usage_error("--for-list goes with --cover")
    if not a.plan:
        usage_error("--plan is required (or --cover FILE)")
    try:
        boots, devices, rebinds = read_plan(a.plan)
    except ReportError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        sys.exit(1)
    if a.boot_summary:
        if a.json or a.svg or a.text:
            usage_error("--boot-summary takes one OUT and --plan")
        mine = [b for b in boots if b["out"] == a.boot_summary]
        if not mine:
            usage_error(f"--boot-summary '{a.boot_summary}': no boot of the plan writes it")
        b = mine[-1]
        try:
            binds, _, _ = parse_run(b["run"], b["out"], devices, rebinds, b["words"])
        except ReportError as e:
            print(f"{PROG}: error: {e}", file=sys.stderr)
            sys.exit(1)
        every = {(d, k): x for d, by in binds.items() for k, x in by.items()}
        print(f"{len(every)} binds, {common_threads(every)} thread(s)")
        return
    given = {b["run"] for b in boots}
    busy = set(BUSY) | set(BUSY.values())
    hot = hotplug_run(devices)
    if not hot and set(devices) & HOTPLUG:
        plan_error(f"plan: {', '.join(d for d in devices if d in HOTPLUG)} (memory hotplug) "
                   f"and {', '.join(d for d in devices if d not in HOTPLUG)} have other runs: "
                   "run them separately")
    if hot:
        # The first series' control is there when its kernel was built apart.
        extra = [b for b in run_labels(given) if b not in HOTPLUG_RUNS]
        if extra:
            plan_error(f"plan: a memory hotplug run ({', '.join(devices)}) has the runs "
                       f"{', '.join(HOTPLUG_RUNS)}, not {', '.join(extra)}")
        need = [b for b in HOTPLUG_RUNS if b != FIRST]
    elif FIRST in given:
        plan_error(f"plan: run {FIRST}, the first series' control, is a memory hotplug run's; "
                   f"{', '.join(devices)} are not hot-added")
    elif BASE_CPUS in given and not given & set(THREADED):
        plan_error(f"plan: {BASE_CPUS}, the base with every vCPU online, goes with the threaded runs")
    else:
        need = BACKENDS + (list(THREADED) if given & (set(THREADED) | busy) else []) + (
            sorted(busy) if given & busy else [])
    missing = [b for b in need if b not in given]
    if missing:
        plan_error(f"plan: no run of {', '.join(missing)}"
                    + (" (the busy host's runs come in pairs, with the threaded runs)"
                       if given & busy else
                       " (the threaded runs come in pairs)" if given & set(THREADED) else ""))
    labels = run_labels(given)

    try:
        runs = {}
        for b in boots:
            label, size = b["run"], b["size_mib"]
            if (label, size) in runs:
                raise ReportError(f"two runs of {label} at size {size} MiB ({b['out']})")
            runs[label, size] = parse_run(label, b["out"], devices, rebinds, b["words"])
        sizes = sorted({s for _, s in runs})
        for s in sizes:
            lack = [b for b in labels if (b, s) not in runs]
            if lack:
                raise ReportError(f"size {s} MiB has no run of {', '.join(lack)}")
        doc = {"accel": a.accel}
        for f in a.fact:
            k, sep, v = f.partition("=")
            if not sep or not k:
                usage_error(f"--fact '{f}': need KEY=VALUE")
            if k in NUMERIC_FACTS and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", v):
                doc[k] = float(v) if "." in v else int(v)
            else:
                doc[k] = v
        host = {}
        for k in ("nproc", "other_busy_pct_max", "other_qemu_max", "busy"):
            if k in doc:
                host[k] = doc.pop(k)
        doc["host"] = host
        doc["sizes"] = {"list_bytes": [s << 20 for s in sizes]}
        if "guest_ram_bytes" in doc:
            doc["sizes"]["guest_ram_bytes"] = doc.pop("guest_ram_bytes")
        doc["rebinds"] = rebinds
        doc["devices"] = devices
        kernels = {}
        for kv in a.kernel:
            name, sep, d = kv.partition("=")
            if not sep or name not in ("base", "first", "patched"):
                usage_error(f"--kernel '{kv}': need base=DIR, first=DIR or patched=DIR")
            kernels[name] = kernel_facts(name, d)
        patched = [b for b in labels if BACKEND_OF.get(b, b) != "base" and b != FIRST]
        if BASE_CPUS in labels:
            cb = runs[BASE_CPUS, sizes[0]][2].get("cpus_online")
            if cb is not None:
                kernels.setdefault("base", {})["cpus_online"] = {
                    "base": runs["base", sizes[0]][2].get("cpus_online"), BASE_CPUS: cb}
        # The first series' kernel, when the single-threaded runs had their
        # own, ran template and template+streaming; the patched one the
        # threaded runs (or, without a first, every patched run).  In a
        # memory hotplug run, the first series' ran FIRST, the patched one
        # template.
        first_runs = []
        if hot:
            first_runs = [b for b in labels if b == FIRST]
        elif "first" in kernels:
            first_runs = [b for b in labels if b in BACKENDS[1:]]
            patched = [b for b in patched if b in THREADED or b in busy] or patched
        who = [("base", "base"), ("patched", (patched or ["template"])[0])]
        if first_runs:
            who.insert(1, ("first", first_runs[0]))
        for name, label in who:
            info = runs[label, sizes[0]][2]
            k = kernels.setdefault(name, {})
            if not k.get("release"):
                k["release"] = info.get("release")
            k["version"] = info.get("version", "").replace("_", " ") or None
            k["memmap_init_source"] = info.get("memmap_init_source")
            if info.get("hz", "").isdigit():
                k["hz"] = int(info["hz"])
            if name != "base":
                runs_of = first_runs if name == "first" else patched
                k["policies"] = {b: runs[b, sizes[0]][2].get("policy") for b in runs_of}
                # The CPUs online during each patched boot's binds.
                ca = {b: runs[b, sizes[0]][2].get("cpus_online") for b in runs_of}
                if all(v is not None for v in ca.values()):
                    k["cpus_online"] = ca
                mc = {runs[b, sizes[0]][2].get("min_chunk_pages") for b in runs_of}
                mc = [v for v in mc if v is not None and v.isdigit()]
                if len(mc) == 1:
                    k["min_chunk_pages"] = int(mc[0])
        doc["kernels"] = kernels
        doc["kernel_config_sha256"] = {n: kernels[n].get("config_sha256") for n in kernels}
        (doc["results"], doc["comparisons"], doc["crosscheck"],
         doc["floor"], speedups) = aggregate(runs, sizes, devices, rebinds)
        if speedups:
            doc["speedup"] = speedups
        hp = hotplug(runs, sizes, devices, rebinds)
        if hp:
            doc["hotplug"] = hp
        bd = breakdown(runs, sizes, devices, rebinds)
        if bd:
            doc["breakdown"] = bd
        if a.probe:
            try:
                with open(a.probe, encoding="utf-8") as f:
                    doc["probe"] = json.load(f)
            except (OSError, ValueError) as e:
                raise ReportError(f"cannot read the probe results {a.probe}: {e}")
        elif a.no_probe:
            doc["probe"] = None
        text = table(doc)
    except ReportError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        sys.exit(1)

    sys.stdout.write(text)
    if a.text:
        write(a.text, text)
    if a.json:
        write(a.json, dumps(doc) + "\n")
    if a.svg:
        write(a.svg, svg_chart(doc))
    fail_unbounded_floor(doc)


def fail_unbounded_floor(doc):
    """Exit 3 when the floor does not bound the template paths: such a run
    measured something else (a busy host, a bad candidate)."""
    slow = [f"{f['device']} {human_bytes(f['size_bytes'])}"
            for f in doc.get("floor") or [] if f.get("slower_than")]
    if slow:
        print(f"{PROG}: error: the floor is slower than a template path on "
              f"{', '.join(slow)}; the results are written but are not a bound "
              "(rerun on a quieter host)", file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
