# SPDX-License-Identifier: GPL-2.0-or-later
# What the firmware benchmarks (bench-os.sh, bench-switch.sh,
# bench-hwsched.sh) share; sourced, after `set -u` and with $here set to
# the scripts' directory.

# bench_init QEMU_RUN FIRMWARE_DIR [DURATION_MS]: sets qemu_run, fw,
# duration (default 2000), status (0) and tmp (a directory removed at exit);
# bad usage exits 2.
bench_init() {
    if [ $# -lt 2 ] || [ $# -gt 3 ]; then
        echo "usage: $0 QEMU_RUN FIRMWARE_DIR [DURATION_MS]" >&2
        exit 2
    fi
    qemu_run=$1
    fw=$2
    duration=${3:-2000}
    status=0
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
}

# bench_run NAME IMAGE DEVICE APPEND...: boots $fw/IMAGE.elf on q35 with
# -device DEVICE under -icount and the command line "irq=msix APPEND...",
# leaving in $tmp its console (NAME.out), exit status (NAME.rc) and last
# METRICS line (NAME.json). The array bench_env, if set, adds environment
# for scripts/run-firmware.sh (COPRO_TRACE=..., say).
bench_run() {
    local name=$1 image=$2 dev=$3
    shift 3
    env ${bench_env[@]+"${bench_env[@]}"} COPRO_TIMEOUT="${COPRO_TIMEOUT:-600}" \
        bash "$here/run-firmware.sh" \
        "$qemu_run" "$fw/$image.elf" -M q35 -device "$dev" \
        -icount shift=0,sleep=off -append "irq=msix $*" >"$tmp/$name.out"
    echo $? >"$tmp/$name.rc"
    sed -n 's/^# METRICS //p' "$tmp/$name.out" | tail -n 1 >"$tmp/$name.json"
}
