#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Linux guest's figures (make bench): never assertions.
#   1. boot: wall time from QEMU's start to /init and to a probed
#      /dev/dri/card0, and the guest's own uptime then, without -icount
#      (as fast as the host goes) and under -icount shift=1,sleep=off;
#   2. flips: 600 page flips with events under -icount (every flip on its
#      vblank?), the mean flip period and the spread of the vblank
#      timestamps (standard deviation over mean; goal below 0.1 %), and
#      the same without -icount (host scheduling shows there);
#   3. cursor moves per second and per vblank (asynchronous updates);
#   4. the render half against the copro OS on the same device (hog
#      latency split into the device's and the OS's share, jobs per
#      second through the ioctl path, Jain's index of 8 contexts), one
#      column per kernel the driver supports (LINUX_KERNELS=);
#   5. the hog on Linux at the other preemption granularities.
#
#   bench-linux.sh BUILDDIR
set -u
build=$1
here=$(dirname "$0")
# bench_metrics.py
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
# the guests of the kernels the driver supports (build/linux-<suite>):
# the render comparison runs on each, the rest on the newest
kernels=${LINUX_KERNELS:-trixie trixie-backports}
newest=${LINUX_KERNEL:-trixie-backports}
run() {
    python3 "$here/run-linux.py" --qemu-python "$build/qemu/src/python" "$@" \
        "$build/qemu-run" "$build/linux-$newest"
}
# run_on SUITE ARGS...: the same on another kernel's guest
run_on() {
    local k=$1
    shift
    python3 "$here/run-linux.py" --qemu-python "$build/qemu/src/python" "$@" \
        "$build/qemu-run" "$build/linux-$k"
}

boot() {
    local label=$1 start
    shift
    start=$(date +%s.%N)
    run "$@" --run 'true' | while IFS= read -r line; do
        case "$line" in
        "COPRO-INIT uptime"*)
            printf '  %-22s /init at %6.2f s wall, %s s guest\n' "$label" \
                "$(echo "$(date +%s.%N) - $start" | bc)" "${line##* }" ;;
        "COPRO-INIT card0"*)
            printf '  %-22s card0 at %6.2f s wall, %s s guest\n' "$label" \
                "$(echo "$(date +%s.%N) - $start" | bc)" "${line##* }" ;;
        esac
    done
    printf '  %-22s power-off at %6.2f s wall\n' "$label" \
        "$(echo "$(date +%s.%N) - $start" | bc)"
}

# BENCH_SHORT (make check's form, bench.sh --short): each figure once,
# under -icount, with small counts (the host-speed variants, the same code
# paths, are left out)
short=${BENCH_SHORT:-}
echo "== Linux guest: boot (Debian's kernel, PVH + qboot, the DRM stack and copro.ko) =="
[ -n "$short" ] || boot "no icount"
boot "icount shift=1" --icount shift=1,sleep=off
echo
echo "== Linux guest: 600 flips, vblank timestamps, cursor (copro-kmstest bench) =="
flip_modes=("shift=1,sleep=off" "")
[ -z "$short" ] || flip_modes=("shift=1,sleep=off")
for mode in "${flip_modes[@]}"; do
    echo "  ${mode:-no icount}${mode:+-icount $mode}:"
    run --quiet ${mode:+--icount "$mode"} --run 'copro-kmstest bench' |
        grep -E "BENCH|late|max error|ppm|exactly" | sed 's/^# //; s/^/    /'
done

# 4. the render half against the copro OS (issue 18): the same device, the
#    same preemption mode (mid-command), -icount shift=0,sleep=off on both
#    sides (1 ns per instruction: the OS's share is comparable).
echo
echo "== Linux (drm_sched, copro.ko) against the copro OS (vidsch): same device, preempt=mid-command, -icount shift=0 =="
hog_ms=${LINUX_HOG_MS:-${short:+200}}
hog_ms=${hog_ms:-2000}
frames_ms=${LINUX_FRAMES_MS:-${short:+100}}
frames_ms=${frames_ms:-1000}
njobs=${short:+200}
njobs=${njobs:-2000}
fair_ms=${short:+100}
fair_ms=${fair_ms:-500}
nbind=${short:+50}
nbind=${nbind:-1000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
COPRO_TIMEOUT=900 bash "$here/run-firmware.sh" "$build/qemu-run" \
    "$build/firmware/hog.elf" -M q35 -device copro,preempt=mid-command \
    -icount shift=0,sleep=off \
    -append "irq=msix hog_ms=$hog_ms frames_ms=$frames_ms" > "$tmp/os.out" 2>&1
sed -n 's/^# METRICS //p' "$tmp/os.out" | tail -n 1 > "$tmp/os.json"
# the firmware's render path: 1-NOP buffers through the kernel API from 1
# and from 8 contexts (scenarios/jobs.c), the same totals as copro-bench's
stamp() {
    while IFS= read -r line; do
        case "$line" in
        *BENCH-MARK*) echo "$line $(date +%s.%N)" ;;
        *) echo "$line" ;;
        esac
    done
}
COPRO_TIMEOUT=900 bash "$here/run-firmware.sh" "$build/qemu-run" \
    "$build/firmware/jobs.elf" -M q35 -device copro,preempt=mid-command \
    -icount shift=0,sleep=off -append "irq=msix jobs=$njobs" 2>&1 |
    stamp > "$tmp/osjobs.out"
# host-second figures: the guest marks the start and end of each jobs run
# job timeout 10 s (amdgpu's lockup_timeout): the hog is not a hang, and
# the timeout's preemption check is not what this table compares
linux_outs=()
for k in $kernels; do
    run_on "$k" --quiet --timeout 900 --icount shift=0,sleep=off \
        --device copro,preempt=mid-command --append copro.job_timeout_ms=10000 \
        --run "copro-bench hog $hog_ms $frames_ms; copro-bench jobs $njobs 1;
               copro-bench jobs $njobs 8; copro-bench fair 8 $fair_ms;
               copro-bench vmbind $nbind" |
        stamp > "$tmp/linux-$k.out"
    # the column's label: the kernel's release (build/linux-<suite>/kernel)
    linux_outs+=("Linux $(cut -d' ' -f1 "$build/linux-$k/kernel" | cut -d+ -f1)=$tmp/linux-$k.out")
done
python3 - "$tmp/os.json" "$tmp/osjobs.out" "${linux_outs[@]}" <<'PY'
import json
import re
import sys
from bench_metrics import fmt_ns as t

try:
    fw = json.loads(open(sys.argv[1]).read() or "{}")
except ValueError:
    fw = {}
# one column per kernel: (label, its lines, its METRICS)
cols = []
for arg in sys.argv[3:]:
    label, path = arg.split("=", 1)
    lines = open(path).read().splitlines()
    lx = [json.loads(m.group(1)) for m in
          (re.match(r"# METRICS (.*)", s) for s in lines) if m]
    cols.append((label, lines, lx))
W = " ".join(["%18s"] * (1 + len(cols)))


hogs = [next((m for m in lx if m["scenario"] == "hog"), {})
        for _, _, lx in cols]
hog = hogs[-1] if hogs else {}
rows = [("frames (60 Hz)", "frames", str),
        ("submit-to-start p50", "lat_median_ns", t),
        ("submit-to-start p99", "lat_p99_ns", t),
        ("submit-to-start max", "lat_max_ns", t),
        ("  device share p50", "dev_median_ns", t),
        ("  device share p99", "dev_p99_ns", t),
        ("  OS share p50", "os_median_ns", t),
        ("  OS share p99", "os_p99_ns", t),
        ("  OS share max", "os_max_ns", t),
        ("hog done (from submit)", "hog_done_ns", t),
        ("device preemptions", "dev_preemptions", str)]
print("  hog: %s ms LOW WORK + HIGH frames for %s ms" %
      (hog.get("hog_ms", "?"), hog.get("frames_ms", "?")))
print(("  %-26s " + W) % (("", "copro OS (vidsch)") +
                         tuple(c[0] for c in cols)))
for label, key, fmt in rows:
    vals = [fw.get(key)] + [h.get(key) for h in hogs]
    print(("  %-26s " + W) % ((label,) + tuple(
        "-" if v is None else fmt(v) for v in vals)))
for (name, _, _), h in zip(cols, hogs):
    if fw.get("os_median_ns") and h.get("os_median_ns"):
        print("  %s's OS share / the copro OS's: p50 %.1fx, p99 %.1fx "
              "(goal: within 3x)" %
              (name, h["os_median_ns"] / fw["os_median_ns"],
               h["os_p99_ns"] / max(fw["os_p99_ns"], 1)))


def jobs_runs(lines):
    """The jobs METRICS of a run, each with its host seconds (from the
    BENCH-MARK lines the runner stamped) or None."""
    ms = [json.loads(m.group(1)) for m in
          (re.match(r"(?:# )*METRICS (.*)", s) for s in lines) if m]
    mk = [float(s.split()[-1]) for s in lines if "BENCH-MARK" in s]
    out = []
    for i, m in enumerate(x for x in ms if x.get("scenario") == "jobs"):
        wall = mk[2 * i + 1] - mk[2 * i] if len(mk) >= 2 * i + 2 else None
        out.append((m, wall))
    return out


fwj = jobs_runs(open(sys.argv[2]).read().splitlines())
lxjs = [jobs_runs(lines) for _, lines, _ in cols]
print("  1-NOP jobs: the firmware's render path (kernel API, vidsch) "
      "against Linux's ioctl path (drm_sched)")
print(("  %-26s " + W) % (("", "copro OS (vidsch)") +
                         tuple(c[0] for c in cols)))
for nctx in (1, 8):
    f = next((r for r in fwj if r[0]["contexts"] == nctx), (None, None))
    xs = [next((r for r in lxj if r[0]["contexts"] == nctx), (None, None))
          for lxj in lxjs]

    def v(r):
        return "-" if r[0] is None else "%d" % r[0]["jobs_per_s"]

    def h(r):
        return "-" if r[0] is None or not r[1] else "%.0f" % (
            r[0]["jobs"] / r[1])

    print(("  %-26s " + W) % (("%d context%s: per virtual s" %
                               (nctx, "s" if nctx > 1 else ""), v(f)) +
                              tuple(v(x) for x in xs)))
    print(("  %-26s " + W) % (("  per host second", h(f)) +
                              tuple(h(x) for x in xs)))
if not fwj or any(r[0].get("failures") for r in fwj):
    print("  firmware jobs run FAILED:")
    print("\n".join("    " + s for s in open(sys.argv[3]).read()
                    .splitlines()[-10:]))
failed = False
for name, lines, lx in cols:
    for m in lx:
        if m["scenario"] == "vmbind":
            print("  %s: VM_BIND (64 KiB map + unmap, %d pairs): %d ops per "
                  "virtual s synchronous, %d asynchronous" %
                  (name, m["pairs"], m["sync_ops_per_s"],
                   m["async_ops_per_s"]))
        if m["scenario"] == "fair":
            print("  %s: %d equal contexts (two 1 ms jobs in flight each, "
                  "%d ms): Jain's index of device time %.4f" %
                  (name, m["contexts"], m["ms"], m["jain"]))
    if not lx:
        print("  %s run FAILED:" % name)
        print("\n".join("    " + s for s in lines[-10:]))
        failed = True
if failed or not cols:
    sys.exit(1)
PY

# 5. the hog on Linux at the other preemption granularities (bench-hog.sh
#    has the copro OS's): what the driver can do with what the device offers
echo
echo "== Linux: the hog at each preemption granularity (-icount shift=0) =="
modes="none dma-buffer command"
[ -z "$short" ] || modes=none
for mode in $modes; do
    run --quiet --timeout 900 --icount shift=0,sleep=off \
        --device "copro,preempt=$mode" \
        --run "copro-bench hog $hog_ms $frames_ms" |
        sed -n 's/^# METRICS //p' | python3 -c '
import json, sys
m = json.loads(sys.stdin.read() or "{}")
if not m:
    print("  preempt=%s: FAILED" % sys.argv[1]); sys.exit(1)
print("  preempt=%-11s submit-to-start p50 %.2f ms p99 %.2f ms max %.2f ms; "
      "hog done at %.3f s; %d preemptions" % (sys.argv[1],
      m["lat_median_ns"] / 1e6, m["lat_p99_ns"] / 1e6, m["lat_max_ns"] / 1e6,
      m["hog_done_ns"] / 1e9, m["dev_preemptions"]))' "$mode"
done
