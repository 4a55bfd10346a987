#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Install what building copro needs on Debian 12 (bookworm), as root.
# Idempotent: packages already present are not reinstalled, and apt is not
# touched at all when nothing is missing, so a second `make` stays fast.
#
#   install-deps.sh          what make, make run and make check need
#   install-deps.sh fuzz     clang and llvm too, for make fuzz and make
#                            fuzz-coverage (they run this as a step)
#
# QEMU 10.0 needs meson >= 1.5, which bookworm only has in backports, and its
# source package comes from trixie (deb-src only: no trixie binaries are ever
# installed).
set -euo pipefail

# QEMU (scripts/build-qemu.sh: x86_64-softmmu, no fdt, so neither flex nor
# bison): build-essential, pkg-config, ninja-build, meson, python3 and
# python3-venv (its configure makes a venv), libglib2.0-dev,
# libpixman-1-dev, libpng-dev (PNG screendumps), libsdl2-dev (the window of
# make show and make linux), ccache (the QEMU builds compile through it when
# it is there); seabios and qemu-system-data are the machine's firmware at
# run time; dpkg-dev, xz-utils and ca-certificates fetch and unpack QEMU's
# source (scripts/fetch-qemu.sh).
#
# libdrm-dev, libdrm-tests, drm-info, fbset and busybox-static build and
# fill the Linux guest's initramfs (guest-tools/, scripts/build-linux.sh);
# its kernels and headers come from scripts/fetch-linux.sh (make deps runs
# it as a step of its own), which builds a trixie tree with mmdebstrap and
# unpacks trixie's zstd-compressed kernels with zstd.
#
# make check: python3-docutils checks docs/ (the style suite);
# python3-matplotlib draws make bench's pictures (its short form runs in
# make check) and make compare's plots; python3-distributed (Dask) runs
# tools/copro-sweep on a cluster (--scheduler) and its test's local one
# (the test is skipped without it).
#
# What this changes on the host: the packages below and what they depend
# on (apt may upgrade an installed library to the version a new package
# needs, e.g. libudev1 and udev for libsdl2-dev on a stock image), and one
# apt sources file, /etc/apt/sources.list.d/copro.sources: bookworm-backports
# for meson and deb-src entries (bookworm, trixie) for QEMU's and the
# kernel's source.
PKGS=(build-essential pkg-config ninja-build libglib2.0-dev libpixman-1-dev
      python3 python3-venv seabios dpkg-dev ccache
      xz-utils ca-certificates python3-docutils
      libpng-dev libsdl2-dev python3-matplotlib python3-distributed
      libdrm-dev libdrm-tests drm-info fbset busybox-static mmdebstrap zstd)
BPO_PKGS=(meson qemu-system-data)
# make fuzz and make fuzz-coverage only: clang, libclang-rt-dev (libFuzzer
# and clang's sanitizer and profile runtimes) and llvm (llvm-symbolizer for
# sanitizer stacks, llvm-profdata and llvm-cov). gcc's own ASan and UBSan
# runtimes, for make check-sanitize, come with build-essential.
FUZZ_PKGS=(clang libclang-rt-dev llvm)

case "${1:-}" in
'') ;;
fuzz) PKGS=("${FUZZ_PKGS[@]}") ;;
*) echo "install-deps: unknown set '$1' (none, or fuzz)" >&2; exit 1 ;;
esac

SRC_LIST=/etc/apt/sources.list.d/copro.sources

need_root() {
    if [ "$(id -u)" != 0 ]; then
        echo "install-deps: missing packages ($*); run as root or install them" >&2
        exit 1
    fi
}

missing() {
    local p out=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
            out+=("$p")
    done
    echo "${out[@]:-}"
}

meson_ok() {
    command -v meson >/dev/null 2>&1 &&
        /usr/bin/python3 - "$(meson --version)" <<'PY'
import sys
v = tuple(int(x) for x in sys.argv[1].split(".")[:2])
sys.exit(0 if v >= (1, 5) else 1)
PY
}

add_sources() {
    [ -f "$SRC_LIST" ] && return 0
    cat > "$SRC_LIST" <<'SRC'
# Added by copro's scripts/install-deps.sh
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates bookworm-backports trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    APT_UPDATED=
}

APT_UPDATED=
apt_update() {
    if [ -z "$APT_UPDATED" ]; then
        apt-get update -qq
        APT_UPDATED=1
    fi
}

miss=$(missing "${PKGS[@]}")
bpo_miss=$(missing "${BPO_PKGS[@]}")

if [ -z "$miss" ] && [ -z "$bpo_miss" ] && meson_ok && [ -f "$SRC_LIST" ]; then
    echo "copro-step: all $(( ${#PKGS[@]} + ${#BPO_PKGS[@]} )) packages present"
    exit 0
fi
need_root "$miss" "$bpo_miss"
add_sources
apt_update
export DEBIAN_FRONTEND=noninteractive
if [ -n "$miss" ]; then
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $miss
fi
if [ -n "$bpo_miss" ] || ! meson_ok; then
    apt-get install -y -qq --no-install-recommends -t bookworm-backports \
        "${BPO_PKGS[@]}"
fi
meson_ok || { echo "install-deps: meson >= 1.5 not available" >&2; exit 1; }
# shellcheck disable=SC2086
echo "copro-step: installed" $miss $bpo_miss
