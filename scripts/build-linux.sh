#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build the Linux guest into OUT (build/linux): the copro module against the
# fetched kernel's headers (scripts/fetch-linux.sh, run by make deps), the
# guest-side test program, and the initramfs; vmlinux is linked from the
# cache. Rebuilds only what changed (make decides for the module).
#
#   build-linux.sh SRCROOT OUT [STAMP] [KERNEL]
#
# KERNEL (trixie or trixie-backports, default LINUX_KERNEL or the newest):
# which fetched kernel. The module is built inside the trixie tree
# fetch-linux.sh made (the headers' programs need trixie's libc and
# gcc-14), in a directory of that tree named after OUT.
set -euo pipefail

src=$1
out=$2
stamp=${3:-}
kernel=${4:-${LINUX_KERNEL:-}}
# shellcheck disable=SC2086
kcache=$(bash "$src/scripts/fetch-linux.sh" --check $kernel)
release=$(cat "$kcache/release")
root=$(cat "$kcache/chroot")
kdir=/usr/src/linux-headers-$release

mkdir -p "$out"
out=$(cd "$out" && pwd)
# the module's build directory lives in the tree, where Kbuild runs
mod=/copro-build/$(echo "$out" | md5sum | cut -c1-12)
mkdir -p "$root$mod"
ln -sfn "$root$mod" "$out/module"
# Kbuild writes its objects next to the sources: build a copy in OUT
for f in "$src"/guest-tools/linux/*.[ch] "$src"/guest-tools/linux/Kbuild \
         "$src"/guest-tools/linux/Makefile; do
    cmp -s "$f" "$out/module/$(basename "$f")" || cp "$f" "$out/module/"
done
mkdir -p "$out/module/include" "$out/module/uapi"
cmp -s "$src/guest-tools/linux/include/stdint.h" "$out/module/include/stdint.h" ||
    cp "$src/guest-tools/linux/include/stdint.h" "$out/module/include/"
cmp -s "$src/guest-tools/linux/uapi/copro_drm.h" "$out/module/uapi/copro_drm.h" ||
    cp "$src/guest-tools/linux/uapi/copro_drm.h" "$out/module/uapi/"
mkdir -p "$out/module/abi/copro"
for f in "$src"/include/copro/*.h; do
    cmp -s "$f" "$out/module/abi/copro/$(basename "$f")" || cp "$f" "$out/module/abi/copro/"
done
# /proc in the tree (7.x's objtool reads its limits there), mounted in a
# mount namespace of this build's own: gone when it ends, and two builds
# at once do not race on it
unshare --mount --fork sh -c 'mount -t proc proc "$1/proc" && shift && exec chroot "$@"' \
    sh "$root" "$root" make -s -C "$kdir" M="$mod" COPRO_ABI="$mod/abi" modules \
    >"$out/module/build.log" 2>&1 || {
    cat "$out/module/build.log" >&2
    echo "build-linux: building the copro module against $kdir failed" >&2
    exit 1
}
grep -i "warning\|error" "$out/module/build.log" | grep -v "Skipping BTF" >&2 || true

tests=$src/guest-tools/tests
stale=
for f in "$tests"/copro-kmstest.c "$tests"/tap.*; do
    [ "$out/copro-kmstest" -nt "$f" ] || stale=1
done
if [ -n "$stale" ]; then
    # shellcheck disable=SC2046
    gcc -O2 -Wall -Wextra -Werror -o "$out/copro-kmstest" \
        "$tests/copro-kmstest.c" "$tests/tap.c" \
        $(pkg-config --cflags --libs libdrm) -lm
fi

lib=$src/guest-tools/libcopro
stale=
for f in "$tests"/copro-rendertest.c "$tests"/rendertest* "$tests"/tap.* \
         "$lib"/libcopro.* \
         "$src/guest-tools/linux/uapi/copro_drm.h"; do
    [ "$out/copro-rendertest" -nt "$f" ] || stale=1
done
if [ -n "$stale" ]; then
    # shellcheck disable=SC2046
    gcc -O2 -Wall -Wextra -Werror -I"$lib" -I"$src/guest-tools/linux/uapi" \
        -I"$src/include" -o "$out/copro-rendertest" \
        "$tests/copro-rendertest.c" "$tests"/rendertest-*.c "$tests/tap.c" \
        "$lib/libcopro.c" \
        $(pkg-config --cflags --libs libdrm)
fi

for t in copro-info copro-run copro-bench copro-workload; do
    if [ ! "$out/$t" -nt "$src/guest-tools/tools/$t.c" ] ||
       [ ! "$out/$t" -nt "$lib/libcopro.c" ] ||
       [ ! "$out/$t" -nt "$src/guest-tools/linux/uapi/copro_drm.h" ]; then
        # shellcheck disable=SC2046
        gcc -O2 -Wall -Wextra -Werror -I"$lib" -I"$src/guest-tools/linux/uapi" \
            -I"$src/include" -o "$out/$t" "$src/guest-tools/tools/$t.c" \
            "$lib/libcopro.c" $(pkg-config --cflags --libs libdrm)
    fi
done

ln -sf "$kcache/vmlinux" "$out/vmlinux"
echo "$release $(cat "$kcache/version")" > "$out/kernel"
bins=()
for b in modetest vbltest proptest modeprint drmdevice drm_info fbset; do
    bins+=(--bin "$(command -v "$b")") ||
        { echo "build-linux: $b missing (make deps)" >&2; exit 1; }
done
fresh=1
for f in "$out/module/copro.ko" "$out/copro-kmstest" "$out/copro-rendertest" \
         "$out/copro-info" "$out/copro-run" "$out/copro-bench" \
         "$out/copro-workload" \
         "$src"/guest-tools/image/* \
         "$kcache/complete"; do
    [ "$out/initrd.gz" -nt "$f" ] || fresh=
done
[ -n "$fresh" ] ||
    python3 "$src/guest-tools/image/mkinitramfs.py" \
        --modules "$kcache/modules" --driver "$out/module/copro.ko" \
        --out "$out/initrd.gz" "${bins[@]}" --bin "$out/copro-kmstest" \
        --bin "$out/copro-rendertest" --bin "$out/copro-info" \
        --bin "$out/copro-run" --bin "$out/copro-bench" \
        --bin "$out/copro-workload" >/dev/null
[ -z "$stamp" ] || touch "$stamp"
