# SPDX-License-Identifier: GPL-2.0-or-later
# TAP for the Linux guest's test scripts (sourced: . /bin/tap.sh).
#   check DESC CMD...    one check: CMD's status
#   run_tap CMD...       a TAP program's checks, renumbered into ours
#   dmesg_clean          no WARNING, BUG, Oops or lockdep-style splat
#   tap_done             the plan and the closing line; fails if any failed
TAP_N=0
TAP_FAIL=0

tap_line() {
    TAP_N=$((TAP_N + 1))
    if [ "$1" = 0 ]; then
        echo "ok $TAP_N - $2"
    else
        TAP_FAIL=$((TAP_FAIL + 1))
        echo "not ok $TAP_N - $2"
    fi
}

check() {
    desc=$1
    shift
    "$@"
    tap_line $? "$desc"
}

run_tap() {
    "$@" > /tmp/run_tap.out 2>&1
    rc=$?
    fails=$TAP_FAIL
    while IFS= read -r line; do
        case "$line" in
        "ok "*) rest=${line#ok }; tap_line 0 "${rest#* - }" ;;
        "not ok "*) rest=${line#not ok }; tap_line 1 "${rest#* - }" ;;
        1..*|*" passed, "*" failed") ;;
        *) echo "# $line" ;;
        esac
    done < /tmp/run_tap.out
    if [ "$rc" != 0 ] && [ "$fails" = "$TAP_FAIL" ]; then
        tap_line 1 "$* exited with $rc"
    fi
}

# The kernel's own reports of driver bugs: any of them fails a test.
# The guests boot with slub_debug=FZPU: a use after free or an overrun
# of a slab object shows as SLUB's "BUG <cache>: Poison overwritten",
# "Redzone overwritten", "Object padding overwritten" or a bad freelist;
# drm_sched reports a job pushed to a destroyed entity.
dmesg_clean() {
    if dmesg | grep -E -A3 'WARNING:|BUG:|BUG [a-z0-9_:()-]+ \(|Oops|Call Trace|cut here|general protection|possible circular|possible recursive|inconsistent lock|UBSAN|KASAN|refcount_t|list_add corruption|list_del corruption|Poison overwritten|Redzone overwritten|Object padding overwritten|Freepointer corrupt|Freechain corrupt|killed entity' > /tmp/dmesg.bad; then
        head -n 40 /tmp/dmesg.bad | sed 's/^/# /'
        return 1
    fi
    return 0
}

tap_done() {
    echo "1..$TAP_N"
    echo "$((TAP_N - TAP_FAIL)) passed, $TAP_FAIL failed"
    [ "$TAP_FAIL" = 0 ]
}
