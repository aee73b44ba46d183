# SPDX-License-Identifier: GPL-2.0
"""The benchmark's results format: the lines guest/tests/bench prints,
the runs, devices and metrics they name, and the errors reading them.

The guest prints, for every bind and device:

  BENCH device=D bind=K memmap_init_ns=T enable_ns=E backend=B events=C
        nr_pages=P tp_ns=X [threads=N] [online_ns=O online_events=M]
  BENCH-FLOOR device=D phase=pick|run cand=C rep=K nr_pages=P bytes=B ns=T
  BENCH-PHASE device=D bind=K path=F1/F2/F calls=N ns=T
  BENCH-NDCTL device=D bind=K list_ns=T
  BENCH-INFO key=value...
  BENCH-PLAN the guest's words, as it was given them

KNOWN_DEVICES, and what each device's memmap_init_ns times (INIT_OF) and
whether its lines name a backend (NO_BACKEND), come from
harness/bench/devices.txt, the one device list.  A device whose memmap
init is memory hotplug's (HOTPLUG) also gives online_ns= and
online_events=.
"""

import os
import re

BACKENDS = ["base", "template", "template+streaming"]
# The threaded runs: run label -> the backend their lines name.
THREADED = {"template-threads": "template",
            "template+streaming-threads": "template+streaming"}
# The base kernel booted as the threaded runs are, with every vCPU online
# (it still initializes on one thread): the base of their whole bind.
BASE_CPUS = "base-cpus"
# The busy host (bench.sh --busy): the template backend while a nice-0
# task spins on every vCPU but the first, on N threads -> held to one.
BUSY = {"template-threads-busy": "template-busy"}
# The runs whose binds may run on more than one thread.
MULTI = set(THREADED) | set(BUSY)
# A memory hotplug run (hotplug_run(): every device hot-added, bench.sh
# runs them apart): the hot-add path's memmap init has no streaming
# backend and never runs on several threads, so its runs are base,
# "template", the kernel with every series (patches/hotplug/'s template
# copy of the hot-added memmap among them), and FIRST, the first series'
# kernel, whose hot-add path is 7.3.4's: a control, where the two kernels
# are built apart.  Each on one thread.
FIRST = "first"
HOTPLUG_RUNS = ["base", FIRST, "template"]
# Run label -> the backend its lines name (a hotplug run's lines name
# none: FIRST's is what its guest is told, a patched kernel).
BACKEND_OF = dict(THREADED, **{BASE_CPUS: "base", FIRST: "template"},
                  **{b: "template" for kv in BUSY.items() for b in kv})
# Every run, in the table's order: each threaded run next to its own.
RUNS = ["base", BASE_CPUS, FIRST, "template", "template-threads", "template+streaming",
        "template+streaming-threads", "template-busy", "template-threads-busy"]
METRICS = ["memmap_init_ns", "enable_ns"]


def _read_devices():
    """devices.txt: NAME DEFAULT INIT BACKEND WHAT... a line per device."""
    path = os.path.join(os.path.dirname(__file__), "..", "devices.txt")
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, ln in enumerate(f, 1):
            if not ln.strip() or ln.startswith("#"):
                continue
            w = ln.split()
            if len(w) < 5 or w[1] not in ("yes", "no") or w[3] not in ("tracepoint", "-"):
                raise ValueError(f"{path}:{n}: want NAME yes|no INIT tracepoint|- WHAT, not {ln!r}")
            out[w[0]] = {"init": w[2], "backend": w[3]}
    return out


DEVICES = _read_devices()
KNOWN_DEVICES = list(DEVICES)
# The function whose calls each device's memmap_init_ns sums.
INIT_OF = {d: v["init"] for d, v in DEVICES.items()}
# The devices whose lines name no backend (devices.txt's BACKEND "-": no
# tracepoint on their path): backend=- is all the report takes from them.
NO_BACKEND = {d for d, v in DEVICES.items() if v["backend"] == "-"}
# Memory hotplug: memory hot-added as system RAM initializes its struct
# pages in memmap_init_range() (MEMINIT_HOTPLUG), called from
# online_pages() once per memory block onlined; the lines of a device
# timed there also give online_pages()'s calls (online_events=) and their
# summed time (online_ns=), the memmap init included.
HOTPLUG_INIT = "memmap_init_range"
ONLINE_FUNC = "online_pages"
HOTPLUG = {d for d, f in INIT_OF.items() if f == HOTPLUG_INIT}


def hotplug_run(devices):
    """Whether a run of these devices is a memory hotplug run (HOTPLUG_RUNS)."""
    return bool(devices) and set(devices) <= HOTPLUG


