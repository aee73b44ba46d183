#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# bench-report.py: turn the BENCH lines of the three benchmark boots
# (guest/tests/bench, run by harness/bench.sh) into a terminal table, a JSON
# file and an SVG chart.  Standard library only.
#
#   bench-report.py --run base=OUT --run template=OUT
#                   --run template+streaming=OUT --devices LIST --rebinds N
#                   [--accel kvm|tcg] [--fact KEY=VALUE]... [--kernel NAME=DIR]...
#                   [--probe PROBE.json] [--json FILE] [--svg FILE] [--text FILE]
#
# OUT is what vm.sh printed for a boot (the guest test's output); only the
# lines "BENCH device=D bind=K memmap_init_ns=T enable_ns=E backend=B
# events=C nr_pages=P" and "BENCH-INFO ..." are read.  Every device of
# LIST must have binds 0..N exactly once in every run, and every line of a
# run must name the run's backend: anything else is an error (exit 1), as
# the numbers would then not be what the table says they are.
#
# Bind 0 is the first bind ("first"); the median, min and max are over
# binds 1..N (the rebinds).  An even N takes the mean of the two middle
# values, rounded to the nearest ns.  Ratios are medians over the base
# median.
#
# --fact KEY=VALUE adds host facts to the JSON (accel, cpu_model,
# host_kernel, date, wall_s, ...); known numeric ones are stored as
# numbers.  --kernel NAME=DIR names a kernel build directory (base,
# patched) whose include/config/kernel.release is recorded with the guest's
# "uname -v".  --probe is store-probe's --json output, stored under
# "probe" and summarised in the table.  The table goes to stdout (and to
# --text FILE).  Usage errors exit 2.

import argparse
import json
import math
import os
import re
import statistics
import sys
from xml.sax.saxutils import escape

PROG = os.path.basename(sys.argv[0])
BACKENDS = ["base", "template", "template+streaming"]
METRICS = ["memmap_init_ns", "enable_ns"]
METRIC_LABEL = {"memmap_init_ns": "memmap_init", "enable_ns": "enable"}
KNOWN_DEVICES = ["fsdax-dev", "fsdax-mem", "devdax-2m", "devprivate"]
COLORS = {"base": "#7f7f7f", "template": "#1f77b4", "template+streaming": "#ff7f0e"}
NUMERIC_FACTS = {"wall_s", "nproc", "other_qemu_max", "other_busy_pct_max", "guest_ram_bytes",
                 "devprivate_bytes", "nvdimm_bytes", "hz"}

LINE_RE = re.compile(
    r"^BENCH device=(?P<device>\S+) bind=(?P<bind>\d+) memmap_init_ns=(?P<memmap_init_ns>\d+)"
    r" enable_ns=(?P<enable_ns>\d+) backend=(?P<backend>\S+) events=(?P<events>\d+)"
    r" nr_pages=(?P<nr_pages>\d+)$")


class ReportError(Exception):
    pass


