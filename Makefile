# wp: which instructions write to this memory address?
PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man
COMPDIR	?= $(PREFIX)/share/bash-completion/completions
DOCDIR	?= $(PREFIX)/share/doc/wp
DESTDIR	?=
O	?= build

CC	?= cc
CFLAGS	?= -O2 -g -D_FORTIFY_SOURCE=2
WPFLAGS	 = -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -iquote lib
# What each tool links besides libwp.a; the fuzzers and benchmarks, all.
LDLIBS_wp-resolve = -lcapstone -ldw -lelf
LDLIBS_wp-arm	 = -lcapstone -ldw -lelf -lbpf
LDLIBS_wp-decode = -lcapstone -ldw -lelf
LDLIBS_wp-report =
LDLIBS	 = -lcapstone -ldw -lelf
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=undefined

TOOLS	 = wp-resolve wp-arm wp-decode wp-report
LIBSRC	 = $(wildcard lib/*.c)
LIBOBJ	 = $(LIBSRC:lib/%.c=$(O)/lib/%.o)
# Each tool is built from the files in its own directory and its
# folders (wp-arm's: a folder per backend and per shared engine) over
# libwp.a; a file sees the headers of every folder of its tool.
toolsrc	 = $(wildcard cmd/$(1)/*.c cmd/$(1)/*/*.c)
toolobj	 = $(patsubst cmd/%.c,$(O)/cmd/%.o,$(call toolsrc,$(1)))
tooldirs = $(sort $(dir $(call toolsrc,$(1)) $(wildcard cmd/$(1)/*.h \
	   cmd/$(1)/*/*.h)))
