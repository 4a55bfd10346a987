# SPDX-License-Identifier: GPL-2.0-or-later
# QEMU's screendump of copro's display against what the guest computed:
# the Linux console (fbcon on the fbdev emulation) and modetest's test
# pattern. The guest computes the CRC-32 of the scanned-out framebuffer
# (copro-kmstest crc) before and after the host's screendump.
. /bin/tap.sh
same_screen() {
    # $1: name; the picture must be still (two guest CRCs agree)
    a=$(copro-kmstest crc | awk '{ print $2, $3, $4 }')
    s=$(screendump "$1")
    b=$(copro-kmstest crc | awk '{ print $2, $3, $4 }')
    echo "# $1: guest before '$a', screendump '$s', guest after '$b'"
    [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "$s" ]
}
echo 0 > /sys/class/graphics/fbcon/cursor_blink
printf '\033[2J\033[Hcopro: Linux %s on copro'"'"'s display\n' "$(uname -r)" > /dev/tty1
dmesg | grep copro | sed 's/^\[[ 0-9.]*\] //' > /dev/tty1
sleep 0.5
check "the console on screen is what fbcon drew" same_screen linux-console
conn=$(modetest -M copro -c | awk '/connected/ { print $1; exit }')
crtc=$(modetest -M copro -p | awk '/^CRTCs:/ { getline; getline; print $1; exit }')
# modetest keeps its mode until it reads a line: hold its input open until
# the screendump is done (a guest sleep would end on its own, and with
# sleep=off the guest's clock runs ahead while the host takes the dump)
mkfifo /tmp/modetest.in
modetest -M copro -s "$conn@$crtc:800x600" < /tmp/modetest.in > /dev/null 2>&1 &
exec 3> /tmp/modetest.in
i=0
until copro-kmstest crc | grep -q ' 800 600 ' || [ $i -ge 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
check "modetest's test pattern on screen is what it drew" same_screen modetest
echo >&3
exec 3>&-
wait
check "dmesg clean" dmesg_clean
tap_done
