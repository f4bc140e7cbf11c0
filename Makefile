# toolcage — plain GNU make, out-of-tree build/.
#   make            build/toolcage and build/libtoolcage.a
#   make test       unit, integration and escape tests
#   make asan       the same tests on an ASan+UBSan build ($(BUILD)-asan/, build-asan/ by default)
#   make test-kernels  the tests inside Debian's kernels booted in qemu, on cgroup v2
#   make test-containers  toolcage inside podman containers (root; docs/where-it-runs.md)
#   make bench      benchmarks (not tests): ratios against same-run baselines
#   make demo       the guided demo on built-in defaults
#   make install    PREFIX=/usr/local DESTDIR= (LIBDIR, BINDIR, MANDIR ... below)
#   make man        the man pages, from docs/ (mk/gen_help.py)
#   V=1 shows commands; WERROR=0 for packagers; SANITIZE=address,undefined

.DEFAULT_GOAL := all
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
LIBDIR   ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR  ?= $(PREFIX)/share
MANDIR   ?= $(DATADIR)/man
DOCDIR   ?= $(DATADIR)/doc/toolcage
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
BUILD    ?= build
WERROR   ?= 1
CC       ?= cc
SANITIZE ?=

Q := $(if $(V),,@)

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wformat=2 -Wvla -Wwrite-strings $(if $(filter 1,$(WERROR)),-Werror)
# -fPIC rather than -fPIE: the same objects make libtoolcage.so. Everything
# but the public API is hidden, so calls inside stay direct.
HARDEN := -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIC -fno-semantic-interposition
OPT ?= -O2 -g
ifneq ($(SANITIZE),)
OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=$(SANITIZE) -fno-sanitize-recover=all
HARDEN := -fPIC
SAN_LD := -fsanitize=$(SANITIZE)
endif

# mk/deps.sh finds (or installs, as root on Debian) the libraries first and
# writes their flags here; make re-reads the file before compiling anything.
CONFIG_MK := $(BUILD)/config.mk
-include $(CONFIG_MK)
$(CONFIG_MK): mk/deps.sh
	$(Q)mkdir -p $(@D)
	$(Q)sh mk/deps.sh $@

# Each folder sees only the headers of the layers it may use (HACKING.md):
# a wrong door does not compile, and `make check-deps` checks the symbols.
INC_lib        := -Iinclude -Ilib
INC_jsonschema := -Iinclude -Ilib -Ijsonschema
INC_sandbox    := -Ilib -Isandbox
INC_tools      := -Iinclude -Ilib -Itools
INC_policy     := -Iinclude -Ilib -Ijsonschema -Isupervisor/policy
INC_registry   := $(INC_policy) -Isandbox -Itools -Isupervisor/registry
INC_core       := $(INC_registry) -Isupervisor -Isupervisor/net
INC_mcp        := $(INC_core) -Isupervisor/mcp
INC_cli        := $(INC_mcp) -Isupervisor/cli
INC_all        := -I. $(INC_cli)
INC = $(INC_all)
$(BUILD)/obj/lib/%.o:                 INC = $(INC_lib)
$(BUILD)/obj/jsonschema/%.o:          INC = $(INC_jsonschema)
$(BUILD)/obj/sandbox/%.o:             INC = $(INC_sandbox)
$(BUILD)/obj/tools/%.o:               INC = $(INC_tools)
$(BUILD)/obj/supervisor/%.o:          INC = $(INC_core)
$(BUILD)/obj/supervisor/policy/%.o:   INC = $(INC_policy)
$(BUILD)/obj/supervisor/registry/%.o: INC = $(INC_registry)
$(BUILD)/obj/supervisor/mcp/%.o:      INC = $(INC_mcp)
$(BUILD)/obj/supervisor/cli/%.o:      INC = $(INC_cli)

CFLAGS_ALL = -std=gnu11 $(OPT) $(WARN) $(HARDEN) -fvisibility=hidden -MMD -MP \
             $(INC) $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL := -pie -Wl,-z,relro,-z,now -Wl,--as-needed $(SAN_LD) $(LDFLAGS)