toolhdr	 = $(wildcard cmd/$(1)/*.h cmd/$(1)/*/*.h)
# the tool of a source under cmd/ (wp-arm/bp/perf: wp-arm)
toolof	 = $(firstword $(subst /, ,$(1)))
MAN1	 = $(wildcard man/*.1)
MAN7	 = $(wildcard man/*.7)
TARGETS	 = $(patsubst tests/targets/%.c,%,$(filter-out tests/targets/lib%,\
	   $(wildcard tests/targets/*.c)))
# Targets written in x86-64 assembly or intrinsics: built where CC
# builds for x86-64 only (make O=build/arm64 CC=aarch64-linux-gnu-gcc
# targets builds the others for the arm64 guest, tests/vm/run-guest-arm64).
X86TARGETS = frames insn-kinds insn-lock insn-walk insn-where masked \
	   page-evex page-movs page-rmw page-rw page-sigkeep page-signals \
	   rseq stores truth
ifeq ($(filter x86_64-%,$(shell $(CC) -dumpmachine)),)
TARGETS	:= $(filter-out $(X86TARGETS),$(TARGETS))
X86EXTRA =
else
X86EXTRA = $(O)/targets/stores-stripped $(O)/targets/insn-walk-stripped \
	   $(O)/targets/i386-pause
endif
STRIP	?= strip

# The backends' BPF programs (below), compiled for the kernel and embedded in
# wp-arm by a skeleton header.
BPFCC	?= clang
BPFTOOL	?= bpftool
MACHINE	 = $(shell $(CC) -dumpmachine)
BPFINC	 = -I/usr/include/$(MACHINE) \
	   -D__TARGET_ARCH_$(if $(filter aarch64%,$(MACHINE)),arm64,x86)

# Debian packages the build, the tests and the guest suite need.
DEPS	 = gcc make pkg-config libelf-dev libdw-dev libcapstone-dev \
	   libbpf-dev clang libclang-rt-dev bpftool \
	   bats bats-support bats-assert jq binutils \
	   qemu-system-x86 linux-image-amd64 busybox-static cpio gzip \
	   util-linux procps gdb time mandoc debuginfod libdebuginfod1 libc6-dbg
# and those make deb and its test need
DEBDEPS	 = debhelper dpkg-dev lintian fakeroot
# and those the report page's test needs (tests/45-report-html.bats)
PAGEDEPS = chromium tidy
# and those make arm64 needs on an x86-64 machine (make arm64-deps)
ARM64DEPS = gcc-aarch64-linux-gnu libc6-dev:arm64 libelf-dev:arm64 \
	   libdw-dev:arm64 libcapstone-dev:arm64 libbpf-dev:arm64 \
	   zlib1g-dev:arm64
# and those the arm64 guest needs (the rest it fetches itself)
ARM64VMDEPS = qemu-system-arm binutils

all: tools $(O)/wp-demo targets progs

tools: $(TOOLS:%=$(O)/%) $(O)/wp

# The front command, beside the tools it runs.
$(O)/wp: cmd/wp
	@mkdir -p $(@D)
	cp cmd/wp $@
	chmod 755 $@

$(O)/wp-demo: share/demo/wp-demo.c
	$(CC) -O1 -g -Wall -Wextra -Werror -o $@ $<

$(O)/lib/%.o: lib/%.c lib/*.h
	@mkdir -p $(@D)
	$(CC) $(WPFLAGS) -iquote $(O)/lib $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The record contract (share/wp-records.schema.json) as a C string: the
# tools check the records they read against it, the tests every record.
$(O)/lib/schema-text.h: share/wp-records.schema.json
	@mkdir -p $(@D)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@.tmp
	mv $@.tmp $@

$(O)/lib/schema.o: $(O)/lib/schema-text.h

$(O)/libwp.a: $(LIBOBJ)
	rm -f $@
	ar rcs $@ $(LIBOBJ)

.SECONDEXPANSION:
# Each backend's program (cmd/wp-arm/backend-*/bpf/NAME.bpf.c), compiled
# for the kernel and embedded in wp-arm by its skeleton NAME.skel.h,
# whose struct SKEL_NAME names.
$(O)/bpf/%.bpf.o: $$(wildcard cmd/wp-arm/backend-*/bpf/$$*.bpf.c) \
    $$(wildcard cmd/wp-arm/backend-*/bpf/*.h) lib/bounds.h lib/x86-regs.h \
    lib/arm64-regs.h lib/sample-regs.h lib/cond-ops.h
	@mkdir -p $(@D)
	$(BPFCC) -O2 -g -target bpf $(BPFINC) -iquote lib -Wall \
	    -Werror -c -o $@ $<

$(O)/bpf/%.skel.h: $(O)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(SKEL_$*) > $@.tmp
	mv $@.tmp $@

SKEL_wp	  = wpbpf
SKEL_insn = wpuprobe
$(O)/cmd/wp-arm/backend-bpf/bpf-prog.o: $(O)/bpf/wp.skel.h
$(O)/cmd/wp-arm/backend-uprobe/backend-uprobe.o: $(O)/bpf/insn.skel.h
$(O)/cmd/wp-arm/backend-bpf/bpf-prog.o \
$(O)/cmd/wp-arm/backend-uprobe/backend-uprobe.o: WPFLAGS += -iquote $(O)/bpf

$(O)/cmd/%.o: cmd/%.c lib/*.h $$(call toolhdr,$$(call toolof,$$*))
	@mkdir -p $(@D)
	$(CC) $(WPFLAGS) -iquote $(<D) $(addprefix -iquote ,$(call \
	    tooldirs,$(call toolof,$*))) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(TOOLS:%=$(O)/%): $(O)/%: $$(call toolobj,%) $(O)/libwp.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(call toolobj,$*) $(O)/libwp.a \
	    $(LDLIBS_$*)

# The tests' programs over libwp.a (tests/progs), built as the tools
# are, sanitizers included.
PROGS	 = $(patsubst tests/progs/%.c,%,$(wildcard tests/progs/*.c))
progs: $(PROGS:%=$(O)/progs/%)

$(O)/progs/%: tests/progs/%.c $(O)/libwp.a lib/*.h
	@mkdir -p $(@D)
	$(CC) $(WPFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< \
	    $(O)/libwp.a $(LDLIBS)

# the queue of wp-arm's perf backend, on rings in memory
PQSRC	 = cmd/wp-arm/backend-perf/perf-queue.c cmd/wp-arm/bp/perf.c \
	   cmd/wp-arm/bp/perf-ring.c
$(O)/progs/perf-queue: tests/progs/perf-queue.c $(PQSRC) \
	    cmd/wp-arm/backend-perf/perf-queue.h cmd/wp-arm/bp/perf.h \
	    $(O)/libwp.a lib/*.h
	@mkdir -p $(@D)
	$(CC) $(WPFLAGS) -iquote cmd/wp-arm/backend-perf -iquote cmd/wp-arm/bp \
	    $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(PQSRC) $(O)/libwp.a \
	    $(LDLIBS) -pthread

# Test targets: plain -O1 programs, PIE and non-PIE, and a shared library.
TCFLAGS	 = -O1 -g -Wall -Wextra -Werror -pthread
targets: $(TARGETS:%=$(O)/targets/%) $(O)/targets/mt-writer-nopie \
	 $(O)/targets/mt-writer-stripped \
	 $(O)/targets/cond-writers-stripped \
	 $(O)/targets/callers-fp $(O)/targets/libwpt.so \
	 $(O)/targets/libwpt2.so $(O)/targets/libwptls.so \
	 $(O)/targets/libwptls-ie.so $(O)/targets/libwptls2.so $(X86EXTRA)

$(O)/targets/lib%.so: tests/targets/lib%.c tests/targets/libwpt.h
	@mkdir -p $(@D)
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $<

# libwptls in static TLS, where glibc places initial-exec modules
$(O)/targets/libwptls-ie.so: tests/targets/libwptls.c
	@mkdir -p $(@D)
	$(CC) $(TCFLAGS) -fPIC -ftls-model=initial-exec -shared -o $@ $<

$(O)/targets/shlib-writer: tests/targets/shlib-writer.c $(O)/targets/libwpt.so \
	$(O)/targets/libwpt2.so
	$(CC) $(TCFLAGS) -o $@ $< -L$(O)/targets -Wl,--no-as-needed -lwpt \
	    -lwpt2 -Wl,-rpath,'$$ORIGIN'

# A 32-bit program, made without a 32-bit libc: wp must refuse it.
$(O)/targets/i386-pause: tests/targets/i386-pause.S
	@mkdir -p $(@D)
	as --32 -o $@.o $<
	ld -m elf_i386 -o $@ $@.o
	rm -f $@.o

$(O)/targets/%: tests/targets/%.c $(O)/targets/libwpt.so tests/targets/*.h
	@mkdir -p $(@D)
	$(CC) $(TCFLAGS) -o $@ $< -L$(O)/targets -lwpt -Wl,-rpath,'$$ORIGIN'

$(O)/targets/mt-writer-nopie: tests/targets/mt-writer.c tests/targets/*.h
	$(CC) $(TCFLAGS) -fno-pie -no-pie -o $@ $<

# a frame in every function, the setter's too (gcc -O1 leaves a leaf
# that needs no stack without one, whatever the options): what
# --callchain fp (perf, bpf) can walk
$(O)/targets/callers-fp: tests/targets/callers.c $(O)/targets/libwpt.so \
	tests/targets/*.h
	$(CC) $(TCFLAGS) -O0 -fno-omit-frame-pointer -o $@ $< -L$(O)/targets \
	    -lwpt -Wl,-rpath,'$$ORIGIN'

$(O)/targets/%-stripped: $(O)/targets/%
	$(STRIP) -o $@ $<

# The tools for AArch64, cross-built into $(O)/arm64 over Debian's
# multiarch arm64 libraries.
ARM64CC	?= aarch64-linux-gnu-gcc
ARM64TOOLS = wp-resolve wp-arm wp-decode wp-report
arm64:
	@sh tests/deps.sh -n $(ARM64DEPS)
	$(MAKE) O=$(O)/arm64 CC=$(ARM64CC) $(ARM64TOOLS:%=$(O)/arm64/%) \
	    $(O)/arm64/wp

arm64-deps:
	@sh tests/deps.sh -a arm64 $(ARM64DEPS)

demo: deps all
	@sh share/demo/run-demo.sh $(O)

deps:
	@sh tests/deps.sh $(DEPS) $(DEBDEPS) $(PAGEDEPS)

# CHECK_ARM64=0: without the arm64 guest (tests/run.sh runs its subset
# after the x86-64 guest), and so without its packages and builds
CHECK_ARM64 ?= 1
check: deps all $(if $(filter 1,$(CHECK_ARM64)),arm64-guest-build)
	@WP_BUILD=$(CURDIR)/$(O) WP_ARM64=$(CHECK_ARM64) sh tests/run.sh

# The arm64 guest's tools and test targets, its packages first.
arm64-guest-build: deps
	@sh tests/deps.sh -a arm64 $(ARM64DEPS) $(ARM64VMDEPS)
	$(MAKE) arm64
	$(MAKE) O=$(O)/arm64 CC=$(ARM64CC) STRIP=aarch64-linux-gnu-strip \
	    targets $(O)/arm64/wp-demo

# The live tests (T: some of them, tests/live's names) in the arm64
# guest, with make arm64's tools.
guest-arm64: arm64-guest-build
	WP_BUILD_ARM64=$(CURDIR)/$(O)/arm64 tests/vm/run-guest-arm64 $(T)

# The arm64 package (make deb DEB_ARCH=arm64) installed and run in the
# arm64 guest (tests/live/61-arm64-deb.bats).
guest-arm64-deb: arm64-guest-build
	$(MAKE) deb DEB_ARCH=arm64
	WP_BUILD_ARM64=$(CURDIR)/$(O)/arm64 \
	    WP_DEB_ARM64=$(CURDIR)/$(O)/deb/wp_$(VERSION)_arm64.deb \
	    tests/vm/run-guest-arm64 61-arm64-deb.bats

# a local read before it is set holds the same pattern in every run
asan-check:
	$(MAKE) O=build-asan CHECK_ARM64=0 CFLAGS="-O1 -g $(SANFLAGS) \
	    -ftrivial-auto-var-init=pattern" check

# Fuzzing (tests/fuzz): a libFuzzer harness per stage's input, built
# with clang over the same sources into $(O)/fuzz, seeded by
# tests/fuzz/seeds.sh.  make fuzz runs each FUZZ_TIME seconds; what it
# finds is left in $(O)/fuzz/crashes.
FUZZCC	 ?= clang
FUZZ_TIME ?= 60
FUZZERS	 ?= records resolve arm-input decode report x86 a64
FUZZFLAGS = -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined -g -O1
fuzzsrc_resolve   = cmd/wp-resolve/addr.c
fuzzsrc_arm-input = cmd/wp-arm/input.c cmd/wp-arm/follow.c cmd/wp-arm/watch.c \
		    cmd/wp-arm/emit.c cmd/wp-arm/filter/filter.c \
		    cmd/wp-arm/filter/stop.c cmd/wp-arm/signals.c \
		    cmd/wp-arm/filter/cond-sample.c cmd/wp-arm/trace/regs-x86.c \
		    cmd/wp-arm/trace/regs-arm64.c
fuzzsrc_decode	  = $(filter-out %/main.c,$(wildcard cmd/wp-decode/*.c))
fuzzsrc_report	  = $(filter-out %/main.c,$(wildcard cmd/wp-report/*.c))
fuzzobj	 = $(patsubst %.c,$(O)/fuzz/obj/%.o,$(fuzzsrc_$(1)))

fuzz-build: $(FUZZERS:%=$(O)/fuzz/fuzz-%) $(O)/fuzz/seeds/.done

# a tool's source (cmd/TOOL/...) sees the headers of the tool's folders
fuzztool = $(if $(filter cmd/%,$(1)),$(call toolof,$(patsubst cmd/%,%,$(1))))
$(O)/fuzz/obj/%.o: %.c lib/*.h $(O)/lib/schema-text.h $$(wildcard $$(dir %)*.h) \
	    $$(call toolhdr,$$(call fuzztool,$$*))
	@mkdir -p $(@D)
	$(FUZZCC) $(WPFLAGS) -iquote $(O)/lib -iquote $(<D) $(addprefix \
	    -iquote ,$(call tooldirs,$(call fuzztool,$*))) $(FUZZFLAGS) \
	    -c -o $@ $<

$(O)/fuzz/libwp.a: $(LIBSRC:%.c=$(O)/fuzz/obj/%.o)
	rm -f $@
	ar rcs $@ $^

$(FUZZERS:%=$(O)/fuzz/fuzz-%): $(O)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c \
	    $$(call fuzzobj,%) $(O)/fuzz/libwp.a lib/*.h \
	    $$(wildcard $$(sort $$(addsuffix *.h,$$(dir $$(fuzzsrc_%)))))
	$(FUZZCC) $(WPFLAGS) $(addprefix -iquote ,$(sort $(dir \
	    $(fuzzsrc_$*)))) $(FUZZFLAGS) -o $@ $< $(call fuzzobj,$*) \
	    $(O)/fuzz/libwp.a $(LDLIBS)

$(O)/fuzz/seeds/.done: tests/fuzz/seeds.sh $(wildcard tests/data/*.ndjson \
	    tests/fuzz/corpus/*/*) $(O)/wp-decode $(O)/targets/stores \
	    $(O)/targets/mt-writer $(O)/targets/libwpt.so
	sh tests/fuzz/seeds.sh $(O) $(O)/fuzz/seeds
	touch $@

