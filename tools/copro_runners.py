# SPDX-License-Identifier: GPL-2.0-or-later
"""The runners of workload files (docs/workloads.rst): the copro OS's
(the firmware image workload.elf under QEMU) and Linux's (guest-tools/
tools/copro-workload in a Linux guest). Both under -icount: the same run
twice gives the same figures (bit for bit on the copro OS).

    run_copro(w, build, policy=..., hwsched=..., preempt=...) -> dict
    run_linux(w, build, kernel, policy) -> dict

Each returns {"workload", "os", "policy", ..., "clients": [metrics...]}
with one metrics dict per client in the JSON schema of docs/workloads.rst,
completed with the ideal figures the description implies (add_ideals).
A description a runner cannot run raises WorkloadError naming the field.
"""

import dataclasses
import json
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import copro_workload as cw  # noqa: E402

LINUX_POLICIES = {"rr": 0, "fifo": 1, "fair": 2}
COPRO_POLICIES = ("fifo", "priority", "quantum", "joblist")
PREEMPT = ("none", "dma-buffer", "command", "mid-command")
# what the device adds to each job of three packets (TIMESTAMP, job,
# TIMESTAMP) and a signal: a bound, for the ideal
PACKETS_NS = 5000
VSYNC_NS = 1_000_000_000 // 60      # the device's default refresh
COPRO_ICOUNT = "shift=0,sleep=off"
# what else a Linux guest under -icount draws from the host: the random
# numbers QEMU gives it (RDRAND, its seeds) and the wall clock; and what
# it randomizes with them (the kernel's and processes' addresses)
LINUX_REPEATABLE = ["--qemu-arg=-seed", "--qemu-arg=1",
                    "--qemu-arg=-rtc",
                    "--qemu-arg=base=2026-01-01T00:00:00,clock=vm",
                    "--append", "nokaslr norandmaps"]
WLCLIENT_MAX_WS = 28                # firmware/apps/wlclient.h
LINUX_MAX_WS = 60                   # guest-tools/tools/copro-workload.c


class RunError(RuntimeError):
    """A run that did not complete: its output's tail says why."""


def _client_fields(w, i, c):
    """Client C's encoding (NAME:P:JPC:KVALUE:SLEEP:S:DEADLINE:START:STOP:
    CYCLES:WS_ALLOCS:WS_BYTES:DEP), the same for both runners."""
    names = [x.name for x in w.clients]
    kind = {"work_ns": "w", "fill_bytes": "f", "copy_bytes": "c"}
    return "%s:%s:%d:%s%d:%d:%s:%s:%d:%d:%d:%d:%d:%s" % (
        c.name, c.priority[0], c.jobs_per_cycle, kind[c.job.kind],
        c.job.value, c.sleep_us, c.submit[0],
        str(c.deadline_us) if c.present else "-", c.start_ms, c.stop_ms,
        c.cycles, c.allocations, c.allocation_bytes if c.allocations
        else 0, str(names.index(c.depends_on)) if c.depends_on else "-")


def _refuse(w, i, field, why):
    raise cw.WorkloadError(w.path, 0, "client[%d].%s" % (i, field), why)


def copro_args(w):
    """The workload image's command line for W (workload.c,
    wlclient_parse), or WorkloadError for what it does not take yet."""
    out = ["duration_ms=%d" % w.duration_ms, "wn=%d" % len(w.clients)]
    for i, c in enumerate(w.clients):
        if c.job.kind == "rect":
            _refuse(w, i, "job.rect", "not supported by the copro OS "
                    "runner yet")
        if c.allocations > WLCLIENT_MAX_WS:
            _refuse(w, i, "working_set", "at most %d allocations on the "
                    "copro OS (one DMA buffer's list)" % WLCLIENT_MAX_WS)
        out.append("wc%d=%s" % (i, _client_fields(w, i, c)))
    return out


def linux_args(w):
    """copro-workload's arguments for W (the copro OS image's encoding of
    each client), or WorkloadError for what the Linux runner does not
    take yet."""
    out = [str(w.duration_ms)]
    for i, c in enumerate(w.clients):
        if c.job.kind == "rect":
            _refuse(w, i, "job.rect", "not supported by the Linux runner "
                    "yet")
        if c.allocations > LINUX_MAX_WS:
            _refuse(w, i, "working_set", "at most %d allocations on Linux "
                    "(one submit's buffer list)" % LINUX_MAX_WS)
        out.append(_client_fields(w, i, c))
    return out


def add_ideals(w, metrics):
    """Completes each client's metrics with what the description implies:
    ideal cycles, elapsed time and GPU time (None where not predicted), and
    its share of the clients' GPU time."""
    total = sum(m["gpu_ns"] for m in metrics) or 1
    for c, m in zip(w.clients, metrics):
        ideal = cw.ideal_cycles(c, PACKETS_NS, VSYNC_NS if c.present else 0)
        m["ideal_cycles"] = ideal
        m["ideal_elapsed_ns"] = (c.stop_ms - c.start_ms) * 1_000_000
        m["ideal_gpu_ns"] = (cw.ideal_gpu_ns(c, m["cycles"], 0)
                             if ideal is not None else None)
        m["gpu_share"] = round(m["gpu_ns"] / total, 6)
    return metrics


def _lines(text, tag):
    return [json.loads(line.split(tag + " ", 1)[1])
            for line in text.splitlines() if (tag + " {") in line]


