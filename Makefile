# SPDX-License-Identifier: GPL-2.0-or-later
#
# Thin wrapper around meson: everything is built by the top-level
# meson.build (QEMU with the copro device, firmware, tools, tests).

BUILD ?= build
MESON_SETUP_OPTS ?=

.PHONY: all deps build run show check bench clean distclean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	meson setup $(BUILD) $(MESON_SETUP_OPTS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

# Boot the demo scenario and print its report.
run: build
	@bash scripts/run-firmware.sh $(BUILD)/qemu-run $(BUILD)/firmware/demo.elf -M q35 -device copro

# Boot the display scenario: frames drawn by the GPU, flipped on vsync; its
# last frame is saved as $(BUILD)/display.png and, when a display is
# available ($$DISPLAY), stays in QEMU's SDL window until it is closed.
# SHOW=sdl|vnc|none chooses (vnc serves it on VNC=:1 by default).
show: build
	@python3 scripts/show-display.py $(BUILD)/qemu-run \
	  $(BUILD)/firmware/display.elf $(BUILD)/display.png \
	  $(if $(SHOW),--window $(SHOW)) $(if $(VNC),--vnc $(VNC))

# Run every test; the last line says how many passed and failed.
check: build
	@meson test -C $(BUILD) --print-errorlogs --num-processes 2; rc=$$?; \
	  python3 scripts/test-summary.py $(BUILD)/meson-logs/testlog.json; exit $$rc

bench: build
	@bash scripts/bench.sh $(BUILD)

clean:
	-ninja -C $(BUILD) -t clean

distclean:
	rm -rf $(BUILD)
