# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# ksymattach: build, test and VM bench. `make deps` once on a fresh Debian 12.
OUTPUT ?= build
CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
LLVM_STRIP ?= llvm-strip
LIBBPF_SRC := $(abspath libbpf/src)
LIBBPF_OBJ := $(abspath $(OUTPUT)/libbpf.a)
ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

WARN := -Wall -Wextra -Werror -Wno-missing-field-initializers
CFLAGS ?= -O2 -g
override CFLAGS += $(WARN) -std=gnu11 -D_GNU_SOURCE
# libbpf's UAPI copy: newer than the distribution's linux/bpf.h (link info, session)
INCLUDES := -I$(OUTPUT) -Isrc -Ibpf -Ilibbpf/include/uapi
LDLIBS := -lelf -lz -lzstd -pthread

# Userspace: one file per responsibility (CLI -> attach engine -> lookup layer).
KSYM_SRCS := src/ksym.c src/ksym_mem.c src/ksym_parse.c src/ksym_cache.c src/ksym_resolve.c src/ksym_db.c src/ksym_elf.c src/ksym_kcore.c src/glob.c
# bench -> kernel model -> sources
MODEL_SRCS := src/kmodel.c
APP_SRCS := src/main.c src/query.c src/bench.c src/bench_ref.c src/compare.c src/attach.c \
	src/report.c src/bench_kmodel.c src/kmodel.c \
	$(KSYM_SRCS)
APP_OBJS := $(patsubst src/%.c,$(OUTPUT)/%.o,$(APP_SRCS))
BPF_APPS := ksymattach

.SECONDARY:
.PHONY: all
all: $(OUTPUT)/ksymattach

# libbpf/ is a libbpf source tree: a submodule checkout if you have one, otherwise
# Debian trixie's libbpf source package fetched through a private apt config.
libbpf/src/Makefile:
	scripts/pkgcache libbpf-src libbpf

$(LIBBPF_OBJ): libbpf/src/Makefile | $(OUTPUT)/libbpf
	$(MAKE) -C $(LIBBPF_SRC) BUILD_STATIC_ONLY=1 OBJDIR=$(abspath $(OUTPUT)/libbpf) \
		DESTDIR=$(abspath $(OUTPUT)) INCLUDEDIR= LIBDIR= UAPIDIR= \
		CFLAGS="-O2 -g -fPIC" install >/dev/null
	cp $(OUTPUT)/libbpf/libbpf.a $@

$(OUTPUT) $(OUTPUT)/libbpf:
	mkdir -p $@

# BPF side: compiled against the committed vmlinux.h (make vmlinux-h regenerates it).
$(OUTPUT)/%.bpf.o: bpf/%.bpf.c bpf/ksymattach.h vmlinux.h $(LIBBPF_OBJ) | $(OUTPUT)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(OUTPUT) -I. -Ibpf -c $< -o $@
	$(LLVM_STRIP) -g $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(OUTPUT)/attach.o: $(OUTPUT)/ksymattach.skel.h

$(OUTPUT)/%.o: src/%.c $(wildcard src/*.h) bpf/ksymattach.h $(LIBBPF_OBJ) | $(OUTPUT)
	$(CC) $(CFLAGS) $(INCLUDES) -c $< -o $@

# One static file: runs on fleet nodes without libbpf and inside the VM.
$(OUTPUT)/ksymattach: $(APP_OBJS) $(LIBBPF_OBJ)
	$(CC) $(CFLAGS) -static $^ $(LDLIBS) -o $@

.PHONY: vmlinux-h
vmlinux-h:
	k=$$(scripts/pkgcache kernel 6.12) && scripts/extract-vmlinux $$k/vmlinuz $(OUTPUT)/vmlinux && \
		$(BPFTOOL) btf dump file $(OUTPUT)/vmlinux format c > vmlinux.h

# Fresh Debian 12: what the build and the tests need, from Debian 12's own archive.
DEPS := gcc make clang llvm bpftool libelf-dev zlib1g-dev libzstd-dev libcmocka-dev \
	pkg-config dpkg-dev binutils qemu-system-x86 busybox-static cpio xz-utils zstd perl \
	libclang-rt-14-dev
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
# bundled 6.12 VM (KERNEL=6.1 for the older one).
ARGS ?= -p 'vfs_*'
KERNEL ?= 6.12
.PHONY: run
run: $(OUTPUT)/ksymattach
	OUTPUT=$(OUTPUT) scripts/run $(KERNEL) $(ARGS)

# Tests: unit (plain and ASan/UBSan), host CLI, the VM suite on both kernels.
UNIT_TESTS := test_ksym test_ksym_real test_ksym_cache test_kmodel
UNIT_BINS := $(UNIT_TESTS:%=$(OUTPUT)/tests/%) $(UNIT_TESTS:%=$(OUTPUT)/tests/%-asan)
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
DATA := $(patsubst tests/data/%.xz,$(OUTPUT)/data/%,$(wildcard tests/data/*/*.xz))
TEST_ENV := KSYM_DATA=$(abspath $(OUTPUT)/data) OUTPUT=$(abspath $(OUTPUT)) \
	CMOCKA_MESSAGE_OUTPUT=TAP

