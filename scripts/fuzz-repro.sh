#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Turn a fuzzer artifact (crash-*, timeout-*, oom-* from make fuzz) into a
# minimal qtest-protocol reproducer, with QEMU's own tools
# (scripts/oss-fuzz/ in the QEMU tree):
#
#   fuzz-repro.sh BUILD ARTIFACT [OUTDIR]
#
#   1. libFuzzer shrinks the input while it still crashes (-minimize_crash)
#   2. the shrunk input runs once more with QTEST_LOG=1 and
#      FUZZ_SERIALIZE_QTEST=1: the fuzzer logs every qtest command it issues,
#      and reorder_fuzzer_qtest_trace.py moves the DMA fills before the
#      access that triggered them, giving a plain qtest trace
#   3. the trace is replayed by a real QEMU (-qtest stdio) built with
#      sanitizers when there is one (BUILD/sanitize, make check-sanitize),
#      and minimize_qtest_trace.py drops every command not needed for the
#      crash
#   4. output_reproducer.py prints it as a shell command and as a C qtest
#      function, to paste into tests/qtest/
#
# Results in OUTDIR (default ARTIFACT.repro/): input.min, trace,
# trace.min, repro.sh, repro.c. A trace that does not crash a real QEMU
# (the crash depended on fuzzer state) is reported and kept as it is.
set -euo pipefail

build=$(realpath "$1")
artifact=$(realpath "$2")
out=$(realpath -m "${3:-$artifact.repro}")
fuzzer=$build/fuzz/qemu-fuzz-x86_64
oss=$build/qemu-fuzz/src/scripts/oss-fuzz
target=generic-fuzz-copro
mkdir -p "$out"

export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1

echo "fuzz-repro: minimising $artifact"
case $(basename "$artifact") in
timeout-*) extra=(-timeout=20) ;;
*) extra=() ;;
esac
if ! "$fuzzer" --fuzz-target="$target" -minimize_crash=1 -max_total_time=300 \
        "${extra[@]}" -exact_artifact_path="$out/input.min" "$artifact" \
        >"$out/minimize.log" 2>&1 || [ ! -s "$out/input.min" ]; then
    cp "$artifact" "$out/input.min"
fi

echo "fuzz-repro: recording the qtest trace"
QTEST_LOG=1 FUZZ_SERIALIZE_QTEST=1 timeout -s KILL 60 \
    "$fuzzer" --fuzz-target="$target" "${extra[@]}" "$out/input.min" \
    >"$out/stdout.log" 2>"$out/qtest.log" || true
python3 "$oss/reorder_fuzzer_qtest_trace.py" "$out/qtest.log" >"$out/trace"
echo "fuzz-repro: $(wc -l <"$out/trace") commands in $out/trace"

# The machine the fuzzer ran, for a QEMU reading the trace on stdin.
read -r -a machine < <(sed -n 's/^Starting x86_64 with Arguments: //p' "$out/stdout.log" |
                       sed 's/ -qtest \/dev\/null//; s/accel=qtest,/accel=qtest/')
qemu=$build/sanitize/qemu-system-x86_64
[ -x "$qemu" ] || qemu=$build/qemu-system-x86_64
qemu_args=(-L /usr/share/seabios -L /usr/share/qemu "${machine[@]}" -qtest stdio)
echo "fuzz-repro: replaying with $qemu ${qemu_args[*]}"

# QEMU logs the qtest session on stderr and keeps running after the trace
# ends ("CLOSED"): the replay is over at CLOSED, at a crash, or after 60 s
# without either (a hang).
verdict=$(python3 - "$out/trace" "$out/replay.log" "$qemu" "${qemu_args[@]}" <<'PY'
import re, subprocess, sys, threading
trace, log, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
crash = re.compile(r"ERROR: AddressSanitizer|runtime error:|SUMMARY: \w+Sanitizer"
                   r"|assertion failed|should not be reached|^ERROR:|Aborted")
p = subprocess.Popen(cmd, stdin=open(trace), stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, text=True, errors="replace")
verdict = "hang"
timer = threading.Timer(60, p.kill)     # a hang prints nothing more
timer.start()
with open(log, "w") as f:
    for line in p.stdout:
        f.write(line)
        m = crash.search(line)
        if m:
            verdict = "crash " + line.strip()
            break
        if "CLOSED" in line:
            verdict = "none"
            break
    timer.cancel()
    p.kill()
    rest = p.communicate()[0] or ""
    f.write(rest)
    if verdict == "none":       # a crash at exit still counts
        for line in rest.splitlines():
            if crash.search(line):
                verdict = "crash " + line.strip()
                break
print(verdict)
PY
)
case $verdict in
crash*)
    token=${verdict#crash }
    echo "fuzz-repro: the trace crashes $qemu: $token"
    QEMU_PATH=$qemu QEMU_ARGS="${qemu_args[*]}" CRASH_TOKEN=$token \
        python3 "$oss/minimize_qtest_trace.py" -M1 -M2 "$out/trace" "$out/trace.min" \
        >"$out/minimize-trace.log" 2>&1 || cp "$out/trace" "$out/trace.min"
    ;;
hang)
    echo "fuzz-repro: the trace hangs $qemu (kept whole: QEMU's minimizer" \
         "only knows crashes)"
    cp "$out/trace" "$out/trace.min"
    ;;
*)
    echo "fuzz-repro: the trace does not crash $qemu: the input depended on" \
         "state the fuzzer carried over; see $out/replay.log" >&2
    cp "$out/trace" "$out/trace.min"
    ;;
esac
export QEMU_PATH=$qemu QEMU_ARGS="${qemu_args[*]}"
python3 "$oss/output_reproducer.py" -bash "$out/trace.min" >"$out/repro.sh"
python3 "$oss/output_reproducer.py" -c -name "test_fuzz_$(basename "$artifact" |
    tr -c 'a-zA-Z0-9\n' _ | cut -c1-24)" "$out/trace.min" >"$out/repro.c"
echo "fuzz-repro: $(wc -l <"$out/trace.min") commands in $out/trace.min;" \
     "$out/repro.sh and $out/repro.c"
