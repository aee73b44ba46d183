# SPDX-License-Identifier: GPL-2.0
"""The benchmark's results format: the lines guest/tests/bench prints,
the runs, devices and metrics they name, and the errors reading them.

The guest prints, for every bind and device:

  BENCH device=D bind=K memmap_init_ns=T enable_ns=E backend=B events=C
        nr_pages=P tp_ns=X [threads=N]
  BENCH-FLOOR device=D phase=pick|run cand=C rep=K nr_pages=P bytes=B ns=T
  BENCH-PHASE device=D bind=K path=F1/F2/F calls=N ns=T
  BENCH-NDCTL device=D bind=K list_ns=T
  BENCH-INFO key=value...
  BENCH-PLAN the guest's words, as it was given them

KNOWN_DEVICES comes from harness/bench/devices.txt, the one device list.
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
# Run label -> the backend its lines name.
BACKEND_OF = dict(THREADED, **{BASE_CPUS: "base"},
                  **{b: "template" for kv in BUSY.items() for b in kv})
# Every run, in the table's order: each threaded run next to its own.
RUNS = ["base", BASE_CPUS, "template", "template-threads", "template+streaming",
        "template+streaming-threads", "template-busy", "template-threads-busy"]
METRICS = ["memmap_init_ns", "enable_ns"]
with open(os.path.join(os.path.dirname(__file__), "..", "devices.txt"), encoding="utf-8") as _f:
    KNOWN_DEVICES = [ln.split()[0] for ln in _f if ln.strip() and not ln.startswith("#")]
# A boot's plan as the guest gets it (bench.sh's plan lines, after run=
# and out=), in this order.
GUEST_WORDS = ["devices", "rebinds", "size_bytes", "expect", "threads"]
# What a run's plan line must give its guest: the backend its lines must
# name (BACKEND_OF, else the run's own name) and how it runs threads.
THREADS_OF = dict({r: "auto" for r in [*THREADED, BASE_CPUS]},
                  **{r: "busy" for r in BUSY}, **{r: "busy1" for r in BUSY.values()})
COMPARISONS = [("template", "base"), ("template+streaming", "base"),
               ("template+streaming", "template")]
THREAD_COMPARISONS = [("template-threads", "template"),
                      ("template+streaming-threads", "template+streaming"),
                      ("template-threads", "base"), ("template+streaming-threads", "base")]
# The busy host's N threads against its one, and against the idle host's.
BUSY_COMPARISONS = [("template-threads-busy", "template-busy"),
                    ("template-threads-busy", "template-threads")]
COLORS = {"base": "#7f7f7f", BASE_CPUS: "#c7c7c7", "template": "#1f77b4",
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
    r" nr_pages=(?P<nr_pages>\d+) tp_ns=(?P<tp_ns>\d+|-)(?: threads=(?P<threads>\d+))?$")
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
PROBE_FUNCS_OF = {"devprivate": ("memremap_pages",), "cxl-devdax": ("dev_dax_probe",)}
# How the whole bind (enable_ns) is timed, per device.
ENABLE_INSTRUMENT = "EPOCHREALTIME around ndctl"
ENABLE_INSTRUMENT_OF = {"devprivate": "memremap_bench ktime_get_ns around memremap_pages()",
                        "cxl-devdax": "EPOCHREALTIME around daxctl"}
FLOOR_RE = re.compile(
    r"^BENCH-FLOOR device=(?P<device>\S+) phase=(?P<phase>pick|run) cand=(?P<cand>[a-z0-9]+)"
    r" rep=(?P<rep>\d+) nr_pages=(?P<nr_pages>\d+) bytes=(?P<bytes>\d+) ns=(?P<ns>\d+)$")


class ReportError(Exception):
    pass