def usage_error(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_run(label, path, devices, rebinds):
    """Read one boot's output: {device: {bind: {...}}} and its BENCH-INFO."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise ReportError(f"run {label}: cannot read {path}: {e.strerror}")
    binds = {}
    info = {}
    done = False
    for n, raw in enumerate(lines, 1):
        line = raw.strip("\r")
        if line.startswith("BENCH-ERROR"):
            raise ReportError(f"run {label}: the guest failed: {line} ({path}:{n})")
        if line == "BENCH-DONE":
            done = True
            continue
        if line.startswith("BENCH-INFO "):
            for kv in line.split()[1:]:
                if "=" in kv:
                    k, v = kv.split("=", 1)
                    info.setdefault(k, v)
            continue
        if not line.startswith("BENCH "):
            continue
        m = LINE_RE.match(line)
        if not m:
            raise ReportError(f"run {label}: malformed line {path}:{n}: {line!r}")
        d = m.group("device")
        k = int(m.group("bind"))
        if m.group("backend") != label:
            raise ReportError(
                f"run {label}: WRONG BACKEND: {d} bind {k} used '{m.group('backend')}', "
                f"this run must measure '{label}' ({path}:{n})")
        if d not in devices:
            raise ReportError(f"run {label}: device {d} was not asked for ({path}:{n})")
        if k in binds.setdefault(d, {}):
            raise ReportError(f"run {label}: {d} bind {k} appears twice ({path}:{n})")
        binds[d][k] = {key: int(m.group(key)) for key in
                       ("memmap_init_ns", "enable_ns", "events", "nr_pages")}
    for d in devices:
        got = binds.get(d, {})
        if not got:
            raise ReportError(f"run {label}: {d} has no lines, expected binds 0..{rebinds} ({path})")
        missing = [str(k) for k in range(rebinds + 1) if k not in got]
        extra = [str(k) for k in sorted(got) if k > rebinds]
        if missing or extra:
            what = (f"lacks bind(s) {', '.join(missing)}" if missing else
                    f"has extra bind(s) {', '.join(extra)}")
            raise ReportError(f"run {label}: {d} {what}, expected binds 0..{rebinds} ({path})")
    if not done:
        raise ReportError(f"run {label}: no BENCH-DONE line: the guest did not finish ({path})")
    return binds, info


def median_int(values):
    return int(math.floor(statistics.median(values) + 0.5))


def aggregate(runs, devices, rebinds):
    results = []
    for d in devices:
        for b in BACKENDS:
            binds = runs[b][0][d]
            for metric in METRICS:
                rest = [binds[k][metric] for k in range(1, rebinds + 1)]
                results.append({
                    "device": d, "backend": b, "metric": metric,
                    "first": binds[0][metric], "median": median_int(rest),
                    "min": min(rest), "max": max(rest),
                })
    return results


def find(results, device, backend, metric):
    for r in results:
        if (r["device"], r["backend"], r["metric"]) == (device, backend, metric):
            return r
    raise KeyError((device, backend, metric))


def ratio(results, device, backend, metric):
    base = find(results, device, "base", metric)["median"]
    if base <= 0:
        return None
    return find(results, device, backend, metric)["median"] / base


def ms(ns):
    return f"{ns / 1e6:.3f}"


def human_bytes(n):
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n / (1 << 20):.0f} MiB"


def table(doc, runs):
    out = []
    accel = doc.get("accel", "unknown")
    devices = doc["devices"]
    rebinds = doc["rebinds"]
    results = doc["results"]
    sizes = doc.get("sizes", {})
    size = human_bytes(sizes["nvdimm_bytes"]) if sizes.get("nvdimm_bytes") else "?"
    out.append(f"memmap_init_zone_device() benchmark: {len(devices)} device(s), "
               f"{size} each, {rebinds} rebinds per device and backend")
    if accel == "tcg":
        out.append("Accelerator: TCG (QEMU emulation, no KVM). TCG timings measure emulated "
                   "instruction work, not the memory system;")
        out.append("  the store-type effect (cached vs non-temporal stores) is measured "
                   "separately by the user-space probe on the real CPU (below).")
    elif accel == "kvm":
        out.append("Accelerator: KVM (-cpu host): guest stores run on the real CPU and memory.")
    else:
        out.append(f"Accelerator: {accel}")
    facts = []
    for k in ("cpu_model", "host_kernel", "date"):
        if doc.get(k):
            facts.append(f"{k.replace('_', ' ')} {doc[k]}")
    if facts:
        out.append("Host: " + "; ".join(facts))
    if doc.get("host", {}).get("busy"):
        out.append(f"WARNING: {doc['host']['busy']}: timings are noisy.")
    out.append("")
    head = (f"{'device':<11} {'metric':<12} {'backend':<19} {'median ms':>11} "
            f"{'[min - max] ms':>23} {'first ms':>11} {'x base':>7}")
    out.append(head)
    out.append("-" * len(head))
    for d in devices:
        for mi, metric in enumerate(METRICS):
            for bi, b in enumerate(BACKENDS):
                r = find(results, d, b, metric)
                q = ratio(results, d, b, metric)
                rs = "n/a" if q is None else f"{q:.2f}"
                rng = f"[{ms(r['min'])} - {ms(r['max'])}]"
                out.append(f"{d if mi == 0 and bi == 0 else '':<11} "
                           f"{METRIC_LABEL[metric] if bi == 0 else '':<12} {b:<19} "
                           f"{ms(r['median']):>11} {rng:>23} {ms(r['first']):>11} {rs:>7}")
        out.append("")
    hz = runs["base"][1].get("hz", "")
    res = f"{1000 / int(hz):g} ms" if hz.isdigit() and int(hz) > 0 else "one jiffy"
    out.append("median [min - max]: over the rebinds (binds 1..N); x base: median / base median.")
    out.append("first: the first bind of the device in the boot: it also pays for first "
               "touches (the host's sparse NVDIMM")
    out.append("  file, fresh vmemmap pages), so it is reported apart from the rebinds.")
    out.append("memmap_init: one bind's memmap_init_zone_device() time. Patched kernels: "
               "the memmap_init_zone_device tracepoint's")
    out.append(f"  duration_ns (ktime). Base kernel: its pr_debug 'in %ums', which counts "
               f"jiffies: {res} resolution (HZ={hz or '?'}).")
    out.append("enable: wall time of 'ndctl enable-namespace' in the guest (bash EPOCHREALTIME, "
               "us resolution); first bind: 'ndctl")
    out.append("  create-namespace', which also reconfigures the namespace. devprivate: "
               "memremap_bench's memremap_pages() time.")
    probe = doc.get("probe")
    if probe:
        out.append("")
        out.append(f"User-space store probe on the host CPU ({probe.get('cpu_model', '?')}, "
                   f"{human_bytes(int(probe.get('size_bytes', 0)))} buffer, "
                   f"median of {probe.get('repeat', '?')}; a model of the write pattern, "
                   f"not the kernel):")
        for key, c in probe.get("cases", {}).items():
            med = c.get("median_gbps")
            val = "n/a" if med is None else f"{med:7.2f} GB/s"
            lo, hi = c.get("min_gbps"), c.get("max_gbps")
            rng = "" if lo is None or hi is None else f"  [{lo:.2f} - {hi:.2f}]"
            out.append(f"  {key:<18} {val}{rng}")
        ratios = probe.get("ratios", {})
        cold, warm = ratios.get("nt_over_cached_cold"), ratios.get("nt_over_cached_warm")
        fmt = (lambda v: "n/a" if v is None else f"{v:.2f}")
        out.append(f"  non-temporal / cached copy throughput: cold destination {fmt(cold)}, "
                   f"warm destination {fmt(warm)}")
    elif "probe" in doc:
        out.append("")
        out.append("User-space store probe: not run (--no-probe).")
    summary = []
    for d in devices:
        parts = []
        for b in BACKENDS[1:]:
            q = ratio(results, d, b, "memmap_init_ns")
            parts.append(f"{b} {'n/a' if q is None else f'{q:.2f}x'}")
        summary.append(f"{d}: " + ", ".join(parts))
    out.append("")
    out.append("memmap_init median vs base: " + "; ".join(summary))
    return "\n".join(out) + "\n"


def nice_step(span, ticks=5):
    if span <= 0:
        return 1.0
    raw = span / ticks
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def svg_chart(doc):
    devices = doc["devices"]
    results = doc["results"]
    accel = doc.get("accel", "?")
    size = human_bytes(doc["sizes"]["nvdimm_bytes"]) if doc.get("sizes", {}).get("nvdimm_bytes") else "?"
    width, height = 760, 456
    left, right, top, bottom = 70, 20, 78, 108
    pw, ph = width - left - right, height - top - bottom
    vals = [find(results, d, b, "memmap_init_ns")["max"] / 1e6 for d in devices for b in BACKENDS]
    step = nice_step(max(vals + [1e-6]) * 1.08)
    ymax = step * math.ceil(max(vals + [1e-6]) * 1.08 / step)

    def y(v):
        return top + ph - ph * v / ymax

    s = []
    s.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" '
             f'font-size="12">')
    s.append(f'<rect width="{width}" height="{height}" fill="white"/>')
    s.append(f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15" '
             f'font-weight="bold">memmap_init_zone_device(): median of {doc["rebinds"]} rebinds, '
             f'{escape(size)} per device</text>')
    if accel == "tcg":
        sub = "QEMU TCG: emulated instruction work, not memory-system timing"
    elif accel == "kvm":
        sub = "QEMU KVM, -cpu host"
    else:
        sub = f"accel {accel}"
    s.append(f'<text x="{width / 2}" y="40" text-anchor="middle" fill="#444">'
             f'{escape(sub)}; whiskers: min-max; labels: x base median</text>')
    # Legend.
    lx = left + 10
    for b in BACKENDS:
        s.append(f'<rect x="{lx}" y="52" width="12" height="12" fill="{COLORS[b]}"/>')
        s.append(f'<text x="{lx + 16}" y="62">{escape(b)}</text>')
        lx += 30 + 8 * len(b)
    # Axes and grid.
    v = 0.0
    while v <= ymax + 1e-9:
        yy = y(v)
        s.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{left + pw}" y2="{yy:.1f}" '
                 f'stroke="#ddd" stroke-width="1"/>')
        s.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">{v:g}</text>')
        v += step
    s.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="black"/>')
    s.append(f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="black"/>')
    s.append(f'<text x="18" y="{top + ph / 2}" text-anchor="middle" '
             f'transform="rotate(-90 18 {top + ph / 2})">memmap init time (ms)</text>')
    group = pw / len(devices)
    bar = min(48.0, group * 0.8 / len(BACKENDS))
    for i, d in enumerate(devices):
        gx = left + group * i + (group - bar * len(BACKENDS)) / 2
        for j, b in enumerate(BACKENDS):
            r = find(results, d, b, "memmap_init_ns")
            x = gx + bar * j
            med, lo, hi = r["median"] / 1e6, r["min"] / 1e6, r["max"] / 1e6
            s.append(f'<rect x="{x + 2:.1f}" y="{y(med):.1f}" width="{bar - 4:.1f}" '
                     f'height="{max(0.0, y(0) - y(med)):.1f}" fill="{COLORS[b]}">'
                     f'<title>{escape(d)} {escape(b)}: median {med:.3f} ms, '
                     f'min {lo:.3f}, max {hi:.3f}, first bind {r["first"] / 1e6:.3f}</title></rect>')
            cx = x + bar / 2
            s.append(f'<line x1="{cx:.1f}" y1="{y(lo):.1f}" x2="{cx:.1f}" y2="{y(hi):.1f}" '
                     f'stroke="black" stroke-width="1.2"/>')
            for yy in (y(lo), y(hi)):
                s.append(f'<line x1="{cx - 5:.1f}" y1="{yy:.1f}" x2="{cx + 5:.1f}" '
                         f'y2="{yy:.1f}" stroke="black" stroke-width="1.2"/>')
            q = ratio(results, d, b, "memmap_init_ns")
            if b != "base" and q is not None:
                s.append(f'<text x="{cx:.1f}" y="{y(hi) - 5:.1f}" text-anchor="middle" '
                         f'font-size="11">{q:.2f}x</text>')
        s.append(f'<text x="{left + group * (i + 0.5):.1f}" y="{top + ph + 18}" '
                 f'text-anchor="middle" font-weight="bold">{escape(d)}</text>')
    hz = doc.get("kernels", {}).get("base", {}).get("hz")
    res = f"{1000 / hz:g} ms steps" if hz else "jiffy steps"
    notes = [f"base: pr_debug, counts jiffies ({res}); patched: tracepoint duration_ns (ktime)",
             "; ".join(x for x in (
                 f"kernel {doc.get('kernels', {}).get('base', {}).get('release') or '?'}",
                 doc.get("cpu_model"), doc.get("date")) if x)]
    if doc.get("host", {}).get("busy"):
        notes.append("host busy with other work during the run: noisy timings")
    for k, n in enumerate(notes):
        s.append(f'<text x="{left}" y="{top + ph + 46 + 16 * k}" fill="#444" '
                 f'font-size="11">{escape(n)}</text>')
    s.append("</svg>")
    return "\n".join(s) + "\n"


def write(path, text):
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(prog=PROG, description="Summarise bench.sh boots.")
    ap.add_argument("--run", action="append", default=[], metavar="BACKEND=OUT")
    ap.add_argument("--devices", required=True)
    ap.add_argument("--rebinds", required=True)
    ap.add_argument("--accel", default="unknown")
    ap.add_argument("--fact", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--kernel", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--probe")
    ap.add_argument("--no-probe", action="store_true",
                    help="record that the probe was skipped")
    ap.add_argument("--json")
    ap.add_argument("--svg")
    ap.add_argument("--text")
    try:
        a = ap.parse_args()
    except SystemExit as e:
        sys.exit(2 if e.code else 0)

    devices = a.devices.split(",")
    for d in devices:
        if d not in KNOWN_DEVICES:
            usage_error(f"--devices: unknown device '{d}' (known: {' '.join(KNOWN_DEVICES)})")
    if len(set(devices)) != len(devices):
        usage_error("--devices: a device is named twice")
    if not re.fullmatch(r"[1-9][0-9]*", a.rebinds):
        usage_error(f"--rebinds '{a.rebinds}': need a positive integer")
    rebinds = int(a.rebinds)
    paths = {}
    for r in a.run:
        label, sep, path = r.partition("=")
        if not sep or label not in BACKENDS or not path:
            usage_error(f"--run '{r}': need BACKEND=FILE with BACKEND one of {', '.join(BACKENDS)}")
        paths[label] = path
    missing = [b for b in BACKENDS if b not in paths]
    if missing:
        usage_error(f"--run missing for {', '.join(missing)}")

    try:
        runs = {b: parse_run(b, paths[b], devices, rebinds) for b in BACKENDS}
        doc = {}
        doc["accel"] = a.accel
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
        sizes = {}
        for k in ("nvdimm_bytes", "devprivate_bytes", "guest_ram_bytes"):
            if k in doc:
                sizes[k] = doc.pop(k)
        if "size" in doc:
            sizes["size"] = doc.pop("size")
        doc["sizes"] = sizes
        doc["rebinds"] = rebinds
        doc["devices"] = devices
        kernels = {}
        for kv in a.kernel:
            name, sep, d = kv.partition("=")
            if not sep:
                usage_error(f"--kernel '{kv}': need NAME=DIR")
            k = {"build": d}
            try:
                with open(os.path.join(d, "include/config/kernel.release"), encoding="utf-8") as f:
                    k["release"] = f.read().strip()
            except OSError:
                k["release"] = None
            kernels[name] = k
        for name, label in (("base", "base"), ("patched", "template")):
            info = runs[label][1]
            k = kernels.setdefault(name, {})
            k.setdefault("release", info.get("release"))
            k["version"] = info.get("version", "").replace("_", " ") or None
            k["memmap_init_source"] = info.get("memmap_init_source")
            if info.get("hz", "").isdigit():
                k["hz"] = int(info["hz"])
            if name == "patched":
                k["policies"] = {b: runs[b][1].get("policy") for b in BACKENDS[1:]}
        doc["kernels"] = kernels
        doc["results"] = aggregate(runs, devices, rebinds)
        if a.probe:
            try:
                with open(a.probe, encoding="utf-8") as f:
                    doc["probe"] = json.load(f)
            except (OSError, ValueError) as e:
                raise ReportError(f"cannot read the probe results {a.probe}: {e}")
        elif a.no_probe:
            doc["probe"] = None
    except ReportError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        sys.exit(1)

    text = table(doc, runs)
    sys.stdout.write(text)
    if a.text:
        write(a.text, text)
    if a.json:
        write(a.json, json.dumps(doc, indent=2) + "\n")
    if a.svg:
        write(a.svg, svg_chart(doc))


if __name__ == "__main__":
    main()