# -close_fd_mask=3: the tools' warnings about bad lines go nowhere.
# -timeout is wall time: a 4 MB seed takes some 6 s of CPU under the
# sanitizers, which a busy machine stretches; a quadratic reader, minutes.
fuzz: fuzz-build
	@mkdir -p $(O)/fuzz/crashes; status=0; \
	for f in $(FUZZERS); do \
		case $$f in resolve) len=256;; x86|a64) len=64;; *) len=8192;; esac; \
		mkdir -p $(O)/fuzz/corpus/$$f; \
		echo "fuzz-$$f: $(FUZZ_TIME) s"; \
		$(O)/fuzz/fuzz-$$f -max_total_time=$(FUZZ_TIME) -max_len=$$len \
		    -timeout=30 -close_fd_mask=3 -print_final_stats=1 \
		    -artifact_prefix=$(O)/fuzz/crashes/$$f- \
		    $(O)/fuzz/corpus/$$f $(O)/fuzz/seeds/$$f || status=1; \
	done; \
	echo "fuzz-records, lines up to 4 MB: $(FUZZ_TIME) s"; \
	mkdir -p $(O)/fuzz/corpus/records-large; \
	$(O)/fuzz/fuzz-records -max_total_time=$(FUZZ_TIME) -max_len=4194304 \
	    -timeout=30 -close_fd_mask=3 -print_final_stats=1 \
	    -artifact_prefix=$(O)/fuzz/crashes/records-large- \
	    $(O)/fuzz/corpus/records-large $(O)/fuzz/seeds/records-large \
	    || status=1; \
	exit $$status