$(OUTPUT)/data/%: tests/data/%.xz
	@mkdir -p $(@D)
	xz -dc $< > $@.tmp && mv $@.tmp $@

$(OUTPUT)/tests/%-asan: tests/unit/%.c $(KSYM_SRCS) $(MODEL_SRCS) $(wildcard src/*.h tests/unit/*.h)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -Isrc $< $(KSYM_SRCS) $(MODEL_SRCS) \
		-lcmocka -lelf -o $@

$(OUTPUT)/tests/%: tests/unit/%.c $(KSYM_SRCS) $(MODEL_SRCS) $(wildcard src/*.h tests/unit/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc $< $(KSYM_SRCS) $(MODEL_SRCS) -lcmocka -lelf -o $@

# libFuzzer targets: one per parser format, the cache loader, the globs.
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	$(WARN) -std=gnu11 -D_GNU_SOURCE -Isrc
FUZZ_FORMATS := kallsyms funcs funcs_addrs blacklist system_map
FUZZ_BINS := $(patsubst %,$(OUTPUT)/fuzz/fuzz_%,$(FUZZ_FORMATS) cache glob)

define fuzz_format
$(OUTPUT)/fuzz/fuzz_$(1): tests/fuzz/fuzz_parse.c $(KSYM_SRCS) $(wildcard src/*.h)
	@mkdir -p $$(@D)
	$(CLANG) $(FUZZ_FLAGS) -DFUZZ_FMT=KSYM_FMT_$(shell echo $(1) | tr a-z A-Z) \
		-DKSYM_RING_CHUNK=16 -DKSYM_RING_CHUNKS=2 $$< $(KSYM_SRCS) -lelf -o $$@
endef
$(foreach f,$(FUZZ_FORMATS),$(eval $(call fuzz_format,$(f))))

$(OUTPUT)/fuzz/fuzz_cache: tests/fuzz/fuzz_cache.c $(KSYM_SRCS) $(wildcard src/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_FLAGS) $< $(filter-out src/ksym_cache.c,$(KSYM_SRCS)) -lelf -o $@

$(OUTPUT)/fuzz/fuzz_glob: tests/fuzz/fuzz_glob.c src/glob.c src/ksym.h
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_FLAGS) $< src/glob.c -o $@

.PHONY: fuzz
fuzz: $(FUZZ_BINS)
	OUTPUT=$(abspath $(OUTPUT)) FUZZ_SECONDS=$(or $(FUZZ_SECONDS),60) prove -v --exec '' tests/fuzz/run.t

.PHONY: check check-unit check-host check-vm
check: all $(UNIT_BINS) $(DATA) $(FUZZ_BINS)
	$(TEST_ENV) prove -f --exec '' $(UNIT_BINS) tests/host/*.t tests/fuzz/run.t tests/vm/*.t
check-unit: $(UNIT_BINS) $(DATA)
	$(TEST_ENV) prove -f --exec '' $(UNIT_BINS)
check-host: all $(DATA)
	$(TEST_ENV) prove -f --exec '' tests/host/*.t
check-vm: all
	$(TEST_ENV) prove -f --exec '' tests/vm/*.t

# The lookup layer against the reference methods, on the live table and the
# VM kernels' captured ones. Prints ratios measured side by side in one run.
.PHONY: bench
bench: all $(DATA)
	$(OUTPUT)/ksymattach bench /proc/kallsyms $(OUTPUT)/data/6.12/kallsyms \
		$(OUTPUT)/data/6.1/kallsyms $(BENCH_ARGS)

# The kernel's kallsyms table rebuilt from real symbol sets: the lookup series'
# variants, our layouts, the density sweep (docs/kallsyms-model.md).
.PHONY: bench-model
bench-model: all $(DATA)
	for f in /proc/kallsyms $(OUTPUT)/data/6.12/kallsyms $(OUTPUT)/data/6.1/kallsyms; do \
		$(OUTPUT)/ksymattach bench --kernel-model --kallsyms $$f --rounds 5 || exit 1; \
		echo; \
	done

# The attach-stall comparison in the 6.12 guest (takes several minutes under TCG).
.PHONY: bench-vm
bench-vm: all
	OUTPUT=$(OUTPUT) tests/vm/bench.sh 6.12

# Re-capture the guests' symbol files into tests/data (commit the result).
.PHONY: fixtures
fixtures:
	tests/vm/capture.sh 6.12
	tests/vm/capture.sh 6.1

.PHONY: clean
clean:
	rm -rf $(OUTPUT)