LIBS := $(PKG_LIBS) $(PCRE_LIBS)
# The CLI is linked whole, the C library too, as a static PIE (STATIC=0:
# dynamically, as the Debian package is). Every `toolcage exec` is a new
# process, and the dynamic loader's share of it (mapping libc, resolving
# ~230 symbols, relocating two objects) was ~0.6 ms here, a seventh of a
# sandboxed launch (docs/performance.md). The price (docs/deploy.md): a
# security update of glibc or of a library reaches the CLI only when it is
# built again, and glibc loads libmicrohttpd (serve --http) and libcurl
# (http_fetch) into a static program only from the glibc version it was
# linked with (NSS modules not at all: supervisor/cli/main.c), which it
# warns of at the link: those lines are the expected ones and are left
# out. Sanitizer runtimes are shared objects: never static there.
STATIC ?= 1
ifneq ($(SANITIZE),)
override STATIC := 0
endif
# Its segments on 2 MiB boundaries: a worker copies its code and read-only
# data into huge pages, which each of its children then shares whole
# (sandbox/worker.c, docs/performance.md). The gaps are holes in the
# file: it takes the same space on disk.
CLI_HUGE := -Wl,-z,max-page-size=0x200000
CLI_LDFLAGS = $(if $(filter 1,$(STATIC)),-static-pie $(CLI_HUGE))
STATIC_LINK_NOTE = statically linked applications requires at runtime the shared libraries

CLI_MAIN  := supervisor/cli/main.c
SRC_DIRS  := lib jsonschema sandbox tools tools/* supervisor supervisor/*
LIB_SRCS  := $(filter-out $(CLI_MAIN),$(sort $(wildcard $(SRC_DIRS:%=%/*.c))))
# Data compiled in: built-in profiles (as JSON, and parsed by
# mk/gen_profiles.c), the JSON Schema metaschemas, and the shipped profiles'
# seccomp filters (compiled by mk/gen_filters.c).
# The help texts are made from docs/cli.md (mk/gen_help.py), as are the
# man pages and the bash completion.
GEN_SRCS  := $(BUILD)/gen/profiles.c $(BUILD)/gen/metaschemas.c $(BUILD)/gen/filters.c \
             $(BUILD)/gen/profile_specs.c $(BUILD)/gen/help.c
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o) $(GEN_SRCS:$(BUILD)/gen/%.c=$(BUILD)/obj/gen/%.o)
# What embedding programs get (libtoolcage.a, libtoolcage.so): all but the
# command line's own objects.
PUB_OBJS  := $(filter-out $(BUILD)/obj/supervisor/cli/% $(BUILD)/obj/gen/help.o,$(LIB_OBJS))
VERSION   := $(shell sed -n 's/^\#define TC_VERSION "\(.*\)"/\1/p' include/toolcage.h)
SOMAJOR   := $(firstword $(subst ., ,$(VERSION)))
SONAME    := libtoolcage.so.$(SOMAJOR)
SO_FILE   := libtoolcage.so.$(VERSION)
CLI_MD    := docs/cli.md
VERBS     := $(shell sed -n 's/^\#\# \([a-z]*\): .*/\1/p' $(CLI_MD))
MAN_PAGES := $(BUILD)/man/toolcage.1 $(VERBS:%=$(BUILD)/man/toolcage-%.1) \
             $(BUILD)/man/toolcage.json.5 $(BUILD)/man/toolcage-profile.5 \
             $(BUILD)/man/toolcage-manifest.5
