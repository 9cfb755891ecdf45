# acp-tools: small Unix filters for agent-communication traffic.
# `make` builds bin/*; `make check` runs every test; `make demo` runs the main job on a sample.

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d

CC       ?= cc
CFLAGS   ?= -O2 -g
PKG_CONFIG ?= pkg-config
JANSSON_CFLAGS := $(shell $(PKG_CONFIG) --cflags jansson 2>/dev/null)
JANSSON_LIBS   := $(shell $(PKG_CONFIG) --libs jansson 2>/dev/null)
WARNINGS  = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla
ALL_CFLAGS = -std=c11 -pthread $(WARNINGS) $(CFLAGS)
ALL_CPPFLAGS = -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -Icommon $(JANSSON_CFLAGS) $(CPPFLAGS)
LIBS = $(JANSSON_LIBS) -lm -lpthread $(LDLIBS)

# Where objects and binaries go; `make check-asan` builds a second tree with sanitizers.
BUILD ?= build
BIN   ?= bin

TOOLS = acp-validate acp-convert acp-trace acp-replay acp-send acp-tap
# common/ is a library in layers, one folder a layer, lowest first: base (text, tables, time),
# diag (the diagnostic sink and its codes), proto (the protocols and conversion), io (reading,
# transports, commands), engine (the conversation engine), tool (the frame the tools share:
# options, the filter loop, -j), then side by side live (the peer session of acp-replay and
# acp-send) and report (acp-trace's summaries, stats and diagrams). A folder includes only from
# itself and those below it, naming the folder: `make layers` keeps it so.
LAYERS = base diag proto io engine tool live report
COMMON_SRC = $(sort $(wildcard $(LAYERS:%=common/%/*.c)))
COMMON_HDR = $(wildcard $(LAYERS:%=common/%/*.h))
# The HTML report's script and style sheet are files of common/report/html/, built into the
# library as two C arrays (trace_html_script and trace_html_style, report/tracehtml.h) that od
# and awk write out.
HTML_ASSETS = common/report/html/report.js common/report/html/report.css
COMMON_OBJ = $(COMMON_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/htmlassets.o
LIB = $(BUILD)/libacp.a
PROGS = $(TOOLS:%=$(BIN)/%)

.PHONY: all check check-full asan-build check-asan check-tsan check-valgrind fuzz fuzz-build demo deps install uninstall bench clean \
	format format-check layers lint test-programs

# Keep objects between builds: make would otherwise delete the cmd/ ones as intermediates.
.SECONDARY:

# The example agent too, at the path the README's and man pages' recipes run it by.
all: $(PROGS) examples/forager

$(BUILD)/%.o: %.c $(COMMON_HDR) | have-jansson
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/gen/htmlassets.c: $(HTML_ASSETS) Makefile
	@mkdir -p $(dir $@)
	{ echo '/* Made by make from $(HTML_ASSETS): do not edit. */'; \
	  echo '#include "report/tracehtml.h"'; \
	  for a in script:report.js style:report.css; do \
	    echo "const char trace_html_$${a%%:*}[] = {"; \
	    od -An -v -tx1 common/report/html/$${a#*:} | \
	      awk '{ for (i = 1; i <= NF; i++) printf "0x%s,", $$i; print "" }'; \
	    echo '0};'; \
	  done; } >$@.tmp && mv $@.tmp $@

$(BUILD)/gen/htmlassets.o: $(BUILD)/gen/htmlassets.c common/report/tracehtml.h | have-jansson
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(LIB): $(COMMON_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BIN)/%: $(BUILD)/cmd/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LIBS)

.PHONY: have-jansson
have-jansson:
	@$(PKG_CONFIG) --exists jansson 2>/dev/null || { \
	  echo "jansson not found: run 'make deps' as root, or: apt-get install libjansson-dev pkg-config" >&2; \
	  exit 1; }

# Installs what building and testing need (Debian, as root), or says the one command to run.
deps:
	@scripts/deps

# The programs the suites run besides the tools: the drivers of library units (tests/drivers/),
# the capture generators of bench/ and the example agent, built with the tools' flags.
# jetstream-lines is built on nats.c (libnats-dev, a test dependency only) where it is installed.
HAVE_LIBNATS := $(shell test -f /usr/include/nats/nats.h && echo yes)
DRIVERS = $(patsubst tests/drivers/%.c,$(BUILD)/tests/%,$(filter-out \
	$(if $(HAVE_LIBNATS),,tests/drivers/jetstream-lines.c),$(wildcard tests/drivers/*.c)))
TEST_PROGS = $(DRIVERS) $(BUILD)/gen-colony $(BUILD)/gen-fipa $(BUILD)/gen-clean \
	$(BUILD)/gen-mixed $(BUILD)/gen-adversarial $(BUILD)/forager $(BUILD)/peak-rss
test-programs: $(TEST_PROGS)

$(BUILD)/tests/%: tests/drivers/%.c $(LIB) $(COMMON_HDR) $(wildcard tests/drivers/*.h) | have-jansson
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LIBS) \
	  $(if $(filter %/jetstream-lines,$@),-lnats)

check: deps
	@$(MAKE) -s --no-print-directory all test-programs
	@ACP_BUILD=$(BUILD) tests/run $(BIN)

# The tree check-asan tests, which CI builds before it runs make check and check-asan side by side.
asan-build: deps
	@$(MAKE) -s --no-print-directory BUILD=build-asan BIN=build-asan/bin \
	  CFLAGS="-O1 -g $(SANITIZE)" LDFLAGS="$(SANITIZE)" all test-programs

# float-cast-overflow too: a double converted to an integer it does not fit is undefined
# behaviour, which `undefined` does not check.
SANITIZE = -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
# The suites that feed the C code crafted input, which check-asan runs under ASan and UBSan: those
# that test a shell, a browser, a bus, the docs or the install run once, in make check.
# `make check-asan ASAN_SUITES=all` runs every suite (check-full does).
ASAN_SUITES = golden contract badinput hostile fuzz-found acl jscan stream-iacp stream-fipa \
	convert convert-mapping trace replay send jobs tap mcp partition
check-asan: asan-build
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ACP_UNDER=AddressSanitizer ACP_BUILD=build-asan tests/run build-asan/bin \
	  $(filter-out all,$(ASAN_SUITES))

# The suites of --jobs and of acp-tap (its relays and its capture's writer) under
# ThreadSanitizer: no data race between their threads. clang's (gcc's needs libtsan, which the
# other runs do not).
check-tsan: deps
	@$(MAKE) -s --no-print-directory CC=clang BUILD=build-tsan BIN=build-tsan/bin \
	  CFLAGS="-O1 -g -fsanitize=thread" LDFLAGS="-fsanitize=thread" all test-programs
	@TSAN_OPTIONS=halt_on_error=1:exitcode=66 ACP_UNDER=ThreadSanitizer ACP_BUILD=build-tsan \
	  tests/run build-tsan/bin tests/jobs.bats tests/tap.bats

# Under valgrind (tests/valgrind): no leak, no invalid access, no use of uninitialised memory,
# which ASan does not see. check-valgrind takes the golden cases and the hostile and fuzz-found
# inputs; check-full takes every suite of the tools that read a stream without a peer
# (VALGRIND_FULL_SUITES). Tests that time things or feed 100 MB skip themselves there.
VALGRIND_SUITES = golden hostile fuzz-found
VALGRIND_FULL_SUITES = golden contract badinput hostile fuzz-found acl stream-iacp stream-fipa \
	convert convert-mapping trace
check-valgrind: deps
	@$(MAKE) -s --no-print-directory all
	@tests/valgrind $(BIN) $(VALGRIND_SUITES)

# The whole matrix, as CI ran it before it had to answer in minutes: make check (its JetStream
# partitions on a colony of 200,000 messages, not 20,000), every suite under
# ASan and UBSan, the -j suite under TSan, the fuzz targets, and the stream tools' suites under
# valgrind. Before resolving an issue that changes common/engine, common/proto or common/io.
check-full:
	@ACP_JETSTREAM_MESSAGES=200000 $(MAKE) --no-print-directory check
	@$(MAKE) --no-print-directory check-asan ASAN_SUITES=all
	@$(MAKE) --no-print-directory check-tsan
	@$(MAKE) --no-print-directory fuzz
	@$(MAKE) --no-print-directory check-valgrind VALGRIND_SUITES="$(VALGRIND_FULL_SUITES)"

# libFuzzer targets (tests/fuzz/NAME.c, one per file; tests/fuzz/README.md): clang with ASan and
# UBSan, the library built again with coverage and a tiny read chunk. `make fuzz` runs each for
# FUZZ_SECONDS (or all of them within FUZZ_BUDGET seconds), keeping what they find, then checks
# the tools' -j against -j 1 on what the corpora hold (tests/fuzz/jobs-diff).
FUZZ_SECONDS ?= 60
FUZZ_SRC = $(filter-out tests/fuzz/fuzz.c,$(sort $(wildcard tests/fuzz/*.c)))
FUZZ_BINS = $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_CFLAGS = -O1 -g $(SANITIZE) -fsanitize=fuzzer-no-link -DACP_READER_CHUNK=7

fuzz-build: deps
	@$(MAKE) -s --no-print-directory CC=clang BUILD=build-fuzz BIN=build-fuzz/bin \
	  CFLAGS="$(FUZZ_CFLAGS)" fuzz-targets

.PHONY: fuzz-targets
fuzz-targets: $(FUZZ_BINS)

$(BUILD)/fuzz/%: $(BUILD)/tests/fuzz/%.o $(BUILD)/tests/fuzz/fuzz.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)

$(BUILD)/tests/fuzz/%.o: tests/fuzz/%.c tests/fuzz/fuzz.h $(COMMON_HDR) | have-jansson
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

fuzz: fuzz-build
	@$(MAKE) -s --no-print-directory all
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_BUDGET=$(FUZZ_BUDGET) ACP_BIN=$(BIN) tests/fuzz/run build-fuzz

demo: deps
	@$(MAKE) -s --no-print-directory all
	@scripts/demo $(BIN)

bench: all $(BUILD)/gen-colony $(BUILD)/gen-fipa $(BUILD)/gen-adversarial $(BUILD)/parse-floor \
	$(BUILD)/peak-rss $(BUILD)/replay-lateness $(BUILD)/round-trip $(BUILD)/forager \
	$(BUILD)/tests/hash-flood
	@bench/run $(BIN) $(BUILD)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 \
	  $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 755 $(PROGS) $(DESTDIR)$(BINDIR)
	install -m 644 $(TOOLS:%=man/%.1) $(DESTDIR)$(MANDIR)/man1
	install -m 644 man/acp.7 $(DESTDIR)$(MANDIR)/man7
	for t in $(TOOLS); do \
	  cat completions/acp-tools.bash completions/$$t.bash >$(DESTDIR)$(BASHCOMPDIR)/$$t && \
	  chmod 644 $(DESTDIR)$(BASHCOMPDIR)/$$t && \
	  install -m 644 completions/_$$t $(DESTDIR)$(ZSHCOMPDIR)/_$$t && \
	  install -m 644 completions/$$t.fish $(DESTDIR)$(FISHCOMPDIR)/$$t.fish || exit 1; \
	done

uninstall:
	for t in $(TOOLS); do \
	  rm -f $(DESTDIR)$(BINDIR)/$$t $(DESTDIR)$(MANDIR)/man1/$$t.1 \
	    $(DESTDIR)$(BASHCOMPDIR)/$$t $(DESTDIR)$(ZSHCOMPDIR)/_$$t $(DESTDIR)$(FISHCOMPDIR)/$$t.fish; \
	done
	rm -f $(DESTDIR)$(MANDIR)/man7/acp.7

format:
	clang-format -i $(COMMON_SRC) $(COMMON_HDR) cmd/*.c bench/*.c tests/fuzz/*.[ch]

format-check:
	clang-format --dry-run --Werror $(COMMON_SRC) $(COMMON_HDR) cmd/*.c bench/*.c tests/fuzz/*.[ch]

# Every include names its folder and reaches only down the layers (scripts/layers).
layers:
	@scripts/layers

lint: layers
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --std=c11 \
	  -Icommon --suppress=missingIncludeSystem common cmd

clean:
	rm -rf build build-asan build-tsan build-fuzz build-valgrind bin bench/out examples/forager

# Tools for tests and benchmarks, not installed: the capture generators and measures of bench/
# (parse-floor and the example agent link jansson), built with the tools' flags.
BENCH_PROGS = gen-colony gen-adversarial gen-fipa gen-clean gen-mixed peak-rss replay-lateness \
	round-trip
$(BENCH_PROGS:%=$(BUILD)/%): $(BUILD)/%: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $<

$(BUILD)/parse-floor: bench/parse-floor.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -O2 -o $@ $< $(LIBS)

$(BUILD)/forager examples/forager: examples/forager.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(LIBS)
