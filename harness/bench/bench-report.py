#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# bench-report.py: turn the output of the benchmark boots (guest/tests/bench,
# run by harness/bench/bench.sh) into a table at most 72 columns wide, a JSON file
# and an SVG chart; or print the table again from a JSON file (--cover).
# Standard library only.
#
#   bench-report.py --run base=OUT --run template=OUT
#                   --run template+streaming=OUT [--run template-threads=OUT
#                   --run template+streaming-threads=OUT [--run base-cpus=OUT]
#                   [--run template-busy=OUT --run template-threads-busy=OUT]]
#                   [--run RUN=OUT]...
#                   --devices LIST --rebinds N
#                   [--accel kvm|tcg] [--fact KEY=VALUE]... [--kernel NAME=DIR]...
#                   [--probe PROBE.json | --no-probe] [--json FILE] [--svg FILE]
#                   [--text FILE]
#   bench-report.py --cover RESULTS.json [--for-list]
#   bench-report.py --boot-summary RUN=OUT --devices LIST --rebinds N
#
# OUT is what vm.sh printed for one boot (the guest test's output).  Each
# boot measured one size (its "BENCH-INFO size_mb=M" line); give one --run
# per run and size.  The runs: base, template and template+streaming on one
# thread, and optionally (both or neither) template-threads and
# template+streaming-threads, the same backends with the threads the kernel
# picks (guest/tests/bench THREADS=auto), shown as "template, N threads"
# and "template+streaming, N threads" with N the threads the binds ran on;
# with them, optionally, base-cpus: the base kernel with every vCPU online
# as in the threaded boots (THREADS=auto; it still initializes on one
# thread), shown as "base, all CPUs", the base of the threaded runs' whole
# bind and of the breakdown's every-vCPU table.  With the threaded runs,
# optionally (both or neither), the busy host (bench.sh --busy): a nice-0
# task spinning on every vCPU but the first, the template backend held to
# one thread on the first vCPU (template-busy, guest/tests/bench
# THREADS=busy1) and on the threads the kernel picks (template-threads-busy,
# THREADS=busy), their own part of the table ("template, one vCPU, busy
# host", "template, N threads, busy host"; no bar in the chart); their
# boots must say they were busy (BENCH-INFO busy_cpus=), the others that
# they were not.
# The lines read are guest/tests/bench's BENCH, BENCH-FLOOR, BENCH-PHASE,
# BENCH-NDCTL and BENCH-INFO lines, defined in harness/bench/benchreport/lines.py.
# Every device of LIST must have binds 0..N exactly once in every run, the
# floor's N+1 timed writes, and every line of a run must name the run's
# backend, and its thread count: a threaded run's lines must have threads=,
# a single-threaded run's must not exceed 1 (a missing threads=, from a
# guest test older than the threads, counts as 1).  Anything else is an
# error (exit 1), as the numbers would then not be what the table says
# they are.
#
# Bind 0 is the first bind ("first"); the median, min and max are over
# binds 1..N (the rebinds).  An even N takes the mean of the two middle
# values, rounded to the nearest ns.  Ratios are medians over the base
# median.  Each comparison (template vs base, template+streaming vs base,
# template+streaming vs template; with the threaded runs also each of them
# vs its single-threaded run and vs base; with the busy host's, its N
# threads vs its one and vs the idle host's N) gets Welch's t-test on the
# rebinds at 95% confidence (as ministat does, but without assuming equal
# variances): the difference of the means in percent of the second one, +-
# the half-width of its 95% confidence interval, or "no difference proven
# at 95%".  The threads' speedup is the single-threaded median over the
# threaded one (on the busy host, its one vCPU's over its N threads').
# Every results row has "threads": 1 for the floor, base and the
# single-threaded runs, the most common threads= of the binds for a
# threaded run.
#
# The floor (backend "floor"): the fastest store candidate the guest's
# memremap_bench found, writing the device's pages' worth of struct page
# bytes, taken from the template boot (the guest that runs the path it
# bounds); its samples are the N timed writes after the first.  The floor
# must not be slower than the single-threaded template paths: if it is,
# the table and the JSON flag it.  It is one CPU's: the threaded rows may
# go under it.
#
# The breakdown: where the whole enable goes, from the BENCH-PHASE lines
# (a second function_graph instance hooked on the bind path's phase
# functions, nested by call path).  Per device and run, each path's
# median over the rebinds (a path missing from a rebind counts 0), its
# share of the enable's median, and what a phase leaves over beyond its
# traced callees ("rest"); "outside the traced functions" is the enable's
# median minus its outermost phases' (ndctl, sysfs and uevents, driver
# core; for devprivate the module's own timing, so nothing), with, where
# the guest timed it (BENCH-NDCTL), a read-only "ndctl list" of the
# namespace: ndctl's start-up and sysfs scan without a bind.  Phases that
# touch the emulated NVDIMM's memory through the pmem driver (the info
# block, the partition scan) are marked: under TCG their cost is QEMU's
# memory emulation.  A run without BENCH-PHASE lines (an older guest test)
# has no breakdown.  With base-cpus, each device gets two tables, one of
# the runs with one vCPU online (base, template), one of those with every
# vCPU online (base-cpus, template-threads), and under each a bound: the
# enable less its memmap_init_zone_device() time, so the largest ratio to
# base's enable that any faster memmap init could reach.
#
# The kernel's part of the whole bind (metric probe_ns): per bind, the
# summed outermost calls of nd_pmem_probe() and dax_pmem_probe() from the
# BENCH-PHASE lines (devprivate: of memremap_pages()), where every bind
# of the run has them; it leaves out ndctl, sysfs and the driver core,
# which enable_ns includes.
#
# The table has a part per series when there are threaded runs: Part 1,
# the first series (the single-threaded runs and the floor, against base)
# and Part 2, its follow-up (the threaded runs against their
# single-threaded ones, base-cpus as the whole bind's base).  With several
# sizes, the breakdown is printed for the largest.
#
# --fact KEY=VALUE adds host facts to the JSON (cpu_model, series_commit,
# guest_vcpus, ...); known numeric ones are stored as numbers.  --kernel
# NAME=DIR names a kernel build directory (base; first, the first series
# alone, which ran the single-threaded patched runs, when they had a
# kernel of their own; patched, the threaded runs' or every patched run's): its release
# (include/config/kernel.release) and the sha256 of its .config are
# recorded, the directory itself only by its last component.  --probe is
# store-probe's --json output, stored under "probe" and summarised.  The
# table goes to stdout (and to --text FILE).  Usage errors exit 2.

