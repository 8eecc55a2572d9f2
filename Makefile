# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# ksymattach: build, test and VM bench. `make deps` once on a fresh Debian 12.
HOST_ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
# ARCH from the command line only: a shell may export one for other builds
ifneq ($(origin ARCH),command line)
ARCH := $(HOST_ARCH)
endif
# `make ARCH=arm64` on x86-64: a cross build in a directory of its own, with the
# cross compiler (make deps) and the target's static libraries, which
# scripts/pkgcache unpacks from the target's Debian packages into a sysroot.
ifneq ($(ARCH),$(HOST_ARCH))
ifneq ($(ARCH),arm64)
$(error ARCH=$(ARCH): only arm64 is cross-built here)
endif
OUTPUT ?= build/$(ARCH)
CROSS_COMPILE ?= aarch64-linux-gnu-
CC := $(CROSS_COMPILE)gcc
AR := $(CROSS_COMPILE)ar
SYSROOT := $(abspath $(OUTPUT)/sysroot)
SYSROOT_STAMP := $(SYSROOT)/.complete
CROSS_CFLAGS := -I$(SYSROOT)/usr/include
LDFLAGS += -L$(SYSROOT)/usr/lib/aarch64-linux-gnu
LIBBPF_MAKE_FLAGS := CC=$(CC) AR=$(AR) NO_PKG_CONFIG=1 EXTRA_CFLAGS="$(CROSS_CFLAGS)"
endif
OUTPUT ?= build
CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
LLVM_STRIP ?= llvm-strip
LIBBPF_SRC := $(abspath libbpf/src)
LIBBPF_OBJ := $(abspath $(OUTPUT)/libbpf.a)

# Install directories, GNU style (the package passes PREFIX=/usr SYSCONFDIR=/etc).
# SYSCONFDIR is built into the binary: the default config is read from there.
PREFIX ?= /usr/local
# sbin: an administrator's tool that needs root or capabilities, as bpftool
BINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= $(PREFIX)/etc
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
UNITDIR ?= $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
BASHCOMPDIR ?= $(or $(shell pkg-config --variable=completionsdir bash-completion 2>/dev/null),$(DATADIR)/bash-completion/completions)
INSTALL ?= install

WARN := -Wall -Wextra -Werror -Wno-missing-field-initializers
CFLAGS ?= -O2 -g
override CFLAGS += $(WARN) -std=gnu11 -D_GNU_SOURCE $(CROSS_CFLAGS)

