#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Does a change of the code leave what the machine does as it was? Runs a
# set of firmware scenarios under -icount with two builds, A and B (each a
# QEMU binary and a directory of firmware images, e.g. main's build/ and a
# branch's), and compares, scenario by scenario, the guest's checks and
# METRICS lines and the device's timeline (every event, to the
# nanosecond; its first line, written at QEMU's exit, left out), as
# scripts/check-batch.sh does for x-batch. For a move in the device (hw/
# copro) run B's QEMU with A's images: everything must be identical.
#
# A change of the firmware's code, even a pure move, changes how many
# instructions the guest executes, and under -icount every instruction is
# a nanosecond: the times of what the OS does then move by a few ns, and
# a preemption may land a packet earlier or later. So for firmware moves
# the script also says whether the timelines are the same once times and
# the kernel's buffer cookies (record addresses, which move with the
# image's layout) are left out, and which METRICS fields differ.
#
#   compare-runs.sh QEMU_A IMAGES_A QEMU_B IMAGES_B [OUTDIR]
#
# COMPARE_BATCH (default "on") lists the x-batch settings B runs with (A
# runs with on); COMPARE_ONLY, if set, the names of the scenarios to run. The images are copied to one path before each run: the
# image's path is part of the command line the guest parses. Prints one
# line per scenario and run; exits 1 if any scenario failed to run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 4 ]; then
    echo "usage: $0 QEMU_A IMAGES_A QEMU_B IMAGES_B [OUTDIR]" >&2
    exit 2
fi
qemu_a=$(realpath "$1") img_a=$(realpath "$2")
qemu_b=$(realpath "$3") img_b=$(realpath "$4")
out=${5:-$(mktemp -d)}
mkdir -p "$out"
fixed=$out/images

# name image qemu args: the scenarios (short versions of the main ones,
# plus the driver-level ones the OS does not touch)
scenarios=(
    "desktop|desktop|-M q35 -device copro -append irq=msix duration_ms=500 hog_ms=300"
    "hog|hog|-M q35 -device copro,preempt=mid-command -append irq=msix hog_ms=500 frames_ms=250"
    "overlap|overlap|-M q35 -device copro -append irq=msix duration_ms=200"
    "oversubscribe|oversubscribe|-M q35 -device copro,vram=16M -append irq=msix percent=150 duration_ms=200"
    "paging|paging|-M q35 -device copro -append irq=msix"
    "display|display|-M q35 -device copro -append irq=msix"
    "fault|fault|-M q35 -device copro -append irq=msix"
    "packets|packets|-M q35 -device copro -append irq=msix"
    "tiledgame|tiledgame|-M q35 -device copro,engines=3,tile-ns=100000 -append irq=msix"
    "desktop-scenes|desktop|-M q35 -device copro,engines=3,tile-ns=20000 -append irq=msix scenes=1 tiled=1 tile_engine=2 duration_ms=300"
    "lifetimes|lifetimes|-M q35 -device copro,vram=16M -append irq=msix lives=300"
    "hostile|hostile|-M q35 -device copro -append irq=msix"
    "residency|residency|-M q35 -device copro -append irq=msix"
    "tdr|tdr|-M q35 -device copro,preempt=command -append irq=msix"
)

