# SPDX-License-Identifier: GPL-2.0-or-later
"""QMP to a QEMU that was just started (show-display.py, run-linux.py)."""
import os
import time


def connect(QMP, sock, qemu):
    """A QMP connection once QEMU listens on SOCK (it may still be
    starting), or None when QEMU exits first or after 30 s. QMP: the QMP
    library's legacy QEMUMonitorProtocol; QEMU: its Popen."""
    for _ in range(600):
        if qemu.poll() is not None:
            return None
        if os.path.exists(sock):
            mon = QMP(sock)
            try:
                mon.connect()
                return mon
            except OSError:
                pass
        time.sleep(0.05)
    return None
