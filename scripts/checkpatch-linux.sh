#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Linux driver (guest-tools/linux) in the kernel's coding style:
# checkpatch.pl --strict of the fetched kernel (scripts/fetch-linux.sh keeps
# it with the kernel), every file clean. Exit 77 (skipped) without it.
set -euo pipefail
src=$1
kcache=$(bash "$src/scripts/fetch-linux.sh" --check 2>/dev/null) || {
    echo "checkpatch-linux: no fetched kernel (make deps)"; exit 77; }
cp=$kcache/checkpatch/checkpatch.pl
[ -f "$cp" ] || { echo "checkpatch-linux: $cp missing (make deps)"; exit 77; }
n=0
fail=0
for f in "$src"/guest-tools/linux/*.[ch] "$src"/guest-tools/linux/include/*.h \
         "$src"/guest-tools/linux/uapi/*.h; do
    n=$((n + 1))
    # a uapi header is userspace's too: no BIT() there, as upstream's
    case "$f" in */uapi/*) extra=--ignore=BIT_MACRO ;; *) extra= ;; esac
    # shellcheck disable=SC2086
    if out=$(perl "$cp" --strict --no-tree --terse --show-types $extra -f "$f" 2>&1); then
        echo "ok $n - ${f#"$src"/}"
    else
        echo "$out" | sed 's/^/# /'
        echo "not ok $n - ${f#"$src"/}"
        fail=$((fail + 1))
    fi
done
echo "1..$n"
echo "# $((n - fail)) passed, $fail failed"
[ "$fail" = 0 ]
