#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Print the path of a pristine QEMU 10.0 source tree, fetching and unpacking
# Debian's source package into a cache directory the first time.
#
#   QEMU_SRC=/path   use that tree instead (checked to be QEMU 10.0)
#   COPRO_CACHE=dir  where to keep the unpacked source (default ~/.cache/copro)
#
# The cached tree is never modified: the overlay build copies it.
set -euo pipefail

# One line for make's step summary (scripts/step.sh), unless the caller is
# a build that only wants the path (COPRO_STEP_QUIET=1).
say() {
    [ -n "${COPRO_STEP_QUIET:-}" ] || echo "copro-step: $*" >&2
}

check_tree() {
    local v
    v=$(cat "$1/VERSION" 2>/dev/null || true)
    case "$v" in
    10.0.*) ;;
    *) echo "fetch-qemu: $1 is not a QEMU 10.0 tree (VERSION '$v')" >&2
       exit 1 ;;
    esac
}

if [ -n "${QEMU_SRC:-}" ]; then
    check_tree "$QEMU_SRC"
    realpath "$QEMU_SRC"
    exit 0
fi

cache=${COPRO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/copro}
mkdir -p "$cache"
cache=$(realpath "$cache")
for d in "$cache"/qemu-10.0.*/; do
    if [ -f "$d/.copro-unpacked" ]; then
        say "QEMU $(cat "$d/VERSION") (cached in $(realpath "$d"))"
        realpath "$d"
        exit 0
    fi
done

tmp=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(
    cd "$tmp"
    apt-get source -qq qemu/trixie >&2 ||
        apt-get source -qq qemu/bookworm-backports >&2
) || { echo "fetch-qemu: apt-get source qemu failed (run scripts/install-deps.sh)" >&2; exit 1; }
src=$(find "$tmp" -maxdepth 1 -type d -name 'qemu-*' | head -n1)
[ -n "$src" ] || { echo "fetch-qemu: no source tree unpacked" >&2; exit 1; }
check_tree "$src"
dest="$cache/qemu-$(cat "$src/VERSION")"
rm -rf "$dest"
mv "$src" "$dest"
touch "$dest/.copro-unpacked"
say "QEMU $(cat "$dest/VERSION") fetched into $dest"
realpath "$dest"