# One directory per part, dependencies one way, each part compiled with only
# the include paths of what it may use:
#   src/ (CLI, service) -> src/engine -> lib/ksym;  bench -> kmodel -> lib/ksym
# libksym's parts, each a folder; a part sees only the headers of the parts
# below it (docs/architecture.md), so an include against the arrows fails
KSYM_PARTS := table files btf site kmem plan cache sources load
KSYM_SRCS := $(wildcard $(KSYM_PARTS:%=lib/ksym/%/*.c))
KSYM_HDRS := $(wildcard lib/ksym/include/ksym/*.h $(KSYM_PARTS:%=lib/ksym/%/*.h))
# every part's headers: for the tests and tools that reach inside
KSYM_INC := $(KSYM_PARTS:%=-Ilib/ksym/%)
MODEL_SRCS := kmodel/kmodel.c
BENCH_SRCS := $(wildcard bench/*.c)
ENGINE_SRCS := $(wildcard src/engine/*.c)
OUTPUT_SRCS := $(wildcard src/output/*.c)
SERVICE_SRCS := $(wildcard src/service/*.c)
WATCH_SRCS := $(wildcard src/watch/*.c)
CLI_SRCS := $(wildcard src/*.c)
# compiled against libbpf 1.8's headers (below): apart from the rest
L18_SRCS := $(wildcard src/libbpf18/*.c)
APP_SRCS := $(CLI_SRCS) $(SERVICE_SRCS) $(WATCH_SRCS) $(ENGINE_SRCS) $(OUTPUT_SRCS) \
	$(BENCH_SRCS) $(MODEL_SRCS)
OBJ := $(OUTPUT)/obj
APP_OBJS := $(APP_SRCS:%.c=$(OBJ)/%.o)
L18_OBJS := $(L18_SRCS:%.c=$(OBJ)/%.o)
KSYM_OBJS := $(KSYM_SRCS:%.c=$(OBJ)/%.o)
APP_HDRS := $(wildcard src/*.h src/*/*.h bench/*.h kmodel/*.h bpf/*.h) $(KSYM_HDRS)

# The one version the binary, the library and the package share.
VERSION := $(shell sed -n 's/^\#define KSYM_VERSION "\(.*\)"/\1/p' lib/ksym/include/ksym/ksym.h)

LIB_INC := -Ilib/ksym/include
# libbpf's headers as its build installs them, and its newer UAPI copy
# (link info, session) than the distribution's linux/bpf.h
BPF_INC := -I$(OUTPUT) -Ilibbpf/include/uapi
KSYM_INC_table := -Ilib/ksym/table
KSYM_INC_files := -Ilib/ksym/files $(KSYM_INC_table)
KSYM_INC_btf := -Ilib/ksym/btf $(KSYM_INC_table)
KSYM_INC_site := -Ilib/ksym/site $(KSYM_INC_table)
KSYM_INC_kmem := -Ilib/ksym/kmem $(KSYM_INC_site) -Ilib/ksym/btf
KSYM_INC_plan := -Ilib/ksym/plan
KSYM_INC_cache := -Ilib/ksym/cache $(KSYM_INC_kmem)
KSYM_INC_sources := -Ilib/ksym/sources $(KSYM_INC_plan) $(KSYM_INC_kmem)
KSYM_INC_load := $(KSYM_INC)
$(foreach p,$(KSYM_PARTS),$(eval $(OBJ)/lib/ksym/$(p)/%.o: PART_INC := $(LIB_INC) $(KSYM_INC_$(p))))
# (a part's include path, for the test that an include against the arrows fails)
.PHONY: print-ksym-inc-%
print-ksym-inc-%:
	@echo $(LIB_INC) $(KSYM_INC_$*)
$(OBJ)/kmodel/%.o: PART_INC := $(LIB_INC)
$(OBJ)/bench/%.o: PART_INC := $(LIB_INC) -Ikmodel -Isrc/common -Isrc/output
$(OBJ)/src/output/%.o: PART_INC := $(LIB_INC) -Isrc/engine -Isrc/common -Ibpf $(BPF_INC)
$(OBJ)/src/service/%.o: PART_INC := $(LIB_INC) -Isrc/engine -Isrc/watch -Isrc/output -Isrc/common \
	-Ibpf $(BPF_INC)
$(OBJ)/src/engine/%.o: PART_INC := $(LIB_INC) -Isrc/common -Isrc/output -Isrc/libbpf18 -Ibpf \
	$(BPF_INC)
# libbpf 1.8's headers only; its object's skeleton by a quoted include
$(OBJ)/src/libbpf18/%.o: PART_INC = $(LIBBPF18_INC) -iquote $(OUTPUT)
$(OBJ)/src/watch/%.o: PART_INC := -Isrc/output -Isrc/common -Ibpf $(BPF_INC)
$(OBJ)/src/%.o: PART_INC := $(LIB_INC) -Isrc/engine -Isrc/output -Isrc/common -Isrc/service \
	-Isrc/watch \
	-Ibench -Ibpf $(BPF_INC) -DKSA_VERSION='"$(VERSION)"' -DKSA_SYSCONFDIR='"$(SYSCONFDIR)"'
LDLIBS := -lelf -lz -lzstd -pthread
APP_LDLIBS := $(LDLIBS)

.SECONDARY:
.PHONY: all lib
all: $(OUTPUT)/ksymattach lib
lib: $(OUTPUT)/libksym.a $(OUTPUT)/libksym.pc

# libbpf/ is a libbpf source tree: a submodule checkout if you have one, otherwise
# Debian trixie's libbpf source package fetched through a private apt config.
libbpf/src/Makefile:
	scripts/pkgcache libbpf-src libbpf

$(LIBBPF_OBJ): libbpf/src/Makefile $(SYSROOT_STAMP) | $(OUTPUT)/libbpf
	$(MAKE) -C $(LIBBPF_SRC) BUILD_STATIC_ONLY=1 OBJDIR=$(abspath $(OUTPUT)/libbpf) \
		DESTDIR=$(abspath $(OUTPUT)) INCLUDEDIR= LIBDIR= UAPIDIR= \
		CFLAGS="-O2 -g -fPIC" $(LIBBPF_MAKE_FLAGS) install >/dev/null
	cp $(OUTPUT)/libbpf/libbpf.a $@

$(OUTPUT) $(OUTPUT)/libbpf:
	mkdir -p $@

ifdef SYSROOT
$(SYSROOT_STAMP): | $(OUTPUT)
	scripts/pkgcache sysroot $(ARCH) $(SYSROOT) > /dev/null
$(KSYM_OBJS): $(SYSROOT_STAMP)
endif

# libbpf 1.8 beside 1.5, for the --compare row that attaches with
# bpf_program__attach_tracing_multi(), which 1.5 lacks: built from the
# tools/lib/bpf of the kernel source `newest` runs (Debian's linux-source), and
# every global symbol it defines renamed l18_, so that both link into one
# static binary and each one's calls stay inside it. A file that uses 1.8 is
# compiled with $(LIBBPF18_INC) instead of $(BPF_INC), and so sees none of 1.5's
# headers: its plain libbpf calls name the renamed functions (rename.h).
LIBBPF18_SRC := $(abspath $(OUTPUT)/linux-src)
LIBBPF18_DIR := $(abspath $(OUTPUT)/libbpf18)
LIBBPF18_OBJ := $(LIBBPF18_DIR)/libbpf18.a
LIBBPF18_INC := -I$(LIBBPF18_DIR)/include -include $(LIBBPF18_DIR)/rename.h

$(LIBBPF18_SRC)/.complete:
	scripts/pkgcache linux-src newest $(LIBBPF18_SRC) > /dev/null
# (a tree unpacked before kallsyms' sources were among its parts is unpacked again)
$(LIBBPF18_SRC)/kernel/kallsyms.c: $(LIBBPF18_SRC)/.complete
	@[ -f $@ ] || scripts/pkgcache linux-src newest $(LIBBPF18_SRC) > /dev/null

# The kernel's tools build: LD for its `ld -r` of all objects into one, ARCH
# for its arch headers. Then the renaming: the symbols readelf lists as defined
# and global (the hidden ones clash in a static link too); what the archive
# only calls (libc, libelf, zlib) keeps its name. rename.h names the exported
# ones only, so that a file using 1.8 keeps its own names for the rest.
LIBBPF18_BUILD := $(LIBBPF18_DIR)/build
$(LIBBPF18_OBJ): B := $(LIBBPF18_BUILD)
$(LIBBPF18_OBJ): $(LIBBPF18_SRC)/.complete $(SYSROOT_STAMP)
	@mkdir -p $(B) $(LIBBPF18_DIR)/include/linux
	$(MAKE) -C $(LIBBPF18_SRC)/tools/lib/bpf ARCH=$(ARCH) OUTPUT=$(B)/ \
		DESTDIR=$(LIBBPF18_DIR) prefix= $(LIBBPF_MAKE_FLAGS) LD=$(CROSS_COMPILE)ld \
		$(B)/libbpf.a install_headers > /dev/null
	cp $(addprefix $(LIBBPF18_SRC)/tools/include/uapi/linux/,bpf.h bpf_common.h btf.h) \
		$(LIBBPF18_DIR)/include/linux/
	readelf -sW $(B)/libbpf.a | awk '$$1 ~ /^[0-9]+:$$/ && $$(NF - 1) != "UND" && \
		$$5 ~ /^(GLOBAL|WEAK|UNIQUE)$$/ { print $$6, $$NF }' | sort -u -k2 > $(B)/syms
	awk '{ print $$2, "l18_" $$2 }' $(B)/syms > $(B)/redefine
	$(CROSS_COMPILE)objcopy --redefine-syms=$(B)/redefine $(B)/libbpf.a $@.tmp
	{ echo '/* libbpf 1.8: its API as $(notdir $@) names it (made by the Makefile) */'; \
		awk '$$1 == "DEFAULT" { print "#define", $$2, "l18_" $$2 }' $(B)/syms; \
		} > $(LIBBPF18_DIR)/rename.h
	mv $@.tmp $@

# BPF side: compiled against the committed vmlinux.h (make vmlinux-h regenerates it).
$(OUTPUT)/%.bpf.o: bpf/%.bpf.c bpf/ksymattach.h bpf/ksa_common.bpf.h bpf/ksa_fsession.bpf.h bpf/lookup_time.bpf.h bpf/watch.h vmlinux.h \
		$(LIBBPF_OBJ) | $(OUTPUT)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(OUTPUT) -I. -Ibpf -c $< -o $@
	$(LLVM_STRIP) -g $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

# one object per need: the session program's kfuncs make its load read vmlinux BTF
$(OBJ)/src/engine/attach.o $(OBJ)/src/engine/kprobes.o: $(OUTPUT)/ksymattach.skel.h \
	$(OUTPUT)/ksymattach_session.skel.h
$(OBJ)/src/engine/tmulti.o: $(OUTPUT)/ksymattach_fsession.skel.h
$(OBJ)/src/engine/lookups.o: $(OUTPUT)/ksymattach_lookups.skel.h
$(L18_OBJS): $(OUTPUT)/ksymattach_tmulti18.skel.h $(LIBBPF18_OBJ)

$(OBJ)/src/watch/watch.o: $(OUTPUT)/watch.skel.h

# libbpf's headers (and its newer UAPI copy) come with its build: every object
# of the tool waits for it; the library's do not need it.
$(APP_OBJS): $(LIBBPF_OBJ)
$(OBJ)/%.o: %.c $(APP_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PART_INC) -c $< -o $@

# What is compiled in besides the sources: a change rebuilds what uses it.
BUILD_VARS := $(SYSCONFDIR) $(PREFIX) $(LIBDIR) $(INCLUDEDIR) $(VERSION)
$(OUTPUT)/build-vars: FORCE | $(OUTPUT)
	@echo '$(BUILD_VARS)' | cmp -s - $@ || echo '$(BUILD_VARS)' > $@
.PHONY: FORCE
$(OBJ)/src/main.o $(OUTPUT)/libksym.pc: $(OUTPUT)/build-vars

# libksym: the lookup layer as a static library for agents (examples/).
$(OUTPUT)/libksym.a: $(KSYM_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(OUTPUT)/libksym.pc: lib/ksym/libksym.pc.in lib/ksym/include/ksym/ksym.h
	sed -e 's|@PREFIX@|$(PREFIX)|;s|@LIBDIR@|$(LIBDIR)|;s|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(VERSION)|' $< > $@

# One static file: runs on fleet nodes without libbpf and inside the VM.
$(OUTPUT)/ksymattach: $(APP_OBJS) $(L18_OBJS) $(OUTPUT)/libksym.a $(LIBBPF_OBJ) $(LIBBPF18_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -static $^ $(APP_LDLIBS) -o $@

# examples/: an agent linking libksym (static, so that it runs in the VM too).
.PHONY: examples
examples: $(OUTPUT)/examples/agent
$(OUTPUT)/examples/%.bpf.o: examples/%.bpf.c vmlinux.h $(LIBBPF_OBJ)
	@mkdir -p $(@D)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(OUTPUT) -I. -c $< -o $@
	$(LLVM_STRIP) -g $@

$(OUTPUT)/examples/agent: examples/agent.c $(OUTPUT)/examples/agent.skel.h $(OUTPUT)/libksym.a \
		$(LIBBPF_OBJ) $(KSYM_HDRS)
	$(CC) $(CFLAGS) -I$(OUTPUT)/examples $(LIB_INC) $(BPF_INC) $< $(OUTPUT)/libksym.a \
		$(LIBBPF_OBJ) $(LDFLAGS) -static $(LDLIBS) -o $@

.PHONY: vmlinux-h
vmlinux-h:
	k=$$(scripts/pkgcache kernel 6.12) && scripts/extract-vmlinux $$k/vmlinuz $(OUTPUT)/vmlinux && \
		$(BPFTOOL) btf dump file $(OUTPUT)/vmlinux format c > vmlinux.h

# Fresh Debian 12: what the build and the tests need, from Debian 12's own archive.
DEPS := gcc make clang llvm bpftool libelf-dev zlib1g-dev libzstd-dev libcmocka-dev \
	pkg-config dpkg-dev binutils qemu-system-x86 busybox-static cpio xz-utils zstd perl python3 \
	libclang-rt-14-dev debhelper lintian fakeroot mmdebstrap e2fsprogs \
	prometheus systemd bash-completion debian-archive-keyring strace \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static qemu-system-arm \
	flex bison bc libssl-dev patch
.PHONY: deps
deps:
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f='$${db:Status-Abbrev}' $$p 2>/dev/null | \
		grep -q '^ii' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends $$missing; \
	fi

# Run the main job for real: on this host if its kernel can attach, else in the
# bundled VM: the newest kernel Debian ships (trixie-backports), or KERNEL=6.12,
# 6.1, 5.10.
ARGS ?= -p 'vfs_*' -d 3
KERNEL ?= newest
.PHONY: run
run: $(OUTPUT)/ksymattach
	OUTPUT=$(OUTPUT) scripts/run $(KERNEL) $(ARGS)

# Tests: unit (plain and ASan/UBSan), host CLI, the VM suite on both kernels.
# The unit tests link the library as agents do; the sanitized ones build it in.
UNIT_TESTS := test_ksym test_ksym_real test_ksym_cache test_ksym_build test_ksym_kmem test_ksym_btf \
	test_ksym_ftrace test_ksym_plan test_ksym_site test_kmodel
UNIT_BINS := $(UNIT_TESTS:%=$(OUTPUT)/tests/%) $(UNIT_TESTS:%=$(OUTPUT)/tests/%-asan) \
	$(OUTPUT)/tests/test_config $(OUTPUT)/tests/test_config-asan \
	$(OUTPUT)/tests/test_hitprog $(OUTPUT)/tests/test_hitprog-asan \
	$(OUTPUT)/tests/test_halve $(OUTPUT)/tests/test_halve-asan \
	$(OUTPUT)/tests/test_watch $(OUTPUT)/tests/test_watch-asan
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
DATA := $(patsubst tests/data/%.xz,$(OUTPUT)/data/%,$(wildcard tests/data/*/*.xz))
TEST_ENV := KSYM_DATA=$(abspath $(OUTPUT)/data) OUTPUT=$(abspath $(OUTPUT)) \
	CMOCKA_MESSAGE_OUTPUT=TAP
TEST_INC := $(LIB_INC) -Ikmodel

$(OUTPUT)/data/%: tests/data/%.xz
	@mkdir -p $(@D)
	xz -dc $< > $@.tmp && mv $@.tmp $@

# What kallsyms/check.sh (tests/host/kallsyms.t) builds on: the kernel's kallsyms
# sources, the library for the model, the captured symbol lists.
.PHONY: kallsyms-deps
kallsyms-deps: $(LIBBPF18_SRC)/kernel/kallsyms.c $(OUTPUT)/libksym-asan.a $(DATA)

# The library compiled once per instrumentation, for the tests that build it in
# (a test that includes one of its files keeps its own copy: the archive's is
# then not linked).
$(OUTPUT)/obj-asan/%.o: %.c $(KSYM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE $(LIB_INC) $(KSYM_INC) -c $< -o $@
$(OUTPUT)/libksym-asan.a: $(KSYM_SRCS:%.c=$(OUTPUT)/obj-asan/%.o)
	rm -f $@ && $(AR) rcs $@ $^

$(OUTPUT)/tests/%-asan: tests/unit/%.c $(OUTPUT)/libksym-asan.a $(MODEL_SRCS) $(KSYM_HDRS) \
		$(wildcard kmodel/*.h tests/unit/*.h)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE $(TEST_INC) $(KSYM_INC) $< \
		$(MODEL_SRCS) $(OUTPUT)/libksym-asan.a -lcmocka -lelf -pthread -o $@

$(OUTPUT)/tests/%: tests/unit/%.c $(MODEL_SRCS) $(OUTPUT)/libksym.a $(KSYM_HDRS) $(wildcard kmodel/*.h tests/unit/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TEST_INC) $< $(MODEL_SRCS) $(OUTPUT)/libksym.a -lcmocka -lelf -pthread -o $@

# The build cache's layouts are internal (ksym_build__export/import read the
# running kernel's): its test builds them, with the library's internal header;
# so do the tests of the other internal parts (the BTF answers' file among them).
$(OUTPUT)/tests/test_ksym_build $(OUTPUT)/tests/test_ksym_kmem \
	$(OUTPUT)/tests/test_ksym_ftrace $(OUTPUT)/tests/test_ksym_plan \
	$(OUTPUT)/tests/test_ksym_site $(OUTPUT)/tests/test_ksym_btf \
	$(OUTPUT)/tests/test_ksym_cache: TEST_INC += $(KSYM_INC)

# The engine's hand-assembled counter, with libbpf's syscall wrappers.
HITPROG_INC := -Isrc/engine -Ibpf $(BPF_INC)
$(OUTPUT)/tests/test_hitprog: tests/unit/test_hitprog.c src/engine/hitprog.c src/engine/hitprog.h \
		$(LIBBPF_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(HITPROG_INC) $< src/engine/hitprog.c $(LIBBPF_OBJ) -lcmocka -lelf -lz \
		-lzstd -o $@
$(OUTPUT)/tests/test_hitprog-asan: tests/unit/test_hitprog.c src/engine/hitprog.c \
		src/engine/hitprog.h $(LIBBPF_OBJ)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE $(HITPROG_INC) $< src/engine/hitprog.c \
		$(LIBBPF_OBJ) -lcmocka -lelf -lz -lzstd -o $@

# The engine's halving of refused links, against a fake kernel.
$(OUTPUT)/tests/test_halve: tests/unit/test_halve.c src/engine/halve.c src/engine/halve.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc/engine $< src/engine/halve.c -lcmocka -o $@
$(OUTPUT)/tests/test_halve-asan: tests/unit/test_halve.c src/engine/halve.c src/engine/halve.h
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -Isrc/engine $< src/engine/halve.c \
		-lcmocka -o $@

# The watcher's decoding and accounting of other processes' events.
WATCH_TEST_INC := -Isrc/watch -Isrc/output -Isrc/common -Ibpf $(BPF_INC)
WATCH_TEST_SRCS := src/watch/decode.c src/watch/procs.c src/watch/totals.c
$(OUTPUT)/tests/test_watch: tests/unit/test_watch.c $(WATCH_TEST_SRCS) src/watch/*.h bpf/watch.h \
		$(LIBBPF_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WATCH_TEST_INC) $< $(WATCH_TEST_SRCS) -lcmocka -o $@
$(OUTPUT)/tests/test_watch-asan: tests/unit/test_watch.c $(WATCH_TEST_SRCS) src/watch/*.h \
		bpf/watch.h $(LIBBPF_OBJ)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE $(WATCH_TEST_INC) $< $(WATCH_TEST_SRCS) \
		-lcmocka -o $@

# The config parser: the service's, with the glob matcher it checks patterns with.
CONFIG_INC := -Isrc/service -Isrc/engine $(LIB_INC) -Ibpf
CONFIG_SRCS := src/service/config.c lib/ksym/table/glob.c
$(OUTPUT)/tests/test_config: tests/unit/test_config.c $(CONFIG_SRCS) src/service/config.h $(KSYM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CONFIG_INC) $< $(CONFIG_SRCS) -lcmocka -o $@

$(OUTPUT)/tests/test_config-asan: tests/unit/test_config.c $(CONFIG_SRCS) src/service/config.h $(KSYM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE $(CONFIG_INC) $< $(CONFIG_SRCS) \
		-lcmocka -o $@

# libFuzzer targets: one per parser format, the cache loaders, the globs, the config.
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	$(WARN) -std=gnu11 -D_GNU_SOURCE $(LIB_INC)
FUZZ_FORMATS := kallsyms funcs funcs_addrs blacklist system_map
FUZZ_BINS := $(patsubst %,$(OUTPUT)/fuzz/fuzz_%,$(FUZZ_FORMATS) cache build iter modlive kmem btf bfuncs glob config)

# (the parsers' ring in 16-byte chunks, the BTF scanner's window 160 bytes: what
# they read splits everywhere)
FUZZ_LIB_FLAGS := $(subst fuzzer,fuzzer-no-link,$(FUZZ_FLAGS)) $(KSYM_INC) \
	-DKSYM_RING_CHUNK=16 -DKSYM_RING_CHUNKS=2 -DKSYM_BTF_WIN=160
$(OUTPUT)/obj-fuzz/%.o: %.c $(KSYM_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_LIB_FLAGS) -c $< -o $@
FUZZ_LIB := $(OUTPUT)/libksym-fuzz.a
$(FUZZ_LIB): $(KSYM_SRCS:%.c=$(OUTPUT)/obj-fuzz/%.o)
	rm -f $@ && $(AR) rcs $@ $^

define fuzz_format
$(OUTPUT)/fuzz/fuzz_$(1): tests/fuzz/fuzz_parse.c $(FUZZ_LIB) $(KSYM_HDRS)
	@mkdir -p $$(@D)
	$(CLANG) $(FUZZ_FLAGS) -DFUZZ_FMT=KSYM_FMT_$(shell echo $(1) | tr a-z A-Z) $$< $(FUZZ_LIB) \
		-lelf -o $$@
endef
$(foreach f,$(FUZZ_FORMATS),$(eval $(call fuzz_format,$(f))))

# (a fuzzer that includes the file it tests keeps its copy: the archive's is not linked)
$(OUTPUT)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB) $(KSYM_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_FLAGS) $(KSYM_INC) $< $(FUZZ_LIB) -lelf -o $@

$(OUTPUT)/fuzz/fuzz_glob: tests/fuzz/fuzz_glob.c lib/ksym/table/glob.c $(KSYM_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_FLAGS) $< lib/ksym/table/glob.c -o $@

$(OUTPUT)/fuzz/fuzz_config: tests/fuzz/fuzz_config.c $(CONFIG_SRCS) src/service/config.h $(KSYM_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_FLAGS) $(CONFIG_INC) $< $(CONFIG_SRCS) -o $@

.PHONY: fuzz
fuzz: $(FUZZ_BINS)
	OUTPUT=$(abspath $(OUTPUT)) FUZZ_SECONDS=$(or $(FUZZ_SECONDS),60) prove -v --exec '' tests/fuzz/run.t

# The VM tests' own tools, static like the binary they sit beside in the guest.
VM_TOOLS := $(OUTPUT)/tests/forge_build $(OUTPUT)/tests/iter_dump $(OUTPUT)/tests/modlive_dump \
	$(OUTPUT)/tests/syscall_loop
.PHONY: vm-tools
vm-tools: $(VM_TOOLS)
$(OUTPUT)/tests/%: tests/vm/tools/%.c $(OUTPUT)/libksym.a $(KSYM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LIB_INC) $(KSYM_INC) -static $< $(OUTPUT)/libksym.a $(LDFLAGS) -lelf -lz \
		-lzstd -pthread -o $@
# the per-call bench's loop (tests/vm/bench-percall.sh): plain libc, no libksym
$(OUTPUT)/tests/syscall_loop: tests/vm/tools/syscall_loop.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static $< $(LDFLAGS) -o $@

.PHONY: check check-fast check-unit check-host check-vm
# The fleet tests (tests/vm/fleet-*.t) install the package: it is built first.
# Two at a time, the VMs (the longest) first: each VM is one emulated CPU
# (single-threaded TCG), so two keep both cores busy; what they share (downloads,
# the root filesystem) is locked. The longest suite starts first: last, it ran
# alone for minutes.
VM_FIRST := tests/vm/linux-newest.t tests/vm/linux-6.12.t tests/vm/fleet-trixie.t tests/vm/fleet-arm64.t \
	tests/vm/fleet-6.12.t
VM_TESTS := $(VM_FIRST) $(filter-out $(VM_FIRST),$(wildcard tests/vm/*.t))
# The arm64 build beside this one, for the tests that run it: under qemu-user on
# this host (tests/host/arm64.t) and in an arm64 guest (tests/vm/arm64-*.t).
.PHONY: cross
ifeq ($(HOST_ARCH),x86)
cross:
	$(MAKE) ARCH=arm64 OUTPUT=$(OUTPUT)/arm64 all examples vm-tools deb
else
cross:
endif

check: all examples deb cross $(UNIT_BINS) $(DATA) $(FUZZ_BINS) $(VM_TOOLS) $(LIBBPF18_OBJ) \
		kallsyms-deps
	@tests/vm/cache-notice
	$(TEST_ENV) prove -j2 -f --timer --exec '' $(VM_TESTS) tests/fuzz/run.t tests/host/*.t $(UNIT_BINS)
# The development loop: unit and host tests, no guest and no package build
# (docs/testing.md); package.t needs `make deb` and runs in make check.
check-fast: all cross $(UNIT_BINS) $(DATA) $(LIBBPF18_OBJ) kallsyms-deps
	$(TEST_ENV) prove -j2 -f --timer --exec '' $(filter-out tests/host/package.t,$(wildcard tests/host/*.t)) $(UNIT_BINS)
check-unit: $(UNIT_BINS) $(DATA)
	$(TEST_ENV) prove -f --exec '' $(UNIT_BINS)
check-host: all cross $(DATA) $(LIBBPF18_OBJ) kallsyms-deps
	$(TEST_ENV) prove -f --exec '' tests/host/*.t
check-vm: all examples deb cross $(VM_TOOLS)
	$(TEST_ENV) prove -j2 -f --timer --exec '' $(VM_TESTS)


# The lookup layer against the reference methods, on the live table and the
# VM kernels' captured ones. Prints ratios measured side by side in one run.
.PHONY: bench
bench: all $(DATA)
	$(OUTPUT)/ksymattach bench /proc/kallsyms $(OUTPUT)/data/6.12/kallsyms \
		$(OUTPUT)/data/6.1/kallsyms $(BENCH_ARGS)

# The kernel's kallsyms table rebuilt from real symbol sets: the lookup series'
# variants, our layouts, the density sweep (docs/kallsyms-model.md).
.PHONY: bench-model
bench-model: all $(DATA) kallsyms-deps $(OUTPUT)/libksym.a
	for f in /proc/kallsyms $(OUTPUT)/data/6.12/kallsyms $(OUTPUT)/data/6.1/kallsyms; do \
		$(OUTPUT)/ksymattach bench --kernel-model --kallsyms $$f --rounds 5 || exit 1; \
		echo; \
	done
	OUTPUT=$(abspath $(OUTPUT)) kallsyms/check.sh sweep 5

# The attach-stall comparison in a guest, the newest kernel unless KERNEL= says
# (takes several minutes under TCG).
# The kallsyms variants built into a kernel of Debian's newest source, each booted
# and measured by the kernel's selftest and a benchmark of ours (kallsyms/bench-kernel.sh;
# the first build takes most of an hour on 2 CPUs, each variant after it minutes).
# VARIANTS= names others of kallsyms/variants and kallsyms/sweep instead.
.PHONY: bench-kernel
bench-kernel:
	kallsyms/bench-kernel.sh $(or $(ROUNDS),3) $(VARIANTS)

.PHONY: bench-vm
bench-vm: all examples $(OUTPUT)/tests/iter_dump $(OUTPUT)/tests/syscall_loop
	OUTPUT=$(OUTPUT) tests/vm/bench.sh $(KERNEL)

# The tool built with ASan/UBSan (dynamic: the sanitizers' runtimes are shared
# libraries), for the daemon soak; not installed anywhere.
$(OUTPUT)/ksymattach-asan: $(APP_SRCS) $(KSYM_SRCS) $(APP_HDRS) $(LIBBPF_OBJ) $(OUTPUT)/ksymattach
	$(CC) $(SANFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE $(LIB_INC) $(KSYM_INC) -Isrc/engine \
		-Isrc/output -Isrc/common -Isrc/service -Isrc/libbpf18 -Ibench -Ikmodel -Ibpf \
		$(BPF_INC) -DKSA_VERSION='"$(VERSION)"' -DKSA_SYSCONFDIR='"$(SYSCONFDIR)"' \
		$(APP_SRCS) $(KSYM_SRCS) $(L18_OBJS) $(LIBBPF_OBJ) $(LIBBPF18_OBJ) $(APP_LDLIBS) -o $@

# The daemon soak (docs/reliability.md): SOAK_MINUTES (10) under load and reloads;
# SOAK_ASAN=1: the sanitized build.
.PHONY: soak
soak: all $(if $(SOAK_ASAN),$(OUTPUT)/ksymattach-asan)
	OUTPUT=$(OUTPUT) SOAK_ASAN=$(SOAK_ASAN) tests/vm/soak.sh $(or $(SOAK_MINUTES),10)

# Re-capture the guests' symbol files into tests/data (commit the result).
.PHONY: fixtures
fixtures:
	tests/vm/capture.sh 6.12
	tests/vm/capture.sh 6.1

# Install: the tool, its units, config, completion and rules, the library for
# agents, the man pages (DESTDIR=... for staging; the package builds and
# installs with PREFIX=/usr SYSCONFDIR=/etc). An edited config is never replaced.
CONF := $(DESTDIR)$(SYSCONFDIR)/ksymattach/ksymattach.conf
UNITS := ksymattach.service ksymattach-boot.service ksymattach-watch.service
PROM_DIR := /var/lib/prometheus/node-exporter
.PHONY: install uninstall
install: all
	$(INSTALL) -D -m 755 $(OUTPUT)/ksymattach $(DESTDIR)$(BINDIR)/ksymattach
	$(INSTALL) -D -m 644 man/ksymattach.8 $(DESTDIR)$(MANDIR)/man8/ksymattach.8
	$(INSTALL) -D -m 644 man/ksymattach.conf.5 $(DESTDIR)$(MANDIR)/man5/ksymattach.conf.5
	@if [ -e $(CONF) ]; then echo "keeping $(CONF)"; else \
		echo $(INSTALL) -D -m 644 dist/ksymattach.conf $(CONF); \
		$(INSTALL) -D -m 644 dist/ksymattach.conf $(CONF); fi
	$(INSTALL) -d $(DESTDIR)$(UNITDIR)
	for u in $(UNITS); do \
		sed 's|/usr/sbin/ksymattach|$(BINDIR)/ksymattach|g' dist/systemd/$$u \
			> $(DESTDIR)$(UNITDIR)/$$u && chmod 644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	$(INSTALL) -D -m 644 dist/bash-completion/ksymattach $(DESTDIR)$(BASHCOMPDIR)/ksymattach
	$(INSTALL) -D -m 644 dist/prometheus/ksymattach.rules.yml \
		$(DESTDIR)$(DATADIR)/ksymattach/ksymattach.rules.yml
	$(INSTALL) -d $(DESTDIR)$(PROM_DIR)
	$(INSTALL) -D -m 644 lib/ksym/include/ksym/ksym.h $(DESTDIR)$(INCLUDEDIR)/ksym/ksym.h
	$(INSTALL) -D -m 644 $(OUTPUT)/libksym.a $(DESTDIR)$(LIBDIR)/libksym.a
	$(INSTALL) -D -m 644 $(OUTPUT)/libksym.pc $(DESTDIR)$(PKGCONFIGDIR)/libksym.pc

# The config stays when it was edited (as dpkg keeps a conffile).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ksymattach $(DESTDIR)$(MANDIR)/man8/ksymattach.8 \
		$(DESTDIR)$(MANDIR)/man5/ksymattach.conf.5 \
		$(addprefix $(DESTDIR)$(UNITDIR)/,$(UNITS)) \
		$(DESTDIR)$(BASHCOMPDIR)/ksymattach \
		$(DESTDIR)$(DATADIR)/ksymattach/ksymattach.rules.yml \
		$(DESTDIR)$(INCLUDEDIR)/ksym/ksym.h $(DESTDIR)$(LIBDIR)/libksym.a \
		$(DESTDIR)$(PKGCONFIGDIR)/libksym.pc
	-cmp -s dist/ksymattach.conf $(CONF) && rm -f $(CONF)
	-rmdir $(DESTDIR)$(INCLUDEDIR)/ksym $(DESTDIR)$(DATADIR)/ksymattach \
		$(DESTDIR)$(SYSCONFDIR)/ksymattach 2>/dev/null

# The Debian packages, built from a copy of the tree (dpkg-buildpackage writes
# beside the source), into $(OUTPUT)/deb/.
.PHONY: deb
# ARCH=arm64: a cross build of the package (dpkg-buildpackage -a; its build
# dependencies are this Makefile's cross ones, from make deps and the sysroot,
# not the target's installed packages, so they are not checked), with the
# download cache the packaging's own HOME would hide.
DEB_CROSS := $(if $(SYSROOT),-a $(ARCH) -d)
deb:
	rm -rf $(OUTPUT)/deb && mkdir -p $(OUTPUT)/deb/src
	git ls-files -z --cached --others --exclude-standard | xargs -0 cp -a --parents -t $(OUTPUT)/deb/src
	[ ! -d libbpf ] || cp -a libbpf $(OUTPUT)/deb/src/
	cd $(OUTPUT)/deb/src && KSYM_CACHE=$${KSYM_CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/ksymattach} \
		dpkg-buildpackage -b -us -uc -j2 $(DEB_CROSS) > ../build.log 2>&1 || \
		{ tail -n 30 ../build.log; exit 1; }
	ls $(OUTPUT)/deb/*.deb

.PHONY: clean
clean:
	rm -rf $(OUTPUT)