def device_params(items):
    """KEY=VALUE strings (the copro device's properties: preempt=command,
    packet-ns=1000, ...) as a dict, or ValueError."""
    out = {}
    for it in items or ():
        k, sep, v = it.partition("=")
        if not sep or not re.fullmatch(r"[a-z][a-z0-9-]*", k) or \
                not re.fullmatch(r"[A-Za-z0-9._-]+", v):
            raise ValueError("device parameter %r: KEY=VALUE" % it)
        out[k] = v
    return out


def with_seed(w, seed, jitter_ms):
    """W with each client's start moved by a pseudo-random offset in
    [0, jitter_ms] drawn from SEED (its phase against the others and the
    vsyncs: what a deterministic run can vary); seed 0: W itself."""
    if not seed or not jitter_ms:
        return w
    rng = random.Random(seed)
    clients = []
    for c in w.clients:
        room = c.stop_ms - c.start_ms - 1
        clients.append(dataclasses.replace(
            c, start_ms=c.start_ms + min(rng.randint(0, jitter_ms), room)))
    return dataclasses.replace(w, clients=clients)


def run_copro(w, build, policy="quantum", hwsched=False, preempt=None,
              quantum_us=None, trace=None, timeout=600, device=None):
    """Runs W on the copro OS (build/firmware/workload.elf under
    -icount). policy=joblist implies hardware scheduling. DEVICE: more of
    the device's properties, a dict."""
    if policy not in COPRO_POLICIES:
        raise ValueError("policy %r: one of %s" % (policy, COPRO_POLICIES))
    hwsched = hwsched or policy == "joblist"
    append = ["irq=msix", "policy=" + policy] + copro_args(w)
    if hwsched:
        append.append("hwsched=1")
    if quantum_us:
        append.append("quantum_us=%d" % quantum_us)
    props = dict(device or {})
    if preempt:
        props["preempt"] = preempt
    device = ",".join(["copro"] + ["%s=%s" % kv for kv in sorted(
        props.items())])
    env = dict(os.environ, COPRO_TIMEOUT=str(timeout))
    if trace:
        env["COPRO_TRACE"] = trace
    cmd = [os.path.join(ROOT, "scripts", "run-firmware.sh"),
           os.path.join(build, "qemu-run"),
           os.path.join(build, "firmware", "workload.elf"),
           "-M", "q35", "-device", device, "-icount", COPRO_ICOUNT,
           "-append", " ".join(append)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    metrics = _lines(out.stdout, "WORKLOAD")
    run = _lines(out.stdout, "WORKLOAD-RUN")
    if out.returncode or len(metrics) != len(w.clients) or len(run) != 1:
        raise RunError("the copro OS run failed (%s):\n" % " ".join(append) +
                       "\n".join(out.stdout.splitlines()[-15:]) + out.stderr)
    samples = {x["client"]: x["latency_ns"]
               for x in _lines(out.stdout, "WORKLOAD-SAMPLES")}
    for m in metrics:
        m.pop("os", None)
        m["latency_samples_ns"] = samples.get(m["client"], [])
    return {"workload": w.name, "os": "copro", "kernel": "copro",
            "policy": policy, "hwsched": int(hwsched),
            "preempt": props.get("preempt", "default"),
            "device": ",".join("%s=%s" % kv for kv in sorted(props.items())),
            "run": run[0],
            "clients": add_ideals(w, metrics)}


def run_linux(w, build, kernel, policy=None, timeout=900):
    """Runs W on Linux (build/linux-KERNEL) under that kernel's drm_sched
    POLICY (rr, fifo, fair; None: the kernel's default)."""
    cmd = [sys.executable, os.path.join(ROOT, "scripts", "run-linux.py"),
           "--quiet", "--qemu-python", os.path.join(build, "qemu", "src",
                                                    "python"),
           "--icount", "shift=1,sleep=off", "--timeout", str(timeout),
           "--run", "copro-workload " + " ".join(linux_args(w)),
           # the device's byte counters and vsync times are read from its
           # register BAR, which the driver holds (sysfs resource0)
           "--append", "iomem=relaxed"] + LINUX_REPEATABLE
    if policy:
        cmd += ["--append", "gpu_sched.sched_policy=%d" %
                LINUX_POLICIES[policy]]
    cmd += [os.path.join(build, "qemu-run"),
            os.path.join(build, "linux-" + kernel)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    metrics = _lines(out.stdout, "WORKLOAD")
    run = _lines(out.stdout, "WORKLOAD-RUN")
    if out.returncode or len(metrics) != len(w.clients) or len(run) != 1:
        raise RunError("the Linux run failed:\n" +
                       "\n".join(out.stdout.splitlines()[-15:]) + out.stderr)
    samples = {x["client"]: x["latency_ns"]
               for x in _lines(out.stdout, "WORKLOAD-SAMPLES")}
    # the processes print in the order they end: the file's order
    order = [c.name for c in w.clients]
    metrics.sort(key=lambda m: order.index(m["client"]))
    for m in metrics:
        m.pop("os", None)
        m["latency_samples_ns"] = samples.get(m["client"], [])
    run[0]["policy"] = policy or "default"
    return {"workload": w.name, "os": "linux", "kernel": kernel,
            "policy": policy or "default", "hwsched": 0,
            "preempt": "default", "device": "", "run": run[0],
            "clients": add_ideals(w, metrics)}


def linux_kernels(build):
    """The Linux guests built under BUILD and each one's drm_sched
    policies (FIFO and RR on 6.12; FAIR, FIFO and RR on 7.x)."""
    out = []
    for kernel, policies in (("trixie", ("fifo", "rr")),
                             ("trixie-backports", ("fair", "fifo", "rr"))):
        if os.path.isdir(os.path.join(build, "linux-" + kernel)):
            out.append((kernel, policies))
    return out