# run TAG QEMU IMAGES BATCH: every scenario; results in $out/TAG/
run_all() {
    local tag=$1 qemu=$2 img=$3 batch=$4 s name image args rest
    mkdir -p "$out/$tag"
    printf '#!/bin/sh\nexec "%s" -L /usr/share/seabios -L /usr/share/qemu "$@"\n' \
        "$qemu" >"$out/$tag/qemu-run"
    chmod +x "$out/$tag/qemu-run"
    rm -rf "$fixed"
    mkdir -p "$fixed"
    cp "$img"/*.elf "$fixed"/
    for s in "${scenarios[@]}"; do
        IFS='|' read -r name image args <<<"$s"
        selected "$name" || continue
        # the -append value is everything after -append, one argument
        rest=${args#*-append }
        args=${args%%-append *}
        # shellcheck disable=SC2086
        COPRO_TIMEOUT=${COPRO_TIMEOUT:-120} bash "$here/run-firmware.sh" \
            "$out/$tag/qemu-run" "$fixed/$image.elf" $args -append "$rest" \
            -icount shift=0,sleep=off -global "copro.x-batch=$batch" \
            -global copro.timeline=1048576 \
            -global "copro.x-timeline-file=$out/$tag/$name.tl" \
            >"$out/$tag/$name.log" 2>&1
        echo $? >"$out/$tag/$name.rc"
        grep -E '^(ok|not ok) [0-9]+ - |^# METRICS ' "$out/$tag/$name.log" \
            >"$out/$tag/$name.out"
        tail -n +2 "$out/$tag/$name.tl" >"$out/$tag/$name.events" 2>/dev/null
        rm -f "$out/$tag/$name.tl"
    done
}

selected() {
    [ -z "${COMPARE_ONLY:-}" ] || [[ " $COMPARE_ONLY " == *" $1 "* ]]
}

# the timeline without times, cookies numbered in order of appearance
normalize() {
    python3 -c '
import json, sys
ids = {}
for line in open(sys.argv[1]):
    line = line.strip().rstrip(",")
    if line.endswith("]}"):
        line = line[:-2]
    if not line.startswith("{"):
        continue
    ev = json.loads(line)
    ev.pop("time-ns", None)
    a = ev.get("args", {})
    if "buffer" in a:
        a["buffer"] = ids.setdefault(a["buffer"], len(ids))
    for k in list(a):
        if k.endswith("-ns"):
            a[k] = "*"
    print(json.dumps(ev, sort_keys=True))' "$1"
}

# the METRICS fields that differ
metrics_diff() {
    python3 -c '
import json, sys
def load(f):
    for l in open(f):
        if l.startswith("# METRICS "):
            return json.loads(l[len("# METRICS "):])
def walk(a, b, path, out):
    if isinstance(a, dict):
        for k in a:
            walk(a[k], b.get(k) if isinstance(b, dict) else None,
                 path + "." + k, out)
    elif isinstance(a, list):
        for i, x in enumerate(a):
            walk(x, b[i] if isinstance(b, list) and i < len(b) else None,
                 path + "[%d]" % i, out)
    elif a != b:
        out.append(path)
out = []
walk(load(sys.argv[1]) or {}, load(sys.argv[2]) or {}, "", out)
print(",".join(out) if out else "none")' "$1" "$2"
}

run_all a "$qemu_a" "$img_a" on
failed=false
for batch in ${COMPARE_BATCH:-on}; do
    run_all "b-$batch" "$qemu_b" "$img_b" "$batch"
    for s in "${scenarios[@]}"; do
        name=${s%%|*}
        selected "$name" || continue
        a=$out/a/$name b=$out/b-$batch/$name
        if [ "$(cat "$a.rc")" != 0 ] || [ "$(cat "$b.rc")" != 0 ] ||
           ! grep -q '^# METRICS ' "$b.out"; then
            failed=true
        fi
        checks="same checks"
        if ! cmp -s <(grep -v '^# METRICS' "$a.out") \
                    <(grep -v '^# METRICS' "$b.out"); then
            checks="checks' texts differ"
        fi
        if cmp -s "$a.out" "$b.out" && cmp -s "$a.events" "$b.events"; then
            verdict="identical"
        elif cmp -s <(normalize "$a.events") <(normalize "$b.events"); then
            verdict="same events, times differ; $checks; METRICS fields differing: $(metrics_diff "$a.out" "$b.out")"
        else
            verdict="events differ; $checks; METRICS fields differing: $(metrics_diff "$a.out" "$b.out")"
        fi
        echo "$name x-batch=$batch: $verdict (exit A $(cat "$a.rc"), B $(cat "$b.rc"); $(grep -c '^not ok' "$b.out") failed checks in B; $(wc -l <"$b.events") events)"
    done
done
echo "# results in $out"
! $failed
