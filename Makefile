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
INCLUDES := -I$(OUTPUT) -Isrc -Ibpf
LDLIBS := -lelf -lz -lzstd -pthread

# Userspace: one file per responsibility (CLI -> attach engine -> lookup layer).
KSYM_SRCS := src/ksym.c src/ksym_parse.c src/glob.c
APP_SRCS := src/main.c src/attach.c src/report.c $(KSYM_SRCS)
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
	pkg-config dpkg-dev qemu-system-x86 busybox-static cpio xz-utils zstd perl
.PHONY: deps
deps:
	@missing=$$(dpkg-query -W -f='$${db:Status-Abbrev} $${Package}\n' $(DEPS) 2>/dev/null | \
		awk '$$1 == "ii" { ok[$$2] = 1 } END { }' ; \
		for p in $(DEPS); do dpkg-query -W -f='$${db:Status-Abbrev}' $$p 2>/dev/null | \
		grep -q '^ii' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends $$missing; \
	fi

.PHONY: clean
clean:
	rm -rf $(OUTPUT)
