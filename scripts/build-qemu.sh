#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build qemu-system-x86_64 with the copro device, plus copro's qtest.
#
#   build-qemu.sh [--variant=VARIANT] REPO OUTDIR [LINKDIR]
#
# VARIANT says which QEMU and with which compiler; each needs its own OUTDIR:
#   plain     (default) qemu-system-x86_64 and copro's qtests, host compiler
#   asan      the same with AddressSanitizer and UndefinedBehaviorSanitizer
#             (make check-sanitize)
#   fuzz      qemu-fuzz-x86_64: clang, libFuzzer, ASan and UBSan (make fuzz)
#   fuzz-cov  qemu-fuzz-x86_64 with clang source-based coverage and no
#             sanitizer, to measure what a fuzz corpus reaches (make
#             fuzz-coverage)
# The variants compile through ccache when it is installed: they are
# rebuilt from scratch more often (CI, a changed configure line), and they
# must not slow the plain build, which is left as it was. CC overrides the
# compiler of the asan variant (default gcc, the compiler of the plain
# build); the fuzz variants need clang (CLANG, default clang).
#
# The pristine QEMU 10.0 tree (scripts/fetch-qemu.sh) is copied once into
# OUTDIR/src, patched with scripts/qemu-overlay/copro.patch, and hw/copro
# plus the qtest sources are symlinked in, so editing them only recompiles
# what changed. The copy is redone only when the patch or the pristine tree
# changes. Results are hard-linked into LINKDIR (default OUTDIR):
# qemu-system-x86_64 and each of copro's qtests (tests/qtest/copro-qtests.txt).
set -euo pipefail

variant=plain
case "${1:-}" in
--variant=*) variant=${1#--variant=}; shift ;;
esac

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

pristine=$(COPRO_STEP_QUIET=1 "$repo/scripts/fetch-qemu.sh")
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

ccache=$(command -v ccache || true)
# Objects are cached by their path relative to the QEMU build directory, so
# another checkout's build (a git worktree, a second build directory)
# reuses this one's.
export CCACHE_BASEDIR=$out
config=(--python=/usr/bin/python3
        --target-list=x86_64-softmmu
        --without-default-features --without-default-devices
        --with-devices-x86_64=copro
        --enable-tcg --disable-tools --disable-docs --disable-werror
        --disable-fdt --disable-download --disable-install-blobs
        --firmwarepath=/usr/share/seabios:/usr/share/qemu
        # the UI: a graphic console for copro's display (pixman), PNG
        # screendumps, VNC; tests use -display none
        --enable-pixman --enable-png --enable-vnc)
# the list QEMU's tests/qtest/meson.build reads too (see copro.patch)
mapfile -t qtests < "$repo/tests/qtest/copro-qtests.txt"
outputs=(qemu-system-x86_64 "${qtests[@]/#/tests/qtest/}")
jobs=()
case $variant in
plain)
    # an SDL window for people who run QEMU by hand
    config+=(--cc="${ccache:+$ccache }${CC:-gcc}" --enable-sdl)
    ;;
asan)
    # Frame pointers: ASan's fast unwinder needs them for whole stacks.
    config+=(--cc="${ccache:+$ccache }${CC:-gcc}" --enable-asan --enable-ubsan
             --extra-cflags=-fno-omit-frame-pointer)
    ;;
fuzz|fuzz-cov)
    clang=${CLANG:-clang}
    config+=(--cc="${ccache:+$ccache }$clang" --cxx="${ccache:+$ccache }$clang++"
             --enable-fuzzing)
    if [ "$variant" = fuzz ]; then
        config+=(--enable-asan --enable-ubsan
                 --extra-cflags=-fno-omit-frame-pointer)
    else
        config+=("--extra-cflags=-fprofile-instr-generate -fcoverage-mapping"
                 --extra-ldflags=-fprofile-instr-generate)
    fi
    outputs=(qemu-fuzz-x86_64)
    ;;
*)
    echo "build-qemu: unknown variant '$variant' (plain, asan, fuzz, fuzz-cov)" >&2
    exit 2
    ;;
esac
# Other people build on the same machine: two jobs unless COPRO_JOBS says.
jobs=(-j "${COPRO_JOBS:-2}")

# Configure again whenever the configure line changes (a new variant option,
# another compiler); an unchanged line keeps the build tree.
config_stamp=$(printf '%q ' "${config[@]}")
if [ ! -f "$bld/build.ninja" ] ||
   [ "$(cat "$bld/.copro-configure" 2>/dev/null)" != "$config_stamp" ]; then
    echo "build-qemu: configuring QEMU ($variant) in $bld"
    rm -rf "$bld"
    mkdir -p "$bld"
    (cd "$bld" && "$src/configure" "${config[@]}") >"$out/configure.log" 2>&1 ||
        { tail -n 30 "$out/configure.log" >&2; rm -f "$bld/build.ninja"; exit 1; }
    echo "$config_stamp" > "$bld/.copro-configure"
fi

ninja -C "$bld" "${jobs[@]}" "${outputs[@]}"
mkdir -p "$links"
for t in "${outputs[@]}"; do
    ln -f "$bld/$t" "$links/$(basename "$t")"
done
