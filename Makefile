# SPDX-License-Identifier: GPL-2.0-or-later
#
# Thin wrapper around meson: everything is built by the top-level
# meson.build (QEMU with the copro device, firmware, tools, tests).

BUILD ?= build
MESON_SETUP_OPTS ?=
# The sanitizer build: the same project, configured with b_sanitize, in a
# directory of its own (its QEMU is built in $(SAN_BUILD)/qemu).
SAN_BUILD ?= $(BUILD)/sanitize
# Seconds of coverage-guided fuzzing for `make fuzz`.
FUZZ_SECONDS ?= 120

.PHONY: all deps build run show linux check-linux check-linux-long check check-sanitize fuzz fuzz-deps fuzz-coverage compare sweep \
	bench soak clean distclean

all: build

# Each step prints one line with its time; its output goes to a log under
# $(BUILD)/logs/, and a failing step prints the end of its log and where the
# whole of it is. V=1 shows every step's output as it runs.
LOGS = $(BUILD)/logs
STEP = @bash scripts/step.sh

# Debian's packages (apt), QEMU's source (apt-get source, once) and the
# Linux guest's kernel and headers (once per kernel ABI).
deps:
	$(STEP) packages $(LOGS)/packages.log bash scripts/install-deps.sh
	$(STEP) 'QEMU source' $(LOGS)/qemu-source.log bash scripts/fetch-qemu.sh
	$(STEP) 'Linux kernel' $(LOGS)/linux-kernel.log bash scripts/fetch-linux.sh

$(BUILD)/build.ninja: | deps
	$(STEP) configure $(LOGS)/configure.log meson setup $(BUILD) $(MESON_SETUP_OPTS)

build: deps $(BUILD)/build.ninja
	$(STEP) build $(LOGS)/build.log ninja -C $(BUILD)

# Boot the desktop (compositor, cursor, game and hog on the OS, on the
# device's display) and print its report: TAP checks, the per-application
# table, the display's figures, SCREEN and METRICS; then save its final
# frame, QEMU's screendump, as $(BUILD)/desktop.png, and its timeline as
# $(BUILD)/desktop.trace.json (open it in https://ui.perfetto.dev or
# chrome://tracing). Under -icount the virtual time is deterministic and
# skips ahead while the guest halts. RUN_ARGS adds to the guest's command
# line (policy=fifo, video=0).
RUN_ARGS ?=
run: build
	@python3 scripts/show-display.py --qemu-python $(BUILD)/qemu/src/python \
	  --window none --tap --icount shift=0,sleep=off \
	  --trace $(BUILD)/desktop.trace.json \
	  --append 'irq=msix hold $(RUN_ARGS)' \
	  $(BUILD)/qemu-run $(BUILD)/firmware/desktop.elf $(BUILD)/desktop.png

# Boot an image that holds its last frame on screen: IMAGE=display (the
# default: frames drawn by the GPU, flipped on vsync) or IMAGE=desktop
# (with RUN_ARGS). The last frame is saved as $(BUILD)/$(IMAGE).png and,
# when a display is available ($$DISPLAY), stays in QEMU's SDL window
# until it is closed; the animation runs at about real speed. SHOW=sdl|
# vnc|none chooses (vnc serves it on VNC=:1 by default).
IMAGE ?= display
show: build
	@python3 scripts/show-display.py --qemu-python $(BUILD)/qemu/src/python \
	  $(if $(filter desktop,$(IMAGE)),--append 'irq=msix hold $(RUN_ARGS)') \
	  $(if $(SHOW),--window $(SHOW)) $(if $(VNC),--vnc $(VNC)) \
	  $(BUILD)/qemu-run $(BUILD)/firmware/$(IMAGE).elf $(BUILD)/$(IMAGE).png

# Boot Linux (the newest Debian kernel, guest-tools/linux's DRM driver;
# LINUX_KERNEL=trixie boots Debian 13's 6.12 instead) on the
# device: a shell on this terminal (the serial console), the Linux console
# (fbcon) on copro's display, in a window when there is a display; exit the
# shell to power off. LINUX_RUN='modetest -M copro -s 37@35:1024x768'
# runs a command instead and powers off. Either way the display's last
# picture is saved as $(BUILD)/linux.png (QEMU's screendump).
LINUX_RUN ?=
LINUX_KERNEL ?= trixie-backports
linux: build
	@python3 scripts/run-linux.py --qemu-python $(BUILD)/qemu/src/python \
	  --screendir $(BUILD) --save-screen linux \
	  $(if $(LINUX_RUN),--run '$(LINUX_RUN)',--display $(if $(DISPLAY),sdl,none)) \
	  $(BUILD)/qemu-run $(BUILD)/linux-$(LINUX_KERNEL)

# The linux suite alone, on every kernel (--suite linux-trixie or
# linux-backports in meson test chooses one), one boot at a time.
check-linux: build
	@meson test -C $(BUILD) --no-rebuild --print-errorlogs --num-processes 1 \
	  --suite linux; rc=$$?; \
	  python3 scripts/test-summary.py $(BUILD)/meson-logs/testlog.json; exit $$rc

# The Linux guest's tests too slow for make check: kmscube on Mesa's
# software GL (kms_swrast, about 200 MB of libraries in a second initramfs)
# showing its frames on copro's display.
check-linux-long: build
	@LINUX_KERNEL=$(LINUX_KERNEL) bash scripts/check-linux-long.sh $(BUILD)

# Run every test; the last line says how many passed and failed.
check: build
	@meson test -C $(BUILD) --no-rebuild --print-errorlogs --num-processes 2; rc=$$?; \
	  python3 scripts/test-summary.py $(BUILD)/meson-logs/testlog.json; exit $$rc

# Every qtest, firmware scenario and unit test again, with QEMU, the qtests
# and the unit tests built with ASan and UBSan; any sanitizer report fails
# (the process aborts, and scripts/test-summary.py counts reports). Leaks
# are checked too, at each process's exit: none is reported today;
# scripts/lsan.supp says what may be suppressed (QEMU's code, never copro's).
# Left out: style (no QEMU in it), linux (Debian's kernel booted on the
# device: make check runs it; sanitized it would add minutes) and timing (hog-deterministic: under a
# sanitized QEMU, host timing perturbs -icount runs by a few ns too often)
# and bench (make bench's short form: make check runs it, and its host-time
# figures under a sanitizer would only cost CI minutes).
$(SAN_BUILD)/build.ninja: | deps
	$(STEP) configure $(LOGS)/configure-sanitize.log \
	  meson setup $(SAN_BUILD) -Db_sanitize=address,undefined $(MESON_SETUP_OPTS)

check-sanitize: deps $(SAN_BUILD)/build.ninja
	$(STEP) build $(LOGS)/build-sanitize.log ninja -C $(SAN_BUILD)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1:print_summary=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1:print_summary=1 \
	  COPRO_TIMEOUT=180 \
	  meson test -C $(SAN_BUILD) --no-rebuild --no-suite style --no-suite timing --no-suite linux --no-suite bench \
	    --print-errorlogs --num-processes 2 --timeout-multiplier 3; rc=$$?; \
	  python3 scripts/test-summary.py $(SAN_BUILD)/meson-logs/testlog.json; exit $$rc

# Coverage-guided fuzzing of the device (QEMU's generic-fuzz with the copro
# config, libFuzzer, ASan and UBSan) for FUZZ_SECONDS, from seeds recorded
# from the qtests; fails on any crash. FUZZ_ARGS go to libFuzzer.
# clang and llvm (scripts/install-deps.sh fuzz): only these two need them.
fuzz-deps:
	$(STEP) 'packages fuzz' $(LOGS)/packages-fuzz.log bash scripts/install-deps.sh fuzz

fuzz: build fuzz-deps
	@bash scripts/fuzz.sh $(BUILD) $(FUZZ_SECONDS)

# Line coverage of hw/copro/*.c reached by the fuzz corpus.
fuzz-coverage: build fuzz-deps
	@bash scripts/fuzz-coverage.sh $(BUILD)

bench: build
	@bash scripts/bench.sh $(BUILD)

# A workload file (docs/workloads.rst) on the copro OS under quantum,
# priority and joblist (hwsched=1), and on Linux under each built guest's
# drm_sched policies (NO_LINUX=1 skips them): one table, and plots under
# $(BUILD)/compare/NAME/. Every run under -icount: the same table twice.
WORKLOAD ?= workloads/interactive-vs-heavy.toml
compare: build
	@/usr/bin/python3 tools/copro-compare $(WORKLOAD) --build $(BUILD) \
	  $(if $(NO_LINUX),--no-linux)

# A sweep (workloads x policies x device parameters x seeds) into one CSV:
# tools/copro-sweep --help; SCHEDULER=tcp://HOST:PORT runs it on a Dask
# cluster.
SWEEP ?= workloads/interactive-vs-heavy.toml
sweep: build
	@/usr/bin/python3 tools/copro-sweep $(SWEEP) --build $(BUILD) \
	  --out $(BUILD)/sweep.csv $(if $(SCHEDULER),--scheduler $(SCHEDULER))

# The scheduler's property tests over a million seeded workloads (make
# check runs 10,000) and the scene-based ones over SOAK_SCENE_SEEDS (make
# check runs 4,000). Builds only the simulator, not QEMU; may run long.
# Then, if QEMU is built, the lifetimes scenario with SOAK_LIVES processes
# created and killed (make check runs 1000).
SOAK_SEEDS ?= 1000000
SOAK_SCENE_SEEDS ?= 200000
SOAK_JOBS ?= 2
SOAK_LIVES ?= 20000
soak: $(BUILD)/build.ninja
	ninja -C $(BUILD) tests/sim/test-sim-props tests/sim/test-sim-scenes
	@bash scripts/soak.sh $(BUILD)/tests/sim/test-sim-props $(SOAK_SEEDS) $(SOAK_JOBS)
	@bash scripts/soak.sh $(BUILD)/tests/sim/test-sim-scenes \
	  $(SOAK_SCENE_SEEDS) $(SOAK_JOBS)
	@if [ -x $(BUILD)/qemu-run ]; then \
	  ninja -C $(BUILD) firmware/lifetimes.elf && \
	  { bash scripts/run-firmware.sh $(BUILD)/qemu-run \
	    $(BUILD)/firmware/lifetimes.elf -M q35 -device copro,vram=16M \
	    -icount shift=0,sleep=off -append 'irq=msix lives=$(SOAK_LIVES)' \
	    > $(BUILD)/lifetimes-soak.log; rc=$$?; \
	    grep -E '^not ok|SUMMARY' $(BUILD)/lifetimes-soak.log; exit $$rc; }; \
	else echo "soak: QEMU not built (make build): lifetimes skipped"; fi

clean:
	-ninja -C $(BUILD) -t clean

distclean:
	rm -rf $(BUILD)