COMPLETION := $(BUILD)/completion/toolcage
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
UNIT_HELPERS := $(sort $(wildcard tests/unit/helper_*.c))
UNIT_HELPER_OBJS := $(UNIT_HELPERS:%.c=$(BUILD)/obj/%.o)
ESC_SRCS  := $(sort $(wildcard tests/escape/*.c))
ESC_BINS  := $(ESC_SRCS:tests/escape/%.c=$(BUILD)/escape/%)
SIM_BIN   := $(BUILD)/sim/simkernel $(BUILD)/sim/simlandlock.so $(BUILD)/sim/handed \
             $(BUILD)/sim/toolcage-dynamic
BENCH_SRCS := $(sort $(wildcard tests/bench/*.c))
BENCH_BINS := $(BENCH_SRCS:tests/bench/%.c=$(BUILD)/bench/%)

.PHONY: all test unit asan valgrind bench demo install clean check-deps check-exports man \
        test-kernels test-sim
all: $(BUILD)/toolcage $(BUILD)/libtoolcage.a $(BUILD)/$(SO_FILE) $(MAN_PAGES) $(COMPLETION)
man: $(MAN_PAGES)

# Objects are rebuilt when the compiler flags change: an object of other
# flags (a -fPIE one from before the shared library) must not be linked in.
FLAGS_STAMP := $(BUILD)/cflags.txt
FLAGS_NOW = $(CC) -std=gnu11 $(OPT) $(WARN) $(HARDEN) -fvisibility=hidden $(PKG_CFLAGS) $(CFLAGS)
$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(FLAGS_NOW)' | cmp -s - $@ 2>/dev/null || echo '$(FLAGS_NOW)' > $@
.PHONY: FORCE
FORCE:

$(BUILD)/obj/%.o: %.c $(CONFIG_MK) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/gen/profiles.c: mk/embed.sh $(wildcard profiles/*.json)
	@mkdir -p $(@D)
	$(Q)sh mk/embed.sh embedded_profiles $@ $(sort $(wildcard profiles/*.json))

$(BUILD)/gen/metaschemas.c: mk/embed.sh $(wildcard jsonschema/metaschemas/*.json)
	@mkdir -p $(@D)
	$(Q)sh mk/embed.sh embedded_metaschemas $@ $(sort $(wildcard jsonschema/metaschemas/*.json))

$(BUILD)/gen/help.c: mk/gen_help.py $(CLI_MD)
	@mkdir -p $(@D)
	$(Q)python3 mk/gen_help.py c $(CLI_MD) $@

# One run makes toolcage.1 and every toolcage-VERB.1.
$(BUILD)/man/toolcage.1 $(VERBS:%=$(BUILD)/man/toolcage-%.1) &: mk/gen_help.py $(CLI_MD) include/toolcage.h
	@mkdir -p $(@D)
	$(Q)python3 mk/gen_help.py man $(CLI_MD) $(VERSION) $(@D)

# The file formats' pages are their docs pages (or a part of one).
$(BUILD)/man/toolcage.json.5: mk/gen_help.py docs/config.md include/toolcage.h
	@mkdir -p $(@D)
	$(Q)python3 mk/gen_help.py page docs/config.md $(VERSION) $@ toolcage.json 5 \
	  "the configuration file of toolcage"
$(BUILD)/man/toolcage-profile.5: mk/gen_help.py docs/profiles.md include/toolcage.h
	@mkdir -p $(@D)
	$(Q)python3 mk/gen_help.py page docs/profiles.md $(VERSION) $@ toolcage-profile 5 \
	  "sandbox profiles: what a confined child may do"
$(BUILD)/man/toolcage-manifest.5: mk/gen_help.py docs/tools-api.md include/toolcage.h
	@mkdir -p $(@D)
	$(Q)python3 mk/gen_help.py page docs/tools-api.md $(VERSION) $@ toolcage-manifest 5 \
	  "tool manifests: a command wrapped as a tool" "A manifest tool" "Export formats"

$(COMPLETION): mk/gen_help.py $(CLI_MD) $(wildcard profiles/*.json)
	@mkdir -p $(@D)
	$(Q)python3 mk/gen_help.py completion $(CLI_MD) $@ $(sort $(wildcard profiles/*.json))

# The generators link the library without the objects generators make
# (neither needs the other's output, so there is no cycle) and with empty
# stand-ins for their tables.
GEN_OUT_OBJS := $(BUILD)/obj/gen/filters.o $(BUILD)/obj/gen/profile_specs.o
GEN_BASE_OBJS := $(BUILD)/obj/mk/filters_stub.o $(BUILD)/obj/mk/profile_specs_stub.o \
                 $(filter-out $(GEN_OUT_OBJS),$(LIB_OBJS))

$(BUILD)/gen/gen_filters: $(BUILD)/obj/mk/gen_filters.o $(GEN_BASE_OBJS)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

$(BUILD)/gen/filters.c: $(BUILD)/gen/gen_filters $(wildcard profiles/*.json)
	$(Q)ASAN_OPTIONS=detect_leaks=0 $(BUILD)/gen/gen_filters $(sort $(wildcard profiles/*.json)) > $@.tmp
	$(Q)mv $@.tmp $@

$(BUILD)/gen/gen_profiles: $(BUILD)/obj/mk/gen_profiles.o $(GEN_BASE_OBJS)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

$(BUILD)/gen/profile_specs.c: $(BUILD)/gen/gen_profiles $(wildcard profiles/*.json)
	$(Q)ASAN_OPTIONS=detect_leaks=0 $(BUILD)/gen/gen_profiles $(sort $(wildcard profiles/*.json)) > $@.tmp
	$(Q)mv $@.tmp $@

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@

# Two archives of the same objects. libtoolcage-internal.a is what the CLI,
# the tests and the generators link: every symbol is there. libtoolcage.a
# is what embedding programs link: one relocatable object in which only
# the public API (include/toolcage.h, compiled with default visibility;
# everything else is -fvisibility=hidden) stays global, so an embedder's
# own config_load or buf_add cannot clash (make check-exports).
$(BUILD)/libtoolcage-internal.a: $(LIB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/libtoolcage.a: $(PUB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)ld -r -o $(BUILD)/libtoolcage.o $^ && \
	  objcopy --localize-hidden $(BUILD)/libtoolcage.o && \
	  rm -f $@ && ar rcs $@ $(BUILD)/libtoolcage.o && rm -f $(BUILD)/libtoolcage.o

# The shared library: the same objects, its exports held to the public API
# by the version script as well as by visibility (make check-exports).
# --no-undefined: every symbol it needs comes from the libraries it names
# (not with a sanitizer, whose runtime the executable brings).
$(BUILD)/$(SO_FILE): $(PUB_OBJS) mk/libtoolcage.map
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=mk/libtoolcage.map \
	  -Wl,-z,relro,-z,now -Wl,--as-needed $(if $(SANITIZE),,-Wl,--no-undefined) $(SAN_LD) \
	  $(LDFLAGS) -o $@ $(PUB_OBJS) $(LIBS)
	$(Q)ln -sf $(SO_FILE) $(BUILD)/$(SONAME) && ln -sf $(SONAME) $(BUILD)/libtoolcage.so

$(BUILD)/toolcage: $(BUILD)/obj/$(CLI_MAIN:.c=.o) $(BUILD)/libtoolcage-internal.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) $(CLI_LDFLAGS) -o $@ $< $(BUILD)/libtoolcage-internal.a $(LIBS) \
		2>$@.ld; rc=$$?; grep -v -e "$(STATIC_LINK_NOTE)" -e ": in function \`" $@.ld >&2; \
		rm -f $@.ld; exit $$rc

# The unit tests need cmocka, which mk/deps.sh does not require of a build
# that makes no tests: asked here, when one is built.
TEST_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null)
.PHONY: need-cmocka
need-cmocka:
	@pkg-config --exists cmocka 2>/dev/null || { echo "make: the unit tests need cmocka," \
		"which is not installed: sudo apt-get install libcmocka-dev" >&2; exit 1; }
$(UNIT_SRCS:%.c=$(BUILD)/obj/%.o) $(UNIT_HELPERS:%.c=$(BUILD)/obj/%.o): | need-cmocka

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(UNIT_HELPER_OBJS) $(BUILD)/libtoolcage-internal.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) $(UNIT_LDFLAGS) -o $@ $< $(UNIT_HELPER_OBJS) $(BUILD)/libtoolcage-internal.a $(LIBS) $(TEST_LIBS)

# The allocation walk fails the library's Nth allocation: its calls to the
# allocator go through the test's wrappers (tests/unit/test_oom.c).
# A directory whose NFS handle went stale: the library's opendir goes
# through the test's wrapper (tests/unit/test_sandbox.c).
$(BUILD)/tests/test_sandbox: UNIT_LDFLAGS = -Wl,--wrap=opendir
$(BUILD)/tests/test_oom: UNIT_LDFLAGS = $(foreach f,malloc calloc realloc strdup strndup vasprintf asprintf,-Wl,--wrap=$(f))

# Hostile programs: plain builds (no sanitizer runtime inside the jail), so
# each one tries its attack with nothing but libc between it and the kernel.
$(BUILD)/escape/%: tests/escape/%.c tests/escape/verdict.h
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)cc -std=gnu11 -O1 -g -Wall -Wno-unused-result -o $@ $<

# The simulated-kernel launcher (tests/sim/): plain build, like the
# hostile programs; libseccomp for its filter and user notifications.
$(BUILD)/sim/simkernel: tests/sim/simkernel.c $(CONFIG_MK)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)cc -std=gnu11 -O1 -g $(WARN) -o $@ $< $(PKG_CFLAGS) $(PKG_LIBS)

# The handed connections' hostile builtin and its watcher, on the library.
$(BUILD)/sim/handed: $(BUILD)/obj/tests/sim/handed.o $(BUILD)/libtoolcage-internal.a
	@mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/libtoolcage-internal.a $(LIBS)

# simlandlock.so is preloaded, which a static program ignores: the
# simulated kernels that need it run the CLI's objects linked dynamically.
$(BUILD)/sim/toolcage-dynamic: $(BUILD)/obj/$(CLI_MAIN:.c=.o) $(BUILD)/libtoolcage-internal.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/libtoolcage-internal.a $(LIBS)

$(BUILD)/sim/simlandlock.so: tests/sim/simlandlock.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)cc -std=gnu11 -O1 -g $(WARN) -shared -fPIC -o $@ $<

$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o $(BUILD)/libtoolcage-internal.a
	@mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/libtoolcage-internal.a $(LIBS)

# An embedding program links the public archive, as a user's would.
$(BUILD)/embed/%: tests/embed/%.c include/toolcage.h $(BUILD)/libtoolcage.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) -std=gnu11 $(OPT) $(WARN) -Iinclude $(PKG_CFLAGS) $(LDFLAGS_ALL) -o $@ $< \
	  $(BUILD)/libtoolcage.a $(LIBS)
EMBED_BINS := $(patsubst tests/embed/%.c,$(BUILD)/embed/%,$(wildcard tests/embed/*.c))

unit: $(UNIT_BINS)
	$(Q)set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

test: all $(UNIT_BINS) $(ESC_BINS) $(EMBED_BINS) $(SIM_BIN) $(BENCH_BINS)
	$(Q)BUILD=$(BUILD) sh tests/run.sh

# The layers (HACKING.md) and the library's exports; both run in make test.
check-deps: all
	$(Q)python3 mk/check_deps.py . $(BUILD)/obj

check-exports: $(BUILD)/libtoolcage.a $(BUILD)/$(SO_FILE)
	$(Q)python3 mk/check_exports.py --symbols debian/libtoolcage0.symbols \
	  include/toolcage.h $(BUILD)/libtoolcage.a \
	  $(BUILD)/$(SO_FILE) > $(BUILD)/exports.txt || { cat $(BUILD)/exports.txt; exit 1; }
	$(Q)grep '^check-exports:' $(BUILD)/exports.txt

# Simulated kernels and systems (tests/sim/run.sh): make test runs each
# environment's check and calls (tests/integration/sim_kernels.sh); this
# adds the escape suite's quick set under every profile that runs there.
test-sim: all $(ESC_BINS) $(SIM_BIN)
	$(Q)BUILD=$(BUILD) bash tests/sim/run.sh --escape quick

# The escape suite's spare pass runs as root only here: the supervisor's
# spare path is the same code for every identity, and the ASan build's
# conversation tests run spares as uid 65534 (~2.5 minutes less in CI).
asan:
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)-asan SANITIZE=address,undefined \
		TC_ESCAPE_SPARE_IDS=root test

# The kernel matrix: Debian's kernels booted in qemu, the tests run inside
# on cgroup v2 (tests/kernels/run.sh; KERNELS="stock newest", or one;
# KERNEL_ARGS=--quick for the escape suite's kernel-dependent rows only).
KERNELS ?= stock newest
KERNEL_ARGS ?=
test-kernels: all $(ESC_BINS)
	$(Q)BUILD=$(BUILD) bash tests/kernels/run.sh --kernels "$(KERNELS)" $(KERNEL_ARGS)

valgrind: $(UNIT_BINS)
	$(Q)BUILD=$(BUILD) sh mk/valgrind.sh

# The Debian packages and the container image, each built from scratch
# (minutes, root): what .ci/run runs beside make test.
.PHONY: test-package test-image test-containers
test-package:
	$(Q)sh tests/package/deb.sh

test-image: all
	$(Q)BUILD=$(BUILD) sh tests/containers/image.sh

# toolcage inside podman containers (default settings, SYS_ADMIN,
# privileged, the shipped seccomp profile; root and a user): check, the
# tools over MCP, the escape suite's quick set judged against the walls the
# results claim, and docs/where-it-runs.md's podman rows (under a minute).
test-containers: all $(ESC_BINS)
	$(Q)BUILD=$(BUILD) bash tests/containers/run.sh

bench: all $(BENCH_BINS) $(ESC_BINS)
	$(Q)BUILD=$(BUILD) sh tests/bench/run.sh

demo: all
	$(Q)BUILD=$(BUILD) sh tests/demo.sh

# Everything a user of one machine needs: the CLI, both libraries, the
# header and its pkg-config file, the profiles, the man pages, the bash
# completion, the systemd unit template for `serve --http` and the
# AppArmor profile that lets BINDIR/toolcage make user namespaces where
# the distribution restricts them (docs/deploy.md). The profile's userns
# rule is AppArmor 4's: installing onto this host (no DESTDIR), it goes to
# SYSCONFDIR/apparmor.d only where apparmor_parser takes it, since one
# file the parser refuses there fails the load of every profile at boot
# (Debian 12's 3.0); DATADIR/toolcage/apparmor/ has it in any case.
# Onto this host as root, ldconfig: the loader searches /usr/local/lib
# only through its cache, so a program linked against the new
# libtoolcage.so would not start before it.
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	  $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(DATADIR)/toolcage/profiles \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(BASHCOMPDIR) \
	  $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(DATADIR)/toolcage/apparmor $(DESTDIR)$(DOCDIR)
	install -m 0755 $(BUILD)/toolcage $(DESTDIR)$(BINDIR)/toolcage
	install -m 0644 $(BUILD)/libtoolcage.a $(DESTDIR)$(LIBDIR)/libtoolcage.a
	install -m 0644 $(BUILD)/$(SO_FILE) $(DESTDIR)$(LIBDIR)/$(SO_FILE)
	ln -sf $(SO_FILE) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libtoolcage.so
	install -m 0644 include/toolcage.h $(DESTDIR)$(INCLUDEDIR)/toolcage.h
	$(Q)if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig > /dev/null 2>&1; then \
	  ldconfig; fi
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	  -e 's|@VERSION@|$(VERSION)|' mk/toolcage.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/toolcage.pc
	install -m 0644 profiles/*.json $(DESTDIR)$(DATADIR)/toolcage/profiles/
	for m in $(MAN_PAGES); do case $$m in *.1) d=man1 ;; *) d=man5 ;; esac; \
	  sed -e 's|/usr/share/doc/toolcage/|$(DOCDIR)/|g' \
	    -e 's|/usr/share/toolcage/profiles/|$(DATADIR)/toolcage/profiles/|g' \
	    $$m > $(DESTDIR)$(MANDIR)/$$d/$${m##*/} && chmod 0644 $(DESTDIR)$(MANDIR)/$$d/$${m##*/} || exit 1; \
	done
	install -m 0644 README.md docs/*.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/toolcage
	sed 's|@BINDIR@|$(BINDIR)|g' deploy/systemd/toolcage-http@.service \
	  > $(DESTDIR)$(SYSTEMDUNITDIR)/toolcage-http@.service
	sed 's|@BINDIR@|$(BINDIR)|g' deploy/apparmor/toolcage > $(DESTDIR)$(DATADIR)/toolcage/apparmor/toolcage
	$(Q)aa=$(DESTDIR)$(DATADIR)/toolcage/apparmor/toolcage; \
	if [ -n "$(DESTDIR)" ] || { command -v apparmor_parser > /dev/null 2>&1 && \
	    apparmor_parser -Q -K "$$aa" > /dev/null 2>&1; }; then \
	  install -d $(DESTDIR)$(SYSCONFDIR)/apparmor.d && \
	  install -m 0644 "$$aa" $(DESTDIR)$(SYSCONFDIR)/apparmor.d/toolcage; \
	else \
	  echo "install: the AppArmor profile is in $$aa only, not in $(SYSCONFDIR)/apparmor.d:" \
	    "this host has no apparmor_parser that takes its userns rule (AppArmor 4), and a" \
	    "profile the parser refuses there fails the boot-time load (docs/deploy.md)"; \
	fi

clean:
	rm -rf $(BUILD) $(BUILD)-asan

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# ---- fuzzing (docs/security.md, tests/fuzz/) --------------------------------
#   make fuzz                  every target for FUZZ_SECONDS each, one after another
#   make fuzz FUZZ_TARGETS='render config' FUZZ_SECONDS=300
# The library and the targets are built with clang and libFuzzer + ASan +
# UBSan into $(FUZZ_BUILD) (its own objects: the sanitizer coverage hooks
# must be in the code under test). New inputs go to $(FUZZ_BUILD)/corpus/,
# crashes to $(FUZZ_BUILD)/artifacts/; the seeds in tests/fuzz/corpus/ are
# only read. Copy a crash there as crash-<what> once it is fixed.
# `make test` also builds each target with the normal compiler and
# tests/fuzz/driver.c, and tests/integration/fuzz_corpus.sh replays the
# seed corpora through them.
FUZZ_SRCS    := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES   := $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=%)
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_SECONDS ?= 60
FUZZ_BUILD   ?= build-fuzz
FUZZ_CC      ?= clang
FUZZ_SAN     := address,undefined
FUZZ_FLAGS   ?= -timeout=10 -rss_limit_mb=2048
FUZZ_DRIVERS := $(FUZZ_NAMES:%=$(BUILD)/fuzz-drivers/fuzz_%)
FUZZ_BINS    := $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)

.PHONY: fuzz fuzz-build

$(BUILD)/fuzz-drivers/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/fuzz/driver.o \
                              $(BUILD)/obj/tests/fuzz/support.o $(BUILD)/libtoolcage-internal.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o,$^) $(BUILD)/libtoolcage-internal.a $(LIBS)

test: $(FUZZ_DRIVERS)

# Only meaningful inside the recursive make of `fuzz` (CC=clang, SANITIZE=
# fuzzer-no-link,...): libFuzzer's main comes with -fsanitize=fuzzer.
$(BUILD)/fuzz/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/fuzz/support.o \
                      $(BUILD)/libtoolcage-internal.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $(filter %.o,$^) \
	  $(BUILD)/libtoolcage-internal.a $(LIBS)

# Keep the objects make would treat as intermediate (no rebuild each time).
.SECONDARY: $(FUZZ_SRCS:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/tests/fuzz/driver.o \
            $(BUILD)/obj/tests/fuzz/support.o

fuzz-build: $(FUZZ_BINS)

# WERROR=0: clang warns where gcc (the project's compiler) does not, e.g.
# on libseccomp's SCMP_A0 macros; the gcc build stays -Werror.
fuzz:
	$(Q)$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) WERROR=0 \
	  SANITIZE=fuzzer-no-link,$(FUZZ_SAN) CFLAGS=-Wno-missing-field-initializers fuzz-build
	$(Q)set -e; for n in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$n $(FUZZ_BUILD)/artifacts/$$n; \
	  echo "== fuzz_$$n for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_BUILD)/fuzz/fuzz_$$n $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SECONDS) \
	    -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$n/ -print_final_stats=1 \
	    $(FUZZ_BUILD)/corpus/$$n tests/fuzz/corpus/$$n; \
	done

# ---- static analysis (docs/lint.md) -----------------------------------------
#   make lint       clang-format, cppcheck, clang-tidy: all must be clean (mk/lint.sh)
#   make format     lays the C files out as .clang-format says
.PHONY: lint format
lint:
	$(Q)sh mk/lint.sh

# Lay every C file out as .clang-format says (make lint checks it).
format:
	$(Q)git ls-files '*.c' '*.h' | xargs $${CLANG_FORMAT:-clang-format} -i