import argparse
import hashlib
import json
import os
import re
import sys

# The package next to this script, wherever it is run from.
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from benchreport.lines import (BACKENDS, BACKEND_OF, BASE_CPUS, BUSY,  # noqa: E402
                               KNOWN_DEVICES, NUMERIC_FACTS, RUNS, ReportError, THREADED)
from benchreport.jsonfile import dumps  # noqa: E402
from benchreport.parse import parse_run  # noqa: E402
from benchreport.render import human_bytes, table  # noqa: E402
from benchreport.stats import aggregate, breakdown, common_threads, run_labels  # noqa: E402
from benchreport.svg import svg_chart  # noqa: E402

PROG = os.path.basename(sys.argv[0])


def usage_error(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


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
    ap.add_argument("--run", action="append", default=[], metavar="RUN=OUT")
    ap.add_argument("--devices")
    ap.add_argument("--rebinds")
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
    ap.add_argument("--boot-summary", metavar="RUN=OUT",
                    help="check one boot's output and print its binds and their "
                         "most common thread count (bench.sh, after each boot)")
    try:
        a = ap.parse_args()
    except SystemExit as e:
        sys.exit(2 if e.code else 0)

    if a.cover:
        if a.run or a.json or a.svg or a.devices or a.rebinds:
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
    if not a.devices or not a.rebinds:
        usage_error("--devices and --rebinds are required (or --cover FILE)")
    if a.boot_summary:
        if a.run or a.json or a.svg or a.text:
            usage_error("--boot-summary takes one RUN=OUT, --devices and --rebinds")
        label, sep, path = a.boot_summary.partition("=")
        if not sep or label not in RUNS or not path:
            usage_error(f"--boot-summary '{a.boot_summary}': need RUN=FILE with RUN one of "
                        f"{', '.join(RUNS)}")
        try:
            _, binds, _, _ = parse_run(label, path, a.devices.split(","), int(a.rebinds))
        except (ReportError, ValueError) as e:
            print(f"{PROG}: error: {e}", file=sys.stderr)
            sys.exit(1)
        every = {(d, k): b for d, by in binds.items() for k, b in by.items()}
        print(f"{len(every)} binds, {common_threads(every)} thread(s)")
        return
    devices = a.devices.split(",")
    for d in devices:
        if d not in KNOWN_DEVICES:
            usage_error(f"--devices: unknown device '{d}' (known: {' '.join(KNOWN_DEVICES)})")
    if len(set(devices)) != len(devices):
        usage_error("--devices: a device is named twice")
    if not re.fullmatch(r"[1-9][0-9]*", a.rebinds):
        usage_error(f"--rebinds '{a.rebinds}': need a positive integer")
    rebinds = int(a.rebinds)
    paths = []
    for r in a.run:
        label, sep, path = r.partition("=")
        if not sep or label not in RUNS or not path:
            usage_error(f"--run '{r}': need RUN=FILE with RUN one of {', '.join(RUNS)}")
        paths.append((label, path))
    given = {x for x, _ in paths}
    if BASE_CPUS in given and not given & set(THREADED):
        usage_error(f"--run {BASE_CPUS}: the base with every vCPU online goes with the threaded runs")
    busy = set(BUSY) | set(BUSY.values())
    need = BACKENDS + (list(THREADED) if given & (set(THREADED) | busy) else []) + (
        sorted(busy) if given & busy else [])
    missing = [b for b in need if b not in given]
    if missing:
        usage_error(f"--run missing for {', '.join(missing)}"
                    + (" (the busy host's runs come in pairs, with the threaded runs)"
                       if given & busy else
                       " (the threaded runs come in pairs)" if given & set(THREADED) else ""))
    labels = run_labels(given)

    try:
        runs = {}
        for label, path in paths:
            size, binds, floors, info = parse_run(label, path, devices, rebinds)
            if (label, size) in runs:
                raise ReportError(f"two runs of {label} at size {size} MiB ({path})")
            runs[label, size] = (binds, floors, info)
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
        patched = [b for b in labels if BACKEND_OF.get(b, b) != "base"]
        if BASE_CPUS in labels:
            cb = runs[BASE_CPUS, sizes[0]][2].get("cpus_online")
            if cb is not None:
                kernels.setdefault("base", {})["cpus_online"] = {
                    "base": runs["base", sizes[0]][2].get("cpus_online"), BASE_CPUS: cb}
        # The first series' kernel, when the single-threaded runs had their
        # own, ran template and template+streaming; the patched one the
        # threaded runs (or, without a first, every patched run).
        if "first" in kernels:
            patched = [b for b in patched if b in THREADED or b in busy] or patched
        who = [("base", "base"), ("patched", (patched or ["template"])[0])]
        if "first" in kernels:
            who.insert(1, ("first", "template"))
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
                runs_of = ([b for b in labels if b in BACKENDS[1:]] if name == "first" else
                           patched)
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