# Benchmarks built here (make bench), beside bench/*.sh: bench/drain.c
# runs wp-arm's perf drain and hit formatter on a ring in memory.
bench: $(O)/bench/drain

$(O)/bench/drain: bench/drain.c cmd/wp-arm/bp/perf.c cmd/wp-arm/bp/perf-ring.c \
	    cmd/wp-arm/bp/perf.h $(O)/libwp.a
	@mkdir -p $(@D)
	$(CC) $(WPFLAGS) -iquote cmd/wp-arm/bp $(CFLAGS) -o $@ bench/drain.c \
	    cmd/wp-arm/bp/perf.c cmd/wp-arm/bp/perf-ring.c $(O)/libwp.a $(LDLIBS)

install: $(TOOLS:%=$(O)/%) $(O)/wp
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(MANDIR)/man7
	install -m 755 $(TOOLS:%=$(O)/%) $(O)/wp $(DESTDIR)$(BINDIR)
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(MAN7) $(DESTDIR)$(MANDIR)/man7
	install -d $(DESTDIR)$(COMPDIR) $(DESTDIR)$(DOCDIR)
	install -m 644 README.md LICENSE $(DESTDIR)$(DOCDIR)
	install -m 644 share/bash-completion/wp $(DESTDIR)$(COMPDIR)/wp
	for t in $(TOOLS); do ln -sf wp $(DESTDIR)$(COMPDIR)/$$t; done

