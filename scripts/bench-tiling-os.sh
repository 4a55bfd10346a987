#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Scene-based scheduling in the OS (issue 19; make bench): figures, never
# assertions; virtual time under -icount, deterministic.
#
#   bench-tiling-os.sh QEMU_RUN FIRMWARE_DIR [DURATION_MS]
#
# 1. the desktop's compositor (HIGH, immediate mode, engine 0): its
#    submit-to-start latency p50/p99/max while long work of a lower
#    priority runs on its engine (the desktop with its cursor and video,
#    without its window game, game=0, so that the long work is what the
#    compositor meets), the one thing that differs per row:
#    - tile: a scene-based game (desktop tiled=1, NORMAL) whose 48-tile
#      passes (tile-ns=100000: 4.8 ms a pass) run on engine 0, preempted
#      between tiles, scenes back to back all the run long;
#    - mid-command / command: an immediate-mode hog (BELOW_NORMAL, no
#      tiled game, back to back all the run long) whose
#      WORK packets are as long as a tile pass (hog_packet_us=4800),
#      preempted inside a packet (mid-command) or only between packets
#      (command);
#    the cursor's (REALTIME) figures beside, and the long work's
#    preemptions;
# 2. the compositor composing immediate-mode against in scenes (scenes=1,
#    tile passes on engine 2; default tile-ns): VRAM bytes moved per
#    compositor frame (the engines' STAT_MEM_READ + _WRITE over the run,
#    all engines, divided by its frames) and its compose time (first
#    packet's start to last packet's end: geometry start to the frame's
#    buffer after the tile pass, in scenes), alone (game=0 video=0
#    hog=0: the desktop and the cursor on the pointer plane) and in the
#    whole desktop (whose applications draw the same in both); and the
#    bytes of a tile pass of the tiled game's scenes (engine 2 alone);
# 3. the tiled game scenario's compositor-like scene application: its
#    wait from its geometry's end to its tile pass's start over another
#    game's long tile passes (tile engine 2).
# Exit status 1 if a run failed (its line says so), 2 on bad usage.
set -u

here=$(dirname "$0")
. "$here/bench-firmware-lib.sh"
bench_init "$@"

dev=copro,engines=3,tile-ns=100000
# the hog's packet: as long as the tiled game's pass (48 tiles x 100 us)
hog="game=0 hog_packet_us=4800 hog_ms=1500"
# scenes for most of the run (a scene takes about 8.7 ms there: its
# pass, its geometry and the CPU's check of its pixels, so 200 take
# 1.75 s of 2 s); it must finish them all before the run stops
scenes=$((duration / 10))

bench_run tile desktop "$dev" \
    "game=0 tiled=1 tiled_frames=$scenes hog=0 duration_ms=$duration" &
bench_run mid-command desktop "$dev,preempt=mid-command" \
    "$hog duration_ms=$duration" &
wait
bench_run command desktop "$dev,preempt=command" \
    "$hog duration_ms=$duration" &
bench_run tiledgame tiledgame "$dev" "" &
wait
alone="game=0 video=0 hog=0 duration_ms=$duration"
scn="scenes=1 tile_engine=2"
bench_run imm-alone desktop copro,engines=3 "$alone" &
bench_run scn-alone desktop copro,engines=3 "$alone $scn" &
wait
bench_run imm-desk desktop copro,engines=3 "duration_ms=$duration" &
bench_run scn-desk desktop copro,engines=3 "duration_ms=$duration $scn" &
wait
bench_run tiled-e2 desktop "$dev" \
    "$alone tiled=1 tile_engine=2 tiled_frames=$scenes"
if [ -n "${BENCH_DIR:-}" ]; then
    for n in tile mid-command command tiledgame imm-alone scn-alone \
             imm-desk scn-desk tiled-e2; do
        cp "$tmp/$n.json" "$BENCH_DIR/tiling-os-$n.json"
    done
fi

python3 - "$tmp" "$duration" "$here" <<'PY' || status=1
import json
import os
import sys

sys.path.insert(0, sys.argv[-1])
from bench_metrics import Runs  # noqa: E402
from bench_metrics import fmt_ns as t, app  # noqa: E402

tmp = sys.argv[1]
runs = Runs(tmp)


print("compositor submit-to-start over long work on its engine (4.8 ms: "
      "a 48-tile pass, or one WORK packet); desktop, %s ms"
      % sys.argv[2])
