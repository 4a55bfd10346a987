#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build qemu-system-x86_64 with the copro device, plus copro's qtest.
#
#   build-qemu.sh REPO OUTDIR [LINKDIR]
#
# The pristine QEMU 10.0 tree (scripts/fetch-qemu.sh) is copied once into
# OUTDIR/src, patched with scripts/qemu-overlay/copro.patch, and hw/copro
# plus the qtest sources are symlinked in, so editing them only recompiles
# what changed. The copy is redone only when the patch or the pristine tree
# changes. Results are hard-linked into LINKDIR (default OUTDIR):
# qemu-system-x86_64 and each of copro's qtests (tests/qtest/copro-qtests.txt).
set -euo pipefail

repo=$(realpath "$1")
out=$(realpath -m "$2")
links=$(realpath -m "${3:-$2}")
overlay=$repo/scripts/qemu-overlay
src=$out/src
bld=$out/build

# One build at a time per OUTDIR: a concurrent copy of the tree would
# interleave with this one.
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9

pristine=$("$repo/scripts/fetch-qemu.sh")
stamp="$pristine $(sha256sum "$overlay/copro.patch" | cut -d' ' -f1)"

if [ "$(cat "$src/.copro-stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "build-qemu: preparing $src from $pristine"
    rm -rf "$src.new"
    cp -a "$pristine" "$src.new"
    patch -s -p1 -d "$src.new" < "$overlay/copro.patch"
    rm -rf "$src"
    mv "$src.new" "$src"
    echo "$stamp" > "$src/.copro-stamp"
fi

# Links are refreshed every time: cheap, and they survive a moved checkout.
ln -sfn "$repo/hw/copro" "$src/hw/copro"
ln -sfn "$repo/include/copro" "$src/include/copro"
ln -sf "$repo/qapi/copro.json" "$src/qapi/copro.json"
ln -sf "$overlay/copro.mak" "$src/configs/devices/x86_64-softmmu/copro.mak"
for t in "$repo"/tests/qtest/*.[ch] "$repo"/tests/qtest/copro-qtests.txt; do
    ln -sf "$t" "$src/tests/qtest/$(basename "$t")"
done

# The UI: a graphic console for copro's display (pixman), PNG screendumps,
# VNC, and an SDL window for people who run QEMU by hand. Tests use
# -display none. A change of these options reconfigures from scratch.
config_opts=(--python=/usr/bin/python3
    --target-list=x86_64-softmmu
    --without-default-features --without-default-devices
    --with-devices-x86_64=copro
    --enable-tcg --disable-tools --disable-docs --disable-werror
    --disable-fdt --disable-download --disable-install-blobs
    --enable-pixman --enable-png --enable-vnc --enable-sdl
    --firmwarepath=/usr/share/seabios:/usr/share/qemu)
config_stamp="${config_opts[*]}"

if [ ! -f "$bld/build.ninja" ] ||
   [ "$(cat "$bld/.copro-config" 2>/dev/null)" != "$config_stamp" ]; then
    echo "build-qemu: configuring QEMU in $bld"
    rm -rf "$bld"
    mkdir -p "$bld"
    (cd "$bld" && "$src/configure" "${config_opts[@]}") >"$out/configure.log" 2>&1 ||
        { tail -n 30 "$out/configure.log" >&2; rm -f "$bld/build.ninja"; exit 1; }
    echo "$config_stamp" > "$bld/.copro-config"
fi

# the list QEMU's tests/qtest/meson.build reads too (see copro.patch)
mapfile -t qtests < "$repo/tests/qtest/copro-qtests.txt"
ninja -j "${COPRO_JOBS:-2}" -C "$bld" qemu-system-x86_64 "${qtests[@]/#/tests/qtest/}"
mkdir -p "$links"
ln -f "$bld/qemu-system-x86_64" "$links/qemu-system-x86_64"
for t in "${qtests[@]}"; do
    ln -f "$bld/tests/qtest/$t" "$links/$t"
done
