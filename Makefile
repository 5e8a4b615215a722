# docext — build, test, demo, benchmark and amalgamation.
#
#   make                  ./docext.so, the loadable extension
#   make test             all tests (test/run.sh); T=pattern runs a subset
#   make SANITIZE=1 test  the same, everything built with ASan + UBSan
#   make NEWSQLITE=1 test the same, against SQLite 3.52 built from source
#   make demo             examples/library.sql in the sqlite3 shell
#   make bench            bench/bench.c against docext.so (N=... for fewer docs)
#   make amalgamation     dist/docext.c, the whole extension in one file
#   make fuzz             the libFuzzer targets in test/fuzz/ (clang)
#   make clean
#
# test, demo and bench first run tools/deps.sh, which installs missing Debian
# packages (and does nothing, quickly, when all are there).
#
# Objects live under build/plain or build/sanitize, so plain and sanitized
# code never mix; ./docext.so is relinked whenever the mode changes.

SANITIZE ?= 0

# A plain docext.so is linked with -z defs, so a function declared but defined
# nowhere fails the build instead of the load. (A sanitized one cannot be: the
# sanitizer runtime it calls comes from the host program or LD_PRELOAD.)
ifeq ($(SANITIZE),1)
  MODE   := sanitize
  OPT    := -fsanitize=address,undefined,float-cast-overflow \
            -fno-sanitize-recover=all \
            -fno-omit-frame-pointer -g -O1
  SOLINK :=
else
  MODE   := plain
  OPT    := -O2
  SOLINK := -Wl,-z,defs
endif

# NEWSQLITE=1: test against SQLite 3.52.0, built from source by
# tools/newsqlite.sh in build/sqlite-3.52.0 (library and shell), instead of
# the system's libsqlite3 and sqlite3 shell (3.40 on Debian 12): the oldest
# and the newest SQLite docext is tested with. docext.so and the test
# programs are still compiled with the system's sqlite3.h, as a docext built
# on Debian and loaded into a newer SQLite would be; the amalgamation is
# compiled with 3.52's headers, as an application embedding both would.
NEWSQLITE ?= 0
ifeq ($(NEWSQLITE),1)
  SQLITE_DIR    := build/sqlite-3.52.0
  MODE          := $(MODE)-sqlite352
  SQLITE_CFLAGS := -I$(SQLITE_DIR)
  SQLITE_LIBS   := $(SQLITE_DIR)/sqlite3.o -ldl -lpthread
  SQLITE_DEP    := $(SQLITE_DIR)/sqlite3.o
else
  SQLITE_CFLAGS :=
  SQLITE_LIBS   := -lsqlite3
  SQLITE_DEP    :=
endif

B        := build/$(MODE)
# What an uninstrumented program (the sqlite3 shell) needs to load a sanitized
# docext.so: the sanitizer runtimes, preloaded.
SHELL_PRELOAD = $(if $(filter 1,$(SANITIZE)),LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)")
XCFLAGS  := -std=c11 $(OPT) -Wall -Wextra -Werror -fPIC -fvisibility=hidden \
            $(CFLAGS)
XLDFLAGS := $(OPT) $(LDFLAGS)
LIBS     := -lpcre2-8 -lstemmer -licui18n -licuuc -lm

