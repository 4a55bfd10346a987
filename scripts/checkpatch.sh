#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run QEMU's checkpatch.pl on copro's QEMU-side sources.
#   checkpatch.sh QEMU_SRC FILE-OR-DIR...
# A directory stands for every .c and .h file in it, so that a new file is
# checked without being listed anywhere. Files are checked by their path
# inside the QEMU tree (hw/copro/..., tests/qtest/...), so checkpatch
# applies the rules of each directory.
set -uo pipefail
src=$1
shift
files=()
for a in "$@"; do
    if [ -d "$a" ]; then
        files+=("$a"/*.[ch])
    else
        files+=("$a")
    fi
done
[ "${#files[@]}" -gt 0 ] || { echo "checkpatch: no files" >&2; exit 1; }
fail=0
for f in "${files[@]}"; do
    case "$f" in
    */hw/copro/*) rel=hw/copro/$(basename "$f") ;;
    */tests/qtest/*) rel=tests/qtest/$(basename "$f") ;;
    *) rel=$f ;;
    esac
    if ! (cd "$src" && perl scripts/checkpatch.pl --no-tree -q -f "$rel"); then
        echo "checkpatch: $rel has problems" >&2
        fail=1
    fi
done
exit $fail
