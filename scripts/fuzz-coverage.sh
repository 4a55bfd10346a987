#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Line coverage of the device model (hw/copro/*.c) reached by the fuzz
# corpus, with clang's source-based coverage, as QEMU's
# docs/devel/testing/fuzzing.rst describes: a qemu-fuzz-x86_64 built with
# -fprofile-instr-generate -fcoverage-mapping runs every input of the
# corpus once (-runs=0), then llvm-profdata and llvm-cov read the profile.
#
#   fuzz-coverage.sh BUILD [CORPUS_DIR...]
#
# The corpus defaults to what `make fuzz` keeps: BUILD/fuzz/corpus and
# BUILD/fuzz/seeds. The coverage build lives in BUILD/qemu-fuzz-cov; the
# results in BUILD/fuzz-cov: report.txt (per file) and html/. The last
# line is the figure:
#   hw/copro line coverage: P% (covered of total lines), N inputs
set -euo pipefail

repo=$(realpath "$(dirname "$0")/..")
build=$(realpath "$1")
shift
corpora=("$@")
if [ ${#corpora[@]} = 0 ]; then
    corpora=("$build/fuzz/corpus" "$build/fuzz/seeds")
fi
out=$build/fuzz-cov
llvm_profdata=${LLVM_PROFDATA:-llvm-profdata}
llvm_cov=${LLVM_COV:-llvm-cov}

bash "$repo/scripts/build-qemu.sh" --variant=fuzz-cov "$repo" \
    "$build/qemu-fuzz-cov" "$out"

inputs=0
for d in "${corpora[@]}"; do
    [ -d "$d" ] || { echo "fuzz-coverage: no corpus $d (run make fuzz)" >&2; exit 1; }
    inputs=$((inputs + $(find "$d" -maxdepth 1 -type f ! -name '.*' | wc -l)))
done

rm -f "$out"/*.profraw "$out/fuzz.profdata"
# %p: libFuzzer may run inputs in child processes (-fork); one file each.
echo "fuzz-coverage: running $inputs inputs"
LLVM_PROFILE_FILE="$out/%p.profraw" ASAN_OPTIONS=detect_leaks=0 \
    "$out/qemu-fuzz-x86_64" --fuzz-target=generic-fuzz-copro -runs=0 \
    -timeout=60 -rss_limit_mb=4096 "${corpora[@]}" >"$out/run.log" 2>&1 ||
    { tail -n 20 "$out/run.log" >&2; echo "fuzz-coverage: corpus run failed" >&2; exit 1; }
"$llvm_profdata" merge -sparse -o "$out/fuzz.profdata" "$out"/*.profraw

# The coverage mapping names the device's files as the QEMU build saw them,
# through the tree's hw/copro symlink; map them back to the checkout.
cov_args=(-instr-profile="$out/fuzz.profdata"
          -path-equivalence="$build/qemu-fuzz-cov/build/../src/hw/copro,$repo/hw/copro")
files=()
for f in "$repo"/hw/copro/*.c; do
    case $f in *-stub.c) ;; *) files+=("$f") ;; esac   # the stub is not built
done
"$llvm_cov" report "$out/qemu-fuzz-x86_64" "${cov_args[@]}" "${files[@]}" \
    > "$out/report.txt"
"$llvm_cov" export -summary-only "$out/qemu-fuzz-x86_64" "${cov_args[@]}" \
    "${files[@]}" > "$out/summary.json"
rm -rf "$out/html"
"$llvm_cov" show "$out/qemu-fuzz-x86_64" "${cov_args[@]}" -format=html \
    -output-dir="$out/html" "${files[@]}"
cat "$out/report.txt"
# copro-monitor.c serves the host (info copro, x-query-copro): no guest
# input reaches it, so the first figure leaves it out.
python3 - "$out/summary.json" "$inputs" <<'PY'
import json, sys
files = json.load(open(sys.argv[1]))["data"][0]["files"]
def figure(fs):
    covered = sum(f["summary"]["lines"]["covered"] for f in fs)
    count = sum(f["summary"]["lines"]["count"] for f in fs)
    return covered, count, 100.0 * covered / max(count, 1)
c, n, p = figure([f for f in files if not f["filename"].endswith("copro-monitor.c")])
print(f"hw/copro line coverage without copro-monitor.c: {p:.2f}% ({c} of {n} lines)")
c, n, p = figure(files)
print(f"hw/copro line coverage: {p:.2f}% ({c} of {n} lines), {sys.argv[2]} inputs")
PY
