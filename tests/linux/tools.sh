# SPDX-License-Identifier: GPL-2.0-or-later
# The KMS state as Debian's tools print it, against golden files
# (tests/linux/golden, in the guest as /golden): drm_info, proptest,
# modeprint, drmdevice, fbset -i. Addresses (pointers a tool prints) are
# masked; nothing depends on the kernel's version.
. /bin/tap.sh
golden() {
    name=$1
    shift
    "$@" 2>&1 | sed -e 's/0x[0-9a-f]\{9,\}/0xADDR/g' > "/tmp/$name.txt"
    if diff -u "/golden/$name.txt" "/tmp/$name.txt" > "/tmp/$name.diff"; then
        return 0
    fi
    sed 's/^/# /' "/tmp/$name.diff" | head -40
    echo "# (to update: copy the new output, printed with GOLDEN=1)"
    return 1
}
check "drm_info matches the golden state" golden drm_info drm_info
check "proptest matches" golden proptest proptest -M copro
check "modeprint matches" golden modeprint modeprint copro
check "drmdevice matches" golden drmdevice drmdevice
check "fbset -i matches" golden fbset fbset -i
check "drm_info -j is JSON with the copro driver" sh -c 'drm_info -j | grep -q "\"name\": \"copro\""'
check "dmesg clean" dmesg_clean
if [ -n "$GOLDEN" ]; then
    for f in drm_info proptest modeprint drmdevice fbset; do
        echo "===== $f"; cat "/tmp/$f.txt"
    done
fi
tap_done