# The Debian package (debian/), built by dpkg-buildpackage in a copy of
# the sources under $(O)/deb, where it leaves wp_VERSION_ARCH.deb.
# DEB_ARCH=arm64 cross-builds it (make arm64-deps installs what that
# needs) with the cross compiler of its GNU type, as CC, and without
# the tests a cross build cannot run.  The make variables given here
# stay out of the package's own make.
VERSION	 = $(shell sed -n 's/^\#define WP_VERSION "\(.*\)"$$/\1/p' lib/util.h)
DEBSRC	 = Makefile LICENSE README.md cmd lib man share debian
DEBJOBS	?= $(shell nproc)
DEB_ARCH ?= $(shell dpkg --print-architecture)
DEBCROSS = $(if $(filter-out $(shell dpkg --print-architecture),$(DEB_ARCH)),\
	   CC=$(shell dpkg-architecture -a$(DEB_ARCH) -qDEB_HOST_GNU_TYPE \
	   2>/dev/null)-gcc DEB_BUILD_OPTIONS=nocheck DEB_BUILD_PROFILES=cross)
deb:
	$(if $(filter arm64,$(DEBCROSS:%=$(DEB_ARCH))),@sh tests/deps.sh -n $(ARM64DEPS))
	rm -rf $(O)/deb/wp-$(VERSION) $(O)/deb/wp*_$(VERSION)_$(DEB_ARCH).*
	mkdir -p $(O)/deb/wp-$(VERSION)
	cp -R $(DEBSRC) $(O)/deb/wp-$(VERSION)
	(cd $(O)/deb/wp-$(VERSION) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	    -u MAKEOVERRIDES $(DEBCROSS) dpkg-buildpackage -a$(DEB_ARCH) \
	    -b -us -uc -J$(DEBJOBS)); s=$$?; rm -rf $(O)/deb/wp-$(VERSION); \
	    exit $$s

# The man pages render without warnings; the shell scripts parse.
lint:
	mandoc -T lint -W warning $(MAN1) $(MAN7)
	bash -n cmd/wp
	bash -n share/bash-completion/wp

clean:
	rm -rf build build-asan

.PHONY: all tools targets progs deps arm64 arm64-deps arm64-guest-build check guest-arm64 guest-arm64-deb asan-check install deb lint clean demo fuzz \
	fuzz-build bench
.SECONDARY:
