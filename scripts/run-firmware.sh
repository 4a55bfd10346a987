#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Boot a firmware scenario image under QEMU (TCG) and report it as TAP.
#
#   run-firmware.sh QEMU_RUN IMAGE [qemu args...]
#
# QEMU_RUN is a QEMU binary or wrapper script (build/qemu-run); run
# directly if executable, else through sh. The machine is q35 unless the
# arguments carry -M/-machine (or COPRO_MACHINE is set). COPRO_TIMEOUT
# (seconds, default 60) bounds the run.
#
# The guest prints PASS:/FAIL:/SKIP: lines (firmware/lib/report.h); they
# become "ok N - msg", "not ok N - msg", "ok N - msg # SKIP". Every other
# guest or QEMU line is passed through as a TAP comment. QEMU's exit status
# (isa-debug-exit: (code << 1) | 1) decides the outcome:
#   1        guest reported success
#   3        guest reported failure
#   0        guest never reached isa-debug-exit: crash (e.g. triple fault
#            under -no-reboot)
#   127      guest aborted (fw_exit(FW_EXIT_ABORT), e.g. a CPU exception)
#   124/137  timeout
#   other    failure
# Exit status: 0 only if the guest passed and every check passed.
#
# COPRO_TRACE=NAME.trace.json also saves the run's timeline
# (docs/specs/copro.rst, "Timeline"; COPRO_TRACE_EVENTS events, default
# 1048576) as NAME.timeline.json and converts it with tools/copro-trace
# into NAME.trace.json, a trace Perfetto opens (one more TAP check says
# whether that worked).
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 QEMU_RUN IMAGE [qemu args...]" >&2
    exit 2
fi
qemu_run=$1
image=$2
shift 2
timeout_s=${COPRO_TIMEOUT:-60}

if [ ! -f "$image" ]; then
    echo "Bail out! firmware image $image not found"
    exit 1
fi

if [ -x "$qemu_run" ]; then
    qemu=("$qemu_run")
else
    qemu=(sh "$qemu_run")
fi

timeline=()
if [ -n "${COPRO_TRACE:-}" ]; then
    raw=${COPRO_TRACE%.json}
    raw=${raw%.trace}.timeline.json     # NAME.trace.json: NAME.timeline.json
    rm -f "$raw"
    timeline=(-global "copro.timeline=${COPRO_TRACE_EVENTS:-1048576}"
              -global "copro.x-timeline-file=$raw")
fi

machine=()
has_machine=false
for a in "$@"; do
    case $a in
    -M|-machine|--machine|-M*|-machine=*|--machine=*) has_machine=true ;;
    esac
done
if ! $has_machine; then
    machine=(-M "${COPRO_MACHINE:-q35}")
fi

n=0
failed=false
summary_seen=false

tap_line() {    # ok|not ok, message[, directive]
    n=$((n + 1))
    echo "$1 $n - $2${3:+ # $3}"
}

# stdin from /dev/null: the guest reads nothing, and QEMU must not put the
# caller's terminal into raw mode. stderr is merged so QEMU's own errors
# show up as comments.
while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    case $line in
    PASS:*) tap_line "ok" "${line#PASS: }" ;;
    FAIL:*) tap_line "not ok" "${line#FAIL: }"; failed=true ;;
    SKIP:*) tap_line "ok" "${line#SKIP: }" SKIP ;;
    SUMMARY:*) summary_seen=true; echo "# $line" ;;
    *) echo "# $line" ;;
    esac
done < <(timeout -k 5 "$timeout_s" "${qemu[@]}" "${machine[@]}" \
             -accel tcg -m 256 -no-reboot -nodefaults -display none \
             -serial stdio -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
             -kernel "$image" "${timeline[@]}" "$@" </dev/null 2>&1)
wait $!
status=$?

case $status in
1)
    if ! $summary_seen; then
        # QEMU itself also exits 1 when it fails to start (bad option).
        tap_line "not ok" "QEMU exited with status 1 but the guest printed no SUMMARY (QEMU error?)"
        failed=true
    fi
    ;;
3)
    if ! $failed; then
        tap_line "not ok" "guest reported failure (exit status 3)"
    fi
    failed=true
    ;;
0)
    tap_line "not ok" "guest exited without reporting (crash?)"
    failed=true
    ;;
127)
    tap_line "not ok" "guest aborted (exit status 127: unhandled exception or internal error)"
    failed=true
    ;;
124|137)
    tap_line "not ok" "timeout after ${timeout_s}s"
    failed=true
    ;;
*)
    tap_line "not ok" "QEMU exited with status $status"
    failed=true
    ;;
esac

if [ -n "${COPRO_TRACE:-}" ]; then
    if summary=$(python3 "$(dirname "$0")/../tools/copro-trace" "$raw" \
                     -o "$COPRO_TRACE" --summary 2>&1); then
        echo "# ${summary#copro-trace: }"
        tap_line "ok" "timeline saved: $COPRO_TRACE (open it in https://ui.perfetto.dev)"
    else
        echo "# $summary"
        tap_line "not ok" "timeline of the run could not be saved"
        failed=true
    fi
fi

echo "1..$n"
if $failed; then
    exit 1
fi
exit 0