print("%-12s %-28s %9s %9s %9s %9s %9s %6s %6s %9s" %
      ("row", "long work", "comp p50", "comp p99", "comp max",
       "cursor p99", "cur max", "missed", "late", "preempts"))
what = {
    "tile": ("tiled game, tile boundaries", "tiled"),
    "mid-command": ("hog, mid-command", "hog"),
    "command": ("hog, between packets", "hog"),
}
for row in ["tile", "mid-command", "command"]:
    m = runs.load(row)
    c, cur = app(m, "compositor"), app(m, "cursor")
    lw = app(m, what[row][1])
    if not c or not cur or not lw:
        print("%-12s (no figures)" % row)
        continue
    d = m["display"]
    # the tiled game's preemptions are its tile context's
    pre = m["tiled"]["tile_preemptions"] if "tiled" in m else \
        lw["preemptions"]
    print("%-12s %-28s %9s %9s %9s %9s %9s %6d %6d %9d" %
          (row, what[row][0], t(c["lat_p50_ns"]), t(c["lat_p99_ns"]),
           t(c["lat_max_ns"]), t(cur["lat_p99_ns"]), t(cur["lat_max_ns"]),
           d["missed_vblanks"], d["late_flips"], pre))
m = runs.load("tile")
tg = app(m, "tiled")
if tg:
    print("tiled game: %d scenes checked, tile-pass wait p50 %s p99 %s "
          "max %s (its own geometry end -> its pass start)" %
          (tg["frames"], t(tg["lat_p50_ns"]), t(tg["lat_p99_ns"]),
           t(tg["lat_max_ns"])))

print()
print("the compositor per frame, immediate against in scenes: VRAM bytes "
      "moved (all engines' STAT_MEM_READ + _WRITE over the run / its "
      "frames) and compose time")
print("%-30s %10s %10s %10s %10s %10s %9s" %
      ("", "read", "write", "total", "x", "compose", "max"))


def mib(b):
    return "%.2f MiB" % (b / 1048576.0)


def per_frame(name):
    m = runs.load(name)
    c = app(m, "compositor")
    if not c or not c["frames"] or "compositor" not in m:
        return None
    n = c["frames"]
    rd = sum(e["read"] for e in m["vram_bytes"]) / n
    wr = sum(e["write"] for e in m["vram_bytes"]) / n
    return rd, wr, m["compositor"]


for what, imm, scn in [("alone", "imm-alone", "scn-alone"),
                       ("desktop (all apps)", "imm-desk", "scn-desk")]:
    a, b = per_frame(imm), per_frame(scn)
    for label, r in [("immediate", a), ("scenes", b)]:
        if not r:
            print("%-30s (no figures)" % ("%s, %s" % (what, label)))
            continue
        ratio = (a[0] + a[1]) / max(r[0] + r[1], 1) if a else 0
        print("%-30s %10s %10s %10s %9.2fx %10s %9s" %
              ("%s, %s" % (what, label), mib(r[0]), mib(r[1]),
               mib(r[0] + r[1]), ratio, t(r[2]["compose_ns_avg"]),
               t(r[2]["compose_ns_max"])))
m = runs.load("tiled-e2")
if m and "tiled" in m and m["tiled"]["frames"]:
    e2 = [e for e in m["vram_bytes"] if e["engine"] == 2]
    n = m["tiled"]["frames"]
    if e2:
        print("%-30s %10s %10s %10s" %
              ("tiled game: a scene's pass", mib(e2[0]["read"] / n),
               mib(e2[0]["write"] / n),
               mib((e2[0]["read"] + e2[0]["write"]) / n)))

print()
# tiledgame's METRICS line has no failure count: the exit status says
try:
    with open(os.path.join(tmp, "tiledgame.json")) as f:
        tgm = json.loads(f.read())
    with open(os.path.join(tmp, "tiledgame.rc")) as f:
        rc = f.read().strip()
except (OSError, ValueError):
    tgm, rc = None, "?"
if not tgm or rc != "0":
    print("tiledgame: FAILED (exit %s)" % rc)
    runs.failed = True
else:
    print("tiledgame: a HIGH scene application's wait from geometry end "
          "to tile-pass start over a NORMAL game's 48-tile passes "
          "(engine 2): p99 %s, max %s; the game's passes preempted %d "
          "times" % (t(tgm["comp_wait_p99_ns"]), t(tgm["comp_wait_max_ns"]),
                     tgm["game_tile_preemptions"]))
sys.exit(1 if runs.failed else 0)
PY
exit $status
