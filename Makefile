# wp: which instructions write to this memory address?
PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man
DESTDIR	?=
O	?= build

CC	?= cc
CFLAGS	?= -O2 -g
WPFLAGS	 = -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -iquote lib
LDLIBS	 = -lcapstone -ldw -lelf -ljson-c
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=undefined

TOOLS	 = wp-resolve wp-arm wp-decode wp-report
LIBSRC	 = $(wildcard lib/*.c)
LIBOBJ	 = $(LIBSRC:lib/%.c=$(O)/lib/%.o)
# Each tool is built from the files in its own directory over libwp.a.
toolobj	 = $(patsubst cmd/%.c,$(O)/cmd/%.o,$(wildcard cmd/$(1)/*.c))
MAN1	 = $(wildcard man/*.1)
MAN7	 = $(wildcard man/*.7)
TARGETS	 = $(patsubst tests/targets/%.c,%,$(filter-out tests/targets/lib%,\
	   $(wildcard tests/targets/*.c)))

# The bpf backend's program, compiled for the kernel and embedded in
# wp-arm by a skeleton header.
BPFCC	?= clang
BPFTOOL	?= bpftool
BPFINC	 = -I/usr/include/$(shell $(CC) -dumpmachine)

# Debian packages the build, the tests and the guest suite need.
DEPS	 = gcc make pkg-config libelf-dev libdw-dev libcapstone-dev \
	   libjson-c-dev libbpf-dev clang bpftool \
	   bats bats-support bats-assert jq binutils \
	   qemu-system-x86 linux-image-amd64 busybox-static cpio gzip \
	   util-linux procps gdb time

all: $(TOOLS:%=$(O)/%) $(O)/wp $(O)/wp-demo targets

# The front command, beside the tools it runs.
$(O)/wp: cmd/wp
	@mkdir -p $(@D)
	cp cmd/wp $@
	chmod 755 $@

$(O)/wp-demo: share/demo/wp-demo.c
	$(CC) -O1 -g -Wall -Wextra -Werror -o $@ $<

$(O)/lib/%.o: lib/%.c lib/*.h
	@mkdir -p $(@D)
	$(CC) $(WPFLAGS) -iquote $(O)/lib $(CFLAGS) -c -o $@ $<

# The record contract (share/wp-records.schema.json) as a C string: the
# tools check the records they read against it, the tests every record.
$(O)/lib/schema.h: share/wp-records.schema.json
	@mkdir -p $(@D)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@.tmp
	mv $@.tmp $@

$(O)/lib/record.o: $(O)/lib/schema.h

$(O)/libwp.a: $(LIBOBJ)
	rm -f $@
	ar rcs $@ $(LIBOBJ)

$(O)/bpf/wp.bpf.o: cmd/wp-arm/bpf/wp.bpf.c cmd/wp-arm/bpf/wpbpf.h
	@mkdir -p $(@D)
	$(BPFCC) -O2 -g -target bpf $(BPFINC) -Wall -Werror -c -o $@ $<

$(O)/bpf/wp.skel.h: $(O)/bpf/wp.bpf.o
	$(BPFTOOL) gen skeleton $< name wpbpf > $@.tmp
	mv $@.tmp $@

$(O)/cmd/wp-arm/bpf.o: $(O)/bpf/wp.skel.h
$(O)/cmd/wp-arm/bpf.o: WPFLAGS += -iquote $(O)/bpf
$(O)/wp-arm: LDLIBS += -lbpf

.SECONDEXPANSION:
$(O)/cmd/%.o: cmd/%.c lib/*.h $$(wildcard $$(dir cmd/%)*.h)
	@mkdir -p $(@D)
	$(CC) $(WPFLAGS) -iquote $(<D) $(CFLAGS) -c -o $@ $<

$(TOOLS:%=$(O)/%): $(O)/%: $$(call toolobj,%) $(O)/libwp.a
	$(CC) $(CFLAGS) -o $@ $(call toolobj,$*) $(O)/libwp.a $(LDLIBS)

# Test targets: plain -O1 programs, PIE and non-PIE, and a shared library.
TCFLAGS	 = -O1 -g -Wall -Wextra -Werror -pthread
targets: $(TARGETS:%=$(O)/targets/%) $(O)/targets/mt-writer-nopie \
	 $(O)/targets/mt-writer-stripped $(O)/targets/stores-stripped \
	 $(O)/targets/libwpt.so \
	 $(O)/targets/libwpt2.so $(O)/targets/i386-pause

$(O)/targets/lib%.so: tests/targets/lib%.c tests/targets/libwpt.h
	@mkdir -p $(@D)
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $<

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

$(O)/targets/%-stripped: $(O)/targets/%
	strip -o $@ $<

demo: deps all
	@sh share/demo/run-demo.sh $(O)

deps:
	@sh tests/deps.sh $(DEPS)

check: deps all
	@WP_BUILD=$(CURDIR)/$(O) sh tests/run.sh

asan-check:
	$(MAKE) O=build-asan CFLAGS="-O1 -g $(SANFLAGS)" check

install: $(TOOLS:%=$(O)/%) $(O)/wp
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(MANDIR)/man7
	install -m 755 $(TOOLS:%=$(O)/%) $(O)/wp $(DESTDIR)$(BINDIR)
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(MAN7) $(DESTDIR)$(MANDIR)/man7

clean:
	rm -rf build build-asan

.PHONY: all targets deps check asan-check install clean demo
.SECONDARY:
