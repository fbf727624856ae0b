# fbripple - ripples on the Linux framebuffer. `make help` lists the targets.

VERSION    = 0.2.0
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc
UNITDIR   ?= $(PREFIX)/lib/systemd/system
MANDIR    ?= $(PREFIX)/share/man
DOCDIR    ?= $(PREFIX)/share/doc/fbripple
DESTDIR   ?=

# B is the build directory: `make B=build/asan CFLAGS='-O1 -g -fsanitize=address,undefined'`
# keeps a second build beside the default one, which lives next to the sources.
B         ?= .
CC        ?= cc
PKG_CONFIG ?= pkg-config
CFLAGS    ?= -O2 -g
WERROR    ?= -Werror

PKGS      = libevdev libconfig libpng libjpeg libdrm
PKGS_OPT  = $(shell $(PKG_CONFIG) --exists libsystemd 2>/dev/null && echo libsystemd) \
            $(shell $(PKG_CONFIG) --exists libudev 2>/dev/null && echo libudev)
DEFS      = -DFBRIPPLE_VERSION='"$(VERSION)"' -DFBRIPPLE_SYSCONFDIR='"$(SYSCONFDIR)"' \
            $(if $(filter libsystemd,$(PKGS_OPT)),-DHAVE_LIBSYSTEMD=1) \
            $(if $(filter libudev,$(PKGS_OPT)),-DHAVE_LIBUDEV=1)
# -ffp-contract=off: floats rounded as written, as GCC does under -std=c11 (clang would fuse a
# multiply and an add where the target has it, and the splash's vectors round as its pixels).
ALL_CFLAGS = -std=c11 -ffp-contract=off -D_GNU_SOURCE -pthread -Wall -Wextra $(WERROR) -MMD -MP -Isrc $(DEFS) \
             $(shell $(PKG_CONFIG) --cflags $(PKGS) $(PKGS_OPT)) $(CFLAGS)
LIBS      = $(shell $(PKG_CONFIG) --libs $(PKGS) $(PKGS_OPT)) -lm -pthread
TEST_LIBS = $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

# Every .c below src/ but main.c: a new file in any folder is built without naming it here.
LIB_SRC   = $(sort $(filter-out src/main.c,$(shell find src -name '*.c')))
LIB_OBJ   = $(LIB_SRC:%.c=$(B)/%.o)
TEST_SRC  = $(wildcard tests/test_*.c)
TESTS     = $(TEST_SRC:%.c=$(B)/%)
VM_TESTS  = $(filter $(B)/tests/test_vm%,$(TESTS))
# The tests of the Debian package `make deb` builds; like the VM tests, only `make check` runs them.
PKG_TESTS = $(B)/tests/test_package
UNIT_TESTS = $(filter-out $(VM_TESTS) $(PKG_TESTS),$(TESTS))
TEST_AUX  = $(B)/tests/seed_port.o $(B)/tests/seed_hooke.o $(B)/tests/seed_spring.o \
            $(B)/tests/testutil.o $(B)/tests/look.o

# Debian/Ubuntu packages: to build, and to test (the VM tests need QEMU and a kernel package).
DEB_BUILD = gcc make pkg-config libevdev-dev libconfig-dev libpng-dev libjpeg-dev libdrm-dev libsystemd-dev libudev-dev
DEB_TEST  = libcmocka-dev clang valgrind qemu-system-x86 busybox-static cpio kmod systemd \
            mmdebstrap e2fsprogs
# The Debian package (make deb): debhelper's helpers, lintian, and man to check the man pages.
DEB_PACKAGE = dpkg-dev debhelper lintian man-db
# arm64: Debian's cross compiler, the arm64 -dev packages beside the native ones (multiarch), qemu.
DEB_ARM64 = gcc-aarch64-linux-gnu qemu-user-static libevdev-dev:arm64 libconfig-dev:arm64 \
            libpng-dev:arm64 libjpeg-dev:arm64 libdrm-dev:arm64 libsystemd-dev:arm64 libudev-dev:arm64 libcmocka-dev:arm64
ARM64     = B=build/arm64 CC=aarch64-linux-gnu-gcc AR=aarch64-linux-gnu-ar \
            PKG_CONFIG=aarch64-linux-gnu-pkg-config RUN_HOST='qemu-aarch64-static -L /'
# How this machine runs what $(CC) built (the man page asks the binary for its --help).
RUN_HOST  ?=

.PHONY: all clean install uninstall check check-unit vm-objects check-paths check-vm check-asan check-valgrind check-valgrind-run deps-asan \
        check-clang bench-tools bench soak run readme-picture deps deps-test help fuzz fuzz-smoke fuzz-run fuzz-build

all: $(B)/fbripple

$(B)/fbripple: $(B)/src/main.o $(B)/src/libfbripple.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/src/libfbripple.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

# The objects are built with DEFS: a stamp rewritten when they change (another VERSION or
# SYSCONFDIR, libsystemd found or not) builds them again, as a package build must.
DEFS_STAMP = $(B)/src/.defs
ifneq ($(file <$(DEFS_STAMP)),$(DEFS))
$(shell mkdir -p $(B)/src)
$(file >$(DEFS_STAMP),$(DEFS))
endif

$(B)/src/%.o: src/%.c $(DEFS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/tests/%.o: tests/%.c $(DEFS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/tests/test_%: $(B)/tests/test_%.o $(TEST_AUX) $(B)/src/libfbripple.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS) $(TEST_LIBS)

# The VM tests link the QEMU harness and need static helper programs for the guest.
VM_HELPERS = $(B)/tests/vm/fbfill $(B)/tests/vm/evdump \
             $(B)/tests/vm/uinput-dev $(B)/tests/vm/vtstate $(B)/tests/vm/ctlping \
             $(B)/tests/vm/drmhold $(B)/tests/vm/kioskapp $(B)/tests/vm/drmapp
$(VM_TESTS): $(B)/tests/vm/vm.o $(B)/tests/vm/vmcase.o | $(VM_HELPERS)
$(B)/tests/test_vm_input: $(B)/tests/vm/vm.o | $(VM_HELPERS)
$(B)/tests/vm/vm.o: ALL_CFLAGS += -DFBVM_SRCDIR='"$(CURDIR)/tests/vm"'
# The systemd guest gets fbripple as an integrator installs it: the package of `make deb`.
$(B)/tests/test_vm_systemd $(PKG_TESTS): | deb
$(B)/tests/test_vm_systemd.o $(PKG_TESTS:=.o): ALL_CFLAGS += -DFBRIPPLE_DEB='"$(abspath $(DEB_OUT))"'
$(B)/tests/vm/%: tests/vm/%.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra $(WERROR) $(HELPER_CFLAGS) -static -o $@ $<
$(B)/tests/vm/evdump $(B)/tests/vm/kioskapp: tests/vm/evfind.h
$(B)/tests/vm/drmapp: HELPER_CFLAGS = $(shell $(PKG_CONFIG) --cflags-only-I libdrm)

# The memory test preloads a sampler of the anonymous RSS into the binary it runs.
$(B)/tests/test_memory: | $(B)/tests/rss_peak.so
$(B)/tests/rss_peak.so: tests/rss_peak.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra $(WERROR) -shared -fPIC -o $@ $<

$(B)/tests/bench: $(B)/tests/bench.o $(B)/tests/bench_util.o $(B)/tests/seed_port.o $(B)/tests/look.o $(B)/src/libfbripple.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)
$(B)/tests/soak: $(B)/tests/soak.o $(B)/src/libfbripple.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)
$(B)/tests/bench_render: $(B)/tests/bench_render.o $(B)/tests/bench_util.o $(B)/src/libfbripple.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)
$(B)/tests/bench_overdraw: $(B)/tests/bench_overdraw.o $(B)/src/libfbripple.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)
$(B)/tests/bench_step: $(B)/tests/bench_step.o $(B)/tests/bench_util.o $(B)/src/libfbripple.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)
$(B)/tests/bench_threads: $(B)/tests/bench_threads.o $(B)/tests/bench_util.o $(B)/src/libfbripple.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)
# The bench runs both as whole processes: fbripple, and seed 000's program loop.
$(B)/tests/bench: | $(B)/fbripple $(B)/tests/seed_prog
$(B)/tests/seed_prog: $(B)/tests/seed_prog.o $(B)/tests/seed_port.o $(B)/src/libfbripple.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

.SECONDARY:

-include $(LIB_OBJ:.o=.d) $(B)/src/main.d $(wildcard $(B)/tests/*.d $(B)/tests/vm/*.d $(B)/tests/fuzz/*.d)

# Installs what is missing, as root through apt-get; otherwise says what to install.
deps:
	@FBRIPPLE_PACKAGES="$(DEB_BUILD)" sh tests/deps.sh
deps-test:
	@FBRIPPLE_PACKAGES="$(DEB_BUILD) $(DEB_TEST) $(DEB_PACKAGE)" sh tests/deps.sh
# clang's sanitizer runtime is only recommended by clang on Debian 12
deps-asan:
	@FBRIPPLE_PACKAGES="$(DEB_BUILD) $(DEB_TEST)" FBRIPPLE_OPTIONAL="libclang-rt-dev" sh tests/deps.sh

check: deps-test
	@$(MAKE) --no-print-directory all $(TESTS) vm-kernel vm-rootfs
	@FBRIPPLE_BIN=$(B)/fbripple sh tests/run-tests.sh $(TESTS)

# Everything but the VM: for the builds the guest does not need (clang, sanitizers, valgrind).
check-unit: all $(UNIT_TESTS)
	@FBRIPPLE_BIN=$(B)/fbripple sh tests/run-tests.sh $(UNIT_TESTS)

# The unit tests once per render path this CPU runs, each forced through FBRIPPLE_SIMD
# (tests/test_render_paths also compares them all with the scalar one in every run).
RENDER_PATHS_RUN ?= $(if $(filter aarch64%,$(shell $(CC) -dumpmachine)),scalar neon,scalar sse2 sse41 avx2)
# The tests whose subject never reaches a kernel (the config, the control socket and the service
# around the daemon, input, pictures, the pool) say the same on every path: they run once.
PATH_FREE_TESTS = $(addprefix $(B)/tests/,test_config test_control test_service test_input \
		  test_input_reader test_touch test_image test_pixfmt test_pool)
PATH_TESTS = $(filter-out $(PATH_FREE_TESTS),$(UNIT_TESTS))
check-paths: all $(PATH_TESTS)
	@for p in $(RENDER_PATHS_RUN); do echo "FBRIPPLE_SIMD=$$p:"; \
		FBRIPPLE_SIMD=$$p FBRIPPLE_BIN=$(B)/fbripple sh tests/run-tests.sh $(PATH_TESTS) \
			>$(B)/tests/check-paths-$$p.log 2>&1 || \
			{ tail -n 30 $(B)/tests/check-paths-$$p.log; exit 1; }; \
		tail -n 1 $(B)/tests/check-paths-$$p.log; done

check-asan: deps-asan
	@$(MAKE) --no-print-directory B=build/asan CC=clang \
		CFLAGS='-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all' \
		LDFLAGS='-fsanitize=address,undefined' check-unit
	@$(MAKE) --no-print-directory fuzz-smoke

# clang libFuzzer targets (tests/fuzz) under the address and undefined-behaviour sanitizers:
# `make fuzz` runs each for FUZZ_SECONDS; check-asan runs each for FUZZ_SMOKE_SECONDS from the
# committed seeds in tests/fuzz/corpus. What they find goes to build/fuzz/corpus, crashes to
# build/fuzz (crash-*, timeout-*, leak-*): replay one with `build/fuzz/tests/fuzz/fuzz_X FILE`.
FUZZ_TARGETS = config image control input
FUZZ_SMOKE_TARGETS = $(FUZZ_TARGETS)
FUZZ_SECONDS ?= 300
FUZZ_SMOKE_SECONDS ?= 4
# Seconds one input may take before it is a hang (timeout-*). A picture within image.c's limits
# takes at most 1 s here under the sanitizers (a 16-megapixel interlaced PNG), so 2 s is slow.
FUZZ_TIMEOUT ?= 20
FUZZ_IMAGE_TIMEOUT ?= 2
FUZZ_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all

fuzz: deps-asan
	@$(MAKE) --no-print-directory fuzz-run FUZZ_TIME=$(FUZZ_SECONDS)

fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz-run FUZZ_TIME=$(FUZZ_SMOKE_SECONDS) \
		FUZZ_TARGETS="$(FUZZ_SMOKE_TARGETS)"

fuzz-run:
	@$(MAKE) --no-print-directory B=build/fuzz CC=clang CFLAGS='$(FUZZ_FLAGS) -fsanitize=fuzzer-no-link' \
		LDFLAGS='-fsanitize=address,undefined' FUZZ_TARGETS="$(FUZZ_TARGETS)" fuzz-build
	@failed=""; for t in $(FUZZ_TARGETS); do \
		log=build/fuzz/fuzz_$$t.log; mkdir -p build/fuzz/corpus/$$t; \
		timeout=$(FUZZ_TIMEOUT); [ $$t = image ] && timeout=$(FUZZ_IMAGE_TIMEOUT); \
		if build/fuzz/tests/fuzz/fuzz_$$t -max_total_time=$(FUZZ_TIME) -timeout=$$timeout \
			-max_len=65536 -artifact_prefix=build/fuzz/ build/fuzz/corpus/$$t \
			tests/fuzz/corpus/$$t > $$log 2>&1; then \
			echo "fuzz_$$t: $$(grep -o 'Done [0-9]* runs in [0-9]* second(s)' $$log), no crash"; \
		else \
			tail -n 25 $$log; echo "fuzz_$$t: FAILED (see $$log)"; failed="$$failed $$t"; \
		fi; \
	done; [ -z "$$failed" ] || { echo "fuzz targets that failed:$$failed"; exit 1; }

fuzz-build: $(FUZZ_TARGETS:%=$(B)/tests/fuzz/fuzz_%)

$(B)/tests/fuzz/fuzz_%: $(B)/tests/fuzz/fuzz_%.o $(B)/src/libfbripple.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)

check-clang: deps-test
	@$(MAKE) --no-print-directory B=build/clang CC=clang check-unit vm-objects bench-tools

# The VM tests' own code compiled (not run): clang's warnings there too.
vm-objects: $(VM_TESTS:=.o) $(B)/tests/vm/vm.o $(B)/tests/vm/vmcase.o

# The benches built (not run), so that none of them rots between the times someone runs it.
BENCH_TOOLS = bench bench_render bench_overdraw bench_step bench_threads
bench-tools: $(BENCH_TOOLS:%=$(B)/tests/%)

# The unit and headless tests cross-built for arm64 and run under qemu-user (tests/arm64.sh).
.PHONY: check-arm64 check-arm64-run deps-arm64
deps-arm64:
	@FBRIPPLE_ARCH=arm64 FBRIPPLE_PACKAGES="$(DEB_ARM64)" sh tests/deps.sh

check-arm64: deps-arm64
	@$(MAKE) --no-print-directory $(ARM64) check-arm64-run

check-arm64-run: all $(UNIT_TESTS)
	@sh tests/arm64.sh $(B)/fbripple $(UNIT_TESTS)

# Debian's kernel for the VM tests, cached outside the tree (tests/vm/kernel.sh says where).
.PHONY: vm-kernel
vm-kernel:
	@sh tests/vm/kernel.sh || echo 'vm-kernel: no kernel; the VM tests will say why they skip'

# Debian 12 with systemd as PID 1 for tests/test_vm_systemd, cached beside the kernel.
.PHONY: vm-rootfs
vm-rootfs: vm-kernel
	@sh tests/vm/rootfs.sh >/dev/null || echo 'vm-rootfs: no root image; the systemd VM test will say why it skips'

check-vm: all $(VM_TESTS) vm-kernel vm-rootfs
	@FBRIPPLE_BIN=$(B)/fbripple sh tests/run-tests.sh $(VM_TESTS)

check-valgrind: deps-test
	@$(MAKE) --no-print-directory check-valgrind-run

# test_service's subject is the daemon it starts, which valgrind does not follow (check-asan
# runs that daemon under the sanitizers); under valgrind it would only check its own harness.
VALGRIND_TESTS = $(filter-out $(B)/tests/test_service,$(UNIT_TESTS))
check-valgrind-run: all $(VALGRIND_TESTS)
	@FBRIPPLE_BIN=$(B)/fbripple FBRIPPLE_VALGRIND=1 sh tests/run-tests.sh $(VALGRIND_TESTS)

# The daemon paced for SOAK_MINUTES under load (tests/soak.c); not in CI: README says when.
SOAK_MINUTES ?= 10
soak: deps all $(B)/tests/soak
	@FBRIPPLE_BIN=$(B)/fbripple $(B)/tests/soak $(SOAK_MINUTES)

# BENCH_RUNS=5 make bench: that many runs, each row then as its median (tests/bench_runs.sh).
BENCH_RUNS ?= 1
bench: deps $(B)/tests/bench
	@if [ "$(BENCH_RUNS)" != 1 ]; then BENCH=$(B)/tests/bench sh tests/bench_runs.sh $(BENCH_RUNS); \
	else $(B)/tests/bench; fi

# On a machine with a framebuffer: build and run in the foreground. Without one: a demo PNG.
run: deps all
	@sh tests/run-demo.sh $(B)/fbripple

$(B)/tests/strip: $(B)/tests/strip.o $(B)/src/libfbripple.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# The README's pictures, drawn by fbripple itself: the looks the headless tests compare against,
# strips of one touch at 1920x1080 after 0.25, 1 and 2 s, with the light and without, and a
# gallery of the engines and of walls (tests/gallery.sh).
STRIP_FRAMES = 15 60 120
readme-picture: deps-test
	@$(MAKE) --no-print-directory all $(B)/tests/test_headless $(B)/tests/strip
	@mkdir -p tests/golden
	@FBRIPPLE_BIN=$(B)/fbripple FBRIPPLE_GOLDEN_UPDATE=1 $(B)/tests/test_headless >/dev/null
	@tmp=$$(mktemp -d) && printf 'water: { light = 0.0; specular = 0.0; };\n' >$$tmp/flat.conf && \
	for look in lit flat; do \
		conf=/dev/null; [ $$look = flat ] && conf=$$tmp/flat.conf; \
		for n in $(STRIP_FRAMES); do \
			$(B)/fbripple -c $$conf --fbdev $$tmp/fb --size 1920x1080 --drop 960,540 \
				--frames $$n --screenshot $$tmp/$$look-$$n.png 2>/dev/null || exit 1; \
		done; \
		$(B)/tests/strip tests/golden/strip-$$look.png \
			$(foreach n,$(STRIP_FRAMES),$$tmp/$$look-$(n).png) || exit 1; \
	done; rm -rf $$tmp
	@sh tests/gallery.sh $(B)/fbripple $(B)/tests/strip tests/golden/gallery.png
	@echo "wrote tests/golden/*.png"

# The manual pages, made at build time so that they cannot drift from what they describe:
# fbripple(8) from etc/man/fbripple.8.in and the binary's own --help, fbripple.conf(5) from
# etc/fbripple.conf's comments (etc/man/*.awk say how). Dated by the changelog's last entry.
# They go to $(B)/man, or build/man for the default build beside the sources (the top level is fixed).
MANOUT    = $(if $(filter .,$(B)),build/man,$(B)/man)
MAN       = $(MANOUT)/fbripple.8 $(MANOUT)/fbripple.conf.5
MANDATE   = $(shell date -u -d "$$(sed -n '/^ -- /{s/.*>  //p;q}' etc/debian/changelog)" +%Y-%m-%d)
.PHONY: man
man: $(MAN)
$(MANOUT)/fbripple.8: $(B)/fbripple etc/man/fbripple.8.in etc/man/help.awk etc/debian/changelog
	@mkdir -p $(@D)
	$(RUN_HOST) $(B)/fbripple --help | awk -v version=$(VERSION) -v date=$(MANDATE) \
		-f etc/man/help.awk - etc/man/fbripple.8.in >$@.tmp && mv $@.tmp $@
$(MANOUT)/fbripple.conf.5: etc/fbripple.conf etc/man/conf.awk etc/debian/changelog
	@mkdir -p $(@D)
	awk -v version=$(VERSION) -v date=$(MANDATE) -f etc/man/conf.awk etc/fbripple.conf \
		>$@.tmp && mv $@.tmp $@

install: all man
	install -D -m 0755 $(B)/fbripple $(DESTDIR)$(BINDIR)/fbripple
	install -D -m 0644 $(MANOUT)/fbripple.8 $(DESTDIR)$(MANDIR)/man8/fbripple.8
	install -D -m 0644 $(MANOUT)/fbripple.conf.5 $(DESTDIR)$(MANDIR)/man5/fbripple.conf.5
	install -D -m 0644 systemd/fbripple.service $(DESTDIR)$(UNITDIR)/fbripple.service
	sed -i 's|@BINDIR@|$(BINDIR)|g; s|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		$(DESTDIR)$(UNITDIR)/fbripple.service
	install -D -m 0644 systemd/fbripple-kiosk.conf $(DESTDIR)$(DOCDIR)/examples/fbripple-kiosk.conf
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/fbripple.conf ]; then \
		echo "keeping existing $(DESTDIR)$(SYSCONFDIR)/fbripple.conf"; \
	else \
		install -D -m 0644 etc/fbripple.conf $(DESTDIR)$(SYSCONFDIR)/fbripple.conf; \
	fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/fbripple $(DESTDIR)$(UNITDIR)/fbripple.service \
		$(DESTDIR)$(MANDIR)/man8/fbripple.8 $(DESTDIR)$(MANDIR)/man5/fbripple.conf.5 \
		$(DESTDIR)$(DOCDIR)/examples/fbripple-kiosk.conf
	-rmdir $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) 2>/dev/null

# The Debian package, build/fbripple_$(VERSION)_$(ARCH).deb, for this machine or for
# ARCH=arm64 (cross-built with check-arm64's toolchain): a `make install` staged with Debian's
# build flags into the package tree of a debian/ directory assembled in build/deb-$(ARCH) from
# etc/debian, then debhelper's own helpers, one by one: the unit's maintainer scripts
# (dh_installsystemd), the conffile, the shared library dependencies (dpkg-shlibdeps), docs,
# stripping, dpkg-deb. lintian then has to pass it without an error or a warning.
ARCH      ?= $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_DIR    = build/deb-$(ARCH)
DEB_OUT    = build/fbripple_$(VERSION)_$(ARCH).deb
DEB_CROSS  = $(if $(filter arm64,$(ARCH)),$(if $(filter aarch64%,$(shell $(CC) -dumpmachine 2>/dev/null)),,$(ARM64)))
DEB_HELPERS = dh_installdocs README.md; dh_installchangelogs; dh_installsystemd; dh_compress; \
	dh_fixperms; dh_strip --no-automatic-dbgsym; dh_makeshlibs; dh_shlibdeps; dh_installdeb; \
	dh_gencontrol; dh_md5sums; dh_builddeb --destdir=..
.PHONY: deb deb-build deps-deb
deps-deb:
	@FBRIPPLE_ARCH=$(ARCH) FBRIPPLE_PACKAGES="$(DEB_BUILD) $(DEB_PACKAGE) \
		$(if $(DEB_CROSS),$(DEB_ARM64))" sh tests/deps.sh

deb: deps-deb
	@$(MAKE) --no-print-directory deb-build

deb-build:
	@v=$$(dpkg-parsechangelog -l etc/debian/changelog -S Version) && [ "$$v" = "$(VERSION)" ] || \
		{ echo "etc/debian/changelog is at $$v, the Makefile at $(VERSION): add an entry"; exit 1; }
	@rm -rf $(DEB_DIR)/debian $(DEB_OUT) && mkdir -p $(DEB_DIR)/debian
	@cp etc/debian/control etc/debian/changelog $(DEB_DIR)/debian/
	@awk -f etc/debian/copyright.awk LICENSE >$(DEB_DIR)/debian/copyright
	@cp README.md $(DEB_DIR)/
	@eval "$$(dpkg-architecture -a$(ARCH) -s 2>/dev/null)" && \
	export DEB_BUILD_MAINT_OPTIONS=hardening=+all && \
	$(MAKE) --no-print-directory $(DEB_CROSS) B=$(DEB_DIR)/build \
		CFLAGS="$$(dpkg-buildflags --get CFLAGS) $$(dpkg-buildflags --get CPPFLAGS)" \
		LDFLAGS="$$(dpkg-buildflags --get LDFLAGS)" PREFIX=/usr SYSCONFDIR=/etc \
		UNITDIR=/lib/systemd/system DESTDIR=$(abspath $(DEB_DIR))/debian/fbripple install >/dev/null && \
	cd $(DEB_DIR) && $(DEB_HELPERS)
	@lintian --fail-on error,warning $(DEB_OUT)
	@echo "$(DEB_OUT)"

clean:
	find src \( -name '*.o' -o -name '*.d' -o -name '*.a' \) -delete
	rm -rf build fbripple tests/*.o tests/*.d $(TESTS) tests/bench tests/bench_render tests/bench_overdraw tests/bench_step tests/bench_threads tests/soak \
		tests/vm/*.o tests/vm/*.d $(VM_HELPERS) tests/strip

help:
	@echo 'make            build ./fbripple'
	@echo 'make run        build and run on /dev/fb0 (a demo PNG where there is none)'
	@echo 'make check      install test deps, build, run every test (unit, headless, VM)'
	@echo 'make check-asan / check-valgrind / check-clang   the tests under sanitizers, valgrind, clang'
	@echo 'make check-paths  the tests that reach a kernel, once per path (FBRIPPLE_SIMD=scalar, sse2, ...)'
	@echo 'make fuzz       every libFuzzer target for FUZZ_SECONDS (check-asan runs them briefly)'
	@echo 'make check-arm64  cross-build for arm64, run the unit and headless tests under qemu-user'
	@echo 'make bench      ms per frame beside a plain port of the seed code'
	@echo 'make soak       the daemon under load for SOAK_MINUTES (10): RSS, fds, threads, replies'
	@echo 'make install    PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) SYSCONFDIR=$(SYSCONFDIR)'
	@echo 'make deb        build/fbripple_$(VERSION)_ARCH.deb for this machine (ARCH=arm64 cross-builds), lintian-checked'
