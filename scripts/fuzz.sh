#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Coverage-guided fuzzing of the copro device, the way QEMU fuzzes its
# devices upstream: libFuzzer drives qemu-fuzz-x86_64's generic-fuzz target
# with the copro configuration (generic-fuzz-copro, added to QEMU's
# tests/qtest/fuzz/generic_fuzz_configs.h by scripts/qemu-overlay/copro.patch).
#
#   fuzz.sh BUILD SECONDS
#
# BUILD is the project's build directory, already built (`make build`): its
# QEMU and qtests record the seeds. Everything else lives in BUILD/fuzz:
#   qemu-fuzz-x86_64  the fuzzer (its QEMU build tree is BUILD/qemu-fuzz)
#   seeds/            seed corpus: copro's qtests replayed as generic-fuzz
#                     inputs (scripts/fuzz-seeds.py), remade when the qtests
#                     change
#   corpus/           what the fuzzer found interesting; kept between runs,
#                     so that each campaign starts where the last one ended
#   crashes/          crash-*, timeout-*, oom-* reproducers
#   last.log          libFuzzer's output of the last run
#
# FUZZ_ARGS adds libFuzzer options (e.g. "-fork=1 -ignore_crashes=1" for a
# long campaign that keeps going after a crash). COPRO_JOBS bounds the build.
# Exit status: 0 when the run ended without a crash, hang or OOM.
set -euo pipefail

repo=$(realpath "$(dirname "$0")/..")
build=$(realpath "$1")
seconds=$2
fuzz=$build/fuzz
target=generic-fuzz-copro
mkdir -p "$fuzz/corpus" "$fuzz/crashes"

bash "$repo/scripts/build-qemu.sh" --variant=fuzz "$repo" "$build/qemu-fuzz" "$fuzz"

# Seeds: run the qtests against the plain QEMU with QTEST_LOG, which makes
# QEMU echo every qtest command to stderr, and convert each QEMU session.
# The migration test is left out (two QEMUs at once interleave their logs),
# and so are the hwsched test's migration case and the benchmark.
mapfile -t qtests < <(grep -v -e copro-migration -e copro-bench \
                          "$repo/tests/qtest/copro-qtests.txt")
stale=false
for t in "${qtests[@]}"; do
    if [ ! -f "$fuzz/seeds/.stamp" ] || [ "$build/$t" -nt "$fuzz/seeds/.stamp" ]; then
        stale=true
    fi
done
if $stale; then
    echo "fuzz: recording seeds from ${qtests[*]}"
    rm -rf "$fuzz/seeds" "$fuzz/logs"
    mkdir -p "$fuzz/logs"
    for t in "${qtests[@]}"; do
        # Through a pipe: QEMU reopens /dev/fd/2 for its log, which would
        # truncate a file at every QEMU the test starts.
        QTEST_LOG=1 QTEST_QEMU_BINARY="$build/tests/qemu-system-x86_64" \
            G_TEST_DBUS_DAEMON=/bin/true \
            "$build/$t" -s /x86_64/copro/hwsched/migration \
            2>&1 >/dev/null | cat >"$fuzz/logs/$t.log" ||
            echo "fuzz: $t failed while recording (seeds kept)" >&2
    done
    python3 "$repo/scripts/fuzz-seeds.py" "$fuzz/seeds" "$fuzz"/logs/*.log
    touch "$fuzz/seeds/.stamp"
fi

# Leaks are not checked (as in QEMU's own OSS-Fuzz build): QEMU frees much
# of its state through RCU and at exit, so per-input leak checks would
# report it. ASan and UBSan reports abort the input and count as crashes.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:print_summary=1
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1:print_summary=1

# -timeout: an input that runs this long is a hang (an engine that never
# yields holds the main loop); -max_len matches the seeds' cut.
echo "fuzz: $target for ${seconds}s"
before=$(find "$fuzz/crashes" -type f | sort)
start=$(date +%s)
set +e
# shellcheck disable=SC2086 # FUZZ_ARGS is a list of options
"$fuzz/qemu-fuzz-x86_64" --fuzz-target="$target" \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
    -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$fuzz/crashes/" ${FUZZ_ARGS:-} \
    "$fuzz/corpus" "$fuzz/seeds" >"$fuzz/last.log" 2>&1
rc=$?
set -e
elapsed=$(($(date +%s) - start))

# Executions: the larger of the final statistics (a plain run; in -fork
# mode the parent's own, 0) and the last status line ("#N: ..." in -fork
# mode, "#N<tab>..." otherwise).
runs=0
for n in $(sed -n 's/^stat::number_of_executed_units: *//p' "$fuzz/last.log" | tail -n1) \
         $(sed -n 's/^#\([0-9]*\)[:\t].*/\1/p' "$fuzz/last.log" | tail -n1); do
    if [ "$n" -gt "$runs" ]; then
        runs=$n
    fi
done
cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$fuzz/last.log" | tail -n1 || true)
new_artifacts=$(comm -13 <(echo "$before") <(find "$fuzz/crashes" -type f | sort) |
                sed '/^$/d')
crashes=$(echo -n "$new_artifacts" | grep -c . || true)
# A running total over the campaigns kept in this corpus.
echo "$(date -u +%FT%TZ) seconds=$elapsed runs=$runs crashes=$crashes rc=$rc" \
    >> "$fuzz/history"
total=$(awk -F'runs=' '{ split($2, a, " "); t += a[1] } END { print t + 0 }' \
            "$fuzz/history")
echo "fuzz: $runs executions in ${elapsed}s, ${cov:-no coverage line}," \
     "corpus $(find "$fuzz/corpus" -type f | wc -l) inputs, $crashes crashes" \
     "(all runs of this corpus: $total executions)"
if [ "$crashes" != 0 ] || [ "$rc" != 0 ]; then
    grep -E -m5 -A3 '(ERROR|SUMMARY|Test unit written to)' "$fuzz/last.log" >&2 || true
    for a in $new_artifacts; do
        echo "fuzz: reproducer $a (scripts/fuzz-repro.sh $1 $a)" >&2
    done
    echo "fuzz: failed (exit status $rc); log: $fuzz/last.log" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
echo "1 passed, 0 failed"