SRCS      := $(sort $(wildcard ext/*.c))
SO_OBJS   := $(SRCS:ext/%.c=$(B)/so/%.o)
CORE_OBJS := $(SRCS:ext/%.c=$(B)/core/%.o)
UNIT_SRCS := $(filter-out test/test_amalgamation.c,$(wildcard test/test_*.c))
UNIT_PROGS:= $(UNIT_SRCS:test/%.c=$(B)/%)
# Each fuzz target (test/fuzz/fuzz_NAME.c) is also built without libFuzzer
# as $(B)/replay_NAME, which test/run.sh runs over its saved inputs.
REPLAY_PROGS := $(patsubst test/fuzz/fuzz_%.c,$(B)/replay_%,$(wildcard test/fuzz/fuzz_*.c))
TEST_PROGS:= $(UNIT_PROGS) $(REPLAY_PROGS) $(B)/test_amalgamation

.PHONY: all test test-build demo bench amalgamation fuzz deps clean
.SECONDARY: $(SO_OBJS) $(CORE_OBJS)
all: docext.so

# Rebuild when the flags change (build/MODE/flags) and relink docext.so when
# the mode changes (build/mode): both files are rewritten only on a change.
ifneq ($(MAKECMDGOALS),clean)
  $(shell mkdir -p $(B) && \
          { echo '$(CC) $(XCFLAGS) $(XLDFLAGS) $(SOLINK)' | cmp -s - $(B)/flags || \
            echo '$(CC) $(XCFLAGS) $(XLDFLAGS) $(SOLINK)' > $(B)/flags; } && \
          { echo '$(MODE)' | cmp -s - build/mode || echo '$(MODE)' > build/mode; })
endif

docext.so: $(SO_OBJS) build/mode $(B)/flags
	$(CC) $(XLDFLAGS) $(SOLINK) -shared -o $@ $(SO_OBJS) $(LIBS)

$(B)/so/%.o: ext/%.c $(B)/flags
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -MMD -MP -c -o $@ $<

# The same sources compiled into the core, for C unit tests that link
# libsqlite3 directly and call internal functions.
$(B)/core/%.o: ext/%.c $(B)/flags
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -DSQLITE_CORE -MMD -MP -c -o $@ $<

$(B)/test_%: test/test_%.c $(CORE_OBJS) $(B)/flags $(SQLITE_DEP)
	$(CC) $(XCFLAGS) -pthread -DSQLITE_CORE -I ext -MMD -MP -o $@ $< $(CORE_OBJS) \
	  $(XLDFLAGS) -pthread $(SQLITE_LIBS) $(LIBS)

$(B)/replay_%: test/fuzz/fuzz_%.c test/fuzz/replay.c test/fuzz/fuzz.h $(CORE_OBJS) $(B)/flags $(SQLITE_DEP)
	$(CC) $(XCFLAGS) -DSQLITE_CORE -I ext -MMD -MP -o $@ $< test/fuzz/replay.c \
	  $(CORE_OBJS) $(XLDFLAGS) $(SQLITE_LIBS) $(LIBS)

# The amalgamation, compiled in as an application would, then checked to
# define no global symbol outside the docext namespace. One translation unit
# inlines across former file boundaries, where gcc's maybe-uninitialized
# analysis gives warnings that the separate files do not: they are shown but
# do not fail the build.
amalgamation: dist/docext.c

dist/docext.c: tools/amalgamate.sh $(SRCS) $(wildcard ext/*.h)
	bash tools/amalgamate.sh $@

$(B)/amalgamation.o: dist/docext.c $(B)/flags $(SQLITE_DEP)
	$(CC) $(XCFLAGS) $(SQLITE_CFLAGS) -Wno-error=maybe-uninitialized -DSQLITE_CORE -c -o $@ $<
	@bad=$$(nm -g --defined-only $@ | awk '{print $$3}' | \
	        grep -v -e '^docext' -e '^sqlite3_docext_init$$' || true); \
	if [ -n "$$bad" ]; then \
	  echo "dist/docext.c: global symbols outside the docext namespace:" $$bad >&2; \
	  rm -f $@; exit 1; \
	fi

$(B)/test_amalgamation: test/test_amalgamation.c $(B)/amalgamation.o
	$(CC) $(XCFLAGS) $(SQLITE_CFLAGS) -DSQLITE_CORE -MMD -MP -o $@ $< $(B)/amalgamation.o \
	  $(XLDFLAGS) $(SQLITE_LIBS) $(LIBS)

# The benchmark is an ordinary SQLite application: it links -lsqlite3 and
# loads ./docext.so with sqlite3_load_extension.
$(B)/bench: bench/bench.c $(B)/flags
	$(CC) $(XCFLAGS) -MMD -MP -o $@ $< $(XLDFLAGS) -lsqlite3 -lm

deps:
	@bash tools/deps.sh

test-build: docext.so $(TEST_PROGS)

test: deps
	@$(MAKE) --no-print-directory test-build
	@DOCEXT_NO_BUILD=1 SANITIZE=$(SANITIZE) NEWSQLITE=$(NEWSQLITE) bash test/run.sh $(T)

build/sqlite-3.52.0/sqlite3.o:
	bash tools/newsqlite.sh $(@D)

# The demo shows one duplicate-key error on purpose, which makes the shell
# exit with 1; only a worse status (a crash) fails `make demo`. The test
# suite checks that the demo has no other error.
demo: deps
	@$(MAKE) -s --no-print-directory docext.so
	@$(SHELL_PRELOAD) sqlite3 -init /dev/null -batch :memory: < examples/library.sql; \
	  status=$$?; [ $$status -le 1 ] || { echo "demo: sqlite3 exited $$status" >&2; exit 1; }

bench: deps
	@$(MAKE) --no-print-directory docext.so $(B)/bench
	./$(B)/bench $(N)

# Coverage-guided fuzzing with clang's libFuzzer, under ASan and UBSan: each
# target in test/fuzz/ runs for FUZZ_SECONDS, starting from its seeds in
# test/fuzz/seeds/TARGET and what earlier runs kept in build/fuzz/corpus/.
# An input that breaks a target is saved in build/fuzz/crashes/ and stops
# the run. Not part of `make test`: a campaign, not a regression test.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   := -std=c11 -g -O1 -fsanitize=address,undefined \
                -fno-sanitize-recover=all -DSQLITE_CORE -I ext
FUZZ_TARGETS := $(patsubst test/fuzz/%.c,%,$(wildcard test/fuzz/fuzz_*.c))
FUZZ_OBJS    := $(SRCS:ext/%.c=build/fuzz/obj/%.o)
.SECONDARY: $(FUZZ_OBJS)

build/fuzz/obj/%.o: ext/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

build/fuzz/fuzz_%: test/fuzz/fuzz_%.c test/fuzz/fuzz.h $(FUZZ_OBJS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) -lsqlite3 $(LIBS)

fuzz:
	@bash tools/deps.sh fuzz
	@$(MAKE) --no-print-directory $(FUZZ_TARGETS:%=build/fuzz/%)
	@mkdir -p build/fuzz/crashes
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p build/fuzz/corpus/$$t; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  ./build/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	    -print_final_stats=1 -dict=test/fuzz/docext.dict \
	    -artifact_prefix=build/fuzz/crashes/$$t- \
	    build/fuzz/corpus/$$t test/fuzz/seeds/$$t 2>&1 | \
	    grep -E '^(stat::number_of_executed_units|==|SUMMARY|fuzz:)' ; \
	  ls build/fuzz/crashes/$$t-* >/dev/null 2>&1 && { echo "fuzz: $$t broke: see build/fuzz/crashes" >&2; exit 1; }; \
	done; echo "fuzz: no target broke"

clean:
	rm -rf build dist docext.so

-include $(wildcard $(B)/*/*.d $(B)/*.d build/fuzz/obj/*.d)