# A boot's plan as the guest gets it (bench.sh's plan lines, after run=
# and out=), in this order.
GUEST_WORDS = ["devices", "rebinds", "size_bytes", "expect", "threads"]
# What a run's plan line must give its guest: the backend its lines must
# name (BACKEND_OF, else the run's own name) and how it runs threads.
THREADS_OF = dict({r: "auto" for r in [*THREADED, BASE_CPUS]},
                  **{r: "busy" for r in BUSY}, **{r: "busy1" for r in BUSY.values()})
COMPARISONS = [("template", "base"), ("template+streaming", "base"),
               ("template+streaming", "template")]
# A memory hotplug run's: the control and the change against base, and the
# change against the control (the first series' kernel).
HOTPLUG_COMPARISONS = [(FIRST, "base"), ("template", "base"), ("template", FIRST)]
THREAD_COMPARISONS = [("template-threads", "template"),
                      ("template+streaming-threads", "template+streaming"),
                      ("template-threads", "base"), ("template+streaming-threads", "base")]
# The busy host's N threads against its one, and against the idle host's.
BUSY_COMPARISONS = [("template-threads-busy", "template-busy"),
                    ("template-threads-busy", "template-threads")]
COLORS = {"base": "#7f7f7f", BASE_CPUS: "#c7c7c7", FIRST: "#9467bd", "template": "#1f77b4",
          "template+streaming": "#ff7f0e",
          "template-threads": "#9ecae1", "template+streaming-threads": "#fdd0a2",
          "floor": "#2ca02c"}
# What held the emulated NVDIMM's contents (bench.sh --nvdimm-memory).
NVDIMM_MEMORY = {
    "ram": "NVDIMM contents in QEMU's anonymous memory, as guest RAM",
    "file": "NVDIMM contents in a file on the host (map=dev binds pay for "
            "the host's file)",
}
NUMERIC_FACTS = {"wall_s", "nproc", "other_qemu_max", "other_busy_pct_max", "guest_ram_bytes",
                 "guest_vcpus", "hz"}
WIDTH = 72
CONFIDENCE = 0.95
FLOOR_INSTRUMENT = "memremap_bench floor (ktime_get_ns)"

LINE_RE = re.compile(
    r"^BENCH device=(?P<device>\S+) bind=(?P<bind>\d+) memmap_init_ns=(?P<memmap_init_ns>\d+)"
    r" enable_ns=(?P<enable_ns>\d+) backend=(?P<backend>\S+) events=(?P<events>\d+)"
    r" nr_pages=(?P<nr_pages>\d+) tp_ns=(?P<tp_ns>\d+|-)(?: threads=(?P<threads>\d+))?"
    r"(?: online_ns=(?P<online_ns>\d+) online_events=(?P<online_events>\d+))?$")
NDCTL_RE = re.compile(
    r"^BENCH-NDCTL device=(?P<device>\S+) bind=(?P<bind>\d+) list_ns=(?P<ns>\d+)\s*$")
PHASE_RE = re.compile(
    r"^BENCH-PHASE device=(?P<device>\S+) bind=(?P<bind>\d+) path=(?P<path>[A-Za-z0-9_./]+) "
    r"calls=(?P<calls>\d+) ns=(?P<ns>\d+)\s*$")
# Phases whose time is the emulated NVDIMM's memory, read through the pmem
# driver (marked in the breakdown).
NVDIMM_PHASES = {"nd_pfn_validate", "nvdimm_setup_pfn", "disk_scan_partitions",
                 "device_add_disk"}
# The kernel's part of a whole bind (metric probe_ns): the outermost calls
# of the drivers' probes, or for devprivate of memremap_pages() (the
# module's own timing is its enable_ns), from the BENCH-PHASE lines.
# cxl-devdax: device_dax's probe (daxctl enable-device; no dax_pmem).
PROBE_FUNCS = ("nd_pmem_probe", "dax_pmem_probe")
# devdax-ram: device_dax letting go of the device, kmem's probe (the hot-add)
# and the onlining of each block.
PROBE_FUNCS_OF = {"devprivate": ("memremap_pages",), "cxl-devdax": ("dev_dax_probe",),
                  "devdax-ram": ("memunmap_pages", "dev_dax_kmem_probe", "online_pages")}
# How the whole bind (enable_ns) is timed, per device.
ENABLE_INSTRUMENT = "EPOCHREALTIME around ndctl"
ENABLE_INSTRUMENT_OF = {"devprivate": "memremap_bench ktime_get_ns around memremap_pages()",
                        "cxl-devdax": "EPOCHREALTIME around daxctl",
                        "devdax-ram": "EPOCHREALTIME around daxctl"}
FLOOR_RE = re.compile(
    r"^BENCH-FLOOR device=(?P<device>\S+) phase=(?P<phase>pick|run) cand=(?P<cand>[a-z0-9]+)"
    r" rep=(?P<rep>\d+) nr_pages=(?P<nr_pages>\d+) bytes=(?P<bytes>\d+) ns=(?P<ns>\d+)$")


class ReportError(Exception):
    pass
