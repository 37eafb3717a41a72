# wick — build the C library, the Python extension, the examples and the tests.
#   make            libwick.a, libwick.so and the Python extension (wick/_C*.so) into $(BUILD)
#   make test       everything the README's test command runs
# BUILD can be changed to keep several builds apart (make BUILD=build-asan SAN=1).
BUILD ?= build
CC ?= gcc
PYTHON ?= python3
WERROR ?=
SAN ?=
OPT ?= -O2

WARN = -Wall -Wextra -Wshadow -Wmissing-prototypes -Wno-unused-function $(WERROR)
CFLAGS_BASE = -std=gnu11 $(OPT) -g -fPIC -fvisibility=hidden -ffp-contract=off -pthread $(WARN) \
              -Iinclude -Isrc -I$(BUILD)/gen
ifeq ($(SAN),1)
CFLAGS_BASE += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDSAN = -fsanitize=address,undefined
endif
CFLAGS_ALL = $(CFLAGS_BASE) $(CFLAGS)

SRC = $(wildcard src/*/*.c)
GEN = $(BUILD)/gen/ops.c $(BUILD)/gen/py_ops.c $(BUILD)/gen/wick_ops.h $(BUILD)/gen/ops_impl.h
OBJ = $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRC)) $(BUILD)/obj/gen_ops.o
HDR = $(wildcard include/*.h src/*/*.h) $(BUILD)/gen/wick_ops.h $(BUILD)/gen/ops_impl.h

EXT_SUFFIX := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
PY_INC := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_paths()['include'])")
PYSRC = $(wildcard pyext/*.c)
PYOBJ = $(patsubst pyext/%.c,$(BUILD)/pyobj/%.o,$(PYSRC)) $(BUILD)/pyobj/gen_py_ops.o
PYEXT_DIR ?= .
PYEXT = $(PYEXT_DIR)/wick/_C$(EXT_SUFFIX)

.PHONY: example examples all lib python pyc clean check deps test-c test-parity test-asan fuzz test-wasm test-pyodide test-install wasm js bench bench-quick serve
all: lib python examples
examples: $(BUILD)/examples/mlp
lib: $(BUILD)/libwick.a $(BUILD)/libwick.so
python: $(PYEXT) pyc
# Byte-compile the pure-Python layer once, as `pip install` does: an interpreter run with
# PYTHONDONTWRITEBYTECODE (these machines set it) otherwise recompiles it on every import (~25 ms).
pyc:
	$(PYTHON) -m compileall -q wick

$(BUILD)/gen/.stamp: tools/gen.py $(wildcard ops/*.def)
	@mkdir -p $(BUILD)/gen
	$(PYTHON) tools/gen.py $(BUILD)/gen
	@touch $@
$(GEN): $(BUILD)/gen/.stamp ;

$(BUILD)/obj/%.o: src/%.c $(HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@
$(BUILD)/obj/gen_ops.o: $(BUILD)/gen/ops.c $(HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Wno-unused-variable -Wno-unused-label -c $< -o $@

$(BUILD)/libwick.a: $(OBJ)
	@rm -f $@
	ar rcs $@ $^
$(BUILD)/libwick.so: $(OBJ)
	$(CC) -shared -o $@ $^ -lm -pthread $(LDSAN)

$(BUILD)/pyobj/%.o: pyext/%.c $(HDR) $(wildcard pyext/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -I$(PY_INC) -Ipyext -c $< -o $@
$(BUILD)/pyobj/gen_py_ops.o: $(BUILD)/gen/py_ops.c $(HDR) $(wildcard pyext/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -I$(PY_INC) -Ipyext -Wno-unused-variable -c $< -o $@
$(PYEXT): $(PYOBJ) $(BUILD)/libwick.a
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(PYOBJ) $(BUILD)/libwick.a -lm -pthread $(LDSAN)

# The C example: an MLP trained through wick.h alone.
$(BUILD)/examples/mlp: examples/mlp.c $(BUILD)/libwick.a $(HDR)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 $(WARN) -Iinclude -I$(BUILD)/gen $< $(BUILD)/libwick.a -lm -pthread -o $@

# ---- WebAssembly: the same core for wasm32-wasi (reactor), checked by CI ----
# Two builds of the same sources: build/wick.wasm with -msimd128 and build/wick-nosimd.wasm without; the JS loader
# (js/wick.mjs) picks the SIMD one when WebAssembly.validate accepts it. tools/wasm_sizes.py prints both sizes.
WASM_CC ?= clang-14
WASM_FLAGS_BASE = --target=wasm32-wasi --sysroot=/usr -D_WASI_EMULATED_PROCESS_CLOCKS -std=gnu11 -O2 -ffp-contract=off -fvisibility=hidden \
             -Wall -Wextra -Wshadow -Wmissing-prototypes -Wno-unused-function $(WERROR) -Iinclude -Isrc -I$(BUILD)/gen
WASM_LDFLAGS = --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor -Wl,--export-dynamic -Wl,--export=malloc -Wl,--export=free -Wl,--export-table -Wl,--growable-table
WASM_OBJ = $(patsubst src/%.c,$(BUILD)/wasm/%.o,$(SRC)) $(BUILD)/wasm/gen_ops.o
WASM_OBJ_NOSIMD = $(patsubst src/%.c,$(BUILD)/wasm-nosimd/%.o,$(SRC)) $(BUILD)/wasm-nosimd/gen_ops.o
$(BUILD)/wasm/%.o: src/%.c $(HDR)
	@mkdir -p $(dir $@)
	$(WASM_CC) $(WASM_FLAGS_BASE) -msimd128 -c $< -o $@
$(BUILD)/wasm/gen_ops.o: $(BUILD)/gen/ops.c $(HDR)
	@mkdir -p $(dir $@)
	$(WASM_CC) $(WASM_FLAGS_BASE) -msimd128 -Wno-unused-variable -Wno-unused-label -c $< -o $@
$(BUILD)/wasm-nosimd/%.o: src/%.c $(HDR)
	@mkdir -p $(dir $@)
	$(WASM_CC) $(WASM_FLAGS_BASE) -c $< -o $@
$(BUILD)/wasm-nosimd/gen_ops.o: $(BUILD)/gen/ops.c $(HDR)
	@mkdir -p $(dir $@)
	$(WASM_CC) $(WASM_FLAGS_BASE) -Wno-unused-variable -Wno-unused-label -c $< -o $@
$(BUILD)/wick.wasm: $(WASM_OBJ)
	$(WASM_CC) $(WASM_LDFLAGS) -o $@ $^ -lm -lwasi-emulated-process-clocks
	if command -v wasm-opt >/dev/null; then wasm-opt -O2 --strip-debug $@ -o $@; fi
$(BUILD)/wick-nosimd.wasm: $(WASM_OBJ_NOSIMD)
	$(WASM_CC) $(WASM_LDFLAGS) -o $@ $^ -lm -lwasi-emulated-process-clocks
	if command -v wasm-opt >/dev/null; then wasm-opt -O2 --strip-debug $@ -o $@; fi
wasm: $(BUILD)/wick.wasm $(BUILD)/wick-nosimd.wasm
	@$(PYTHON) tools/wasm_sizes.py $(BUILD)/wick.wasm $(BUILD)/wick-nosimd.wasm

# ---- the JS API: js/ (hand-written) + ops.mjs/ops.d.ts generated from build/gen/ops.json + both wasm builds ----
JS_SRC = $(wildcard js/*.mjs js/*.d.ts js/package.json js/README.md)
$(BUILD)/js/.stamp: $(JS_SRC) tools/gen_js.py $(BUILD)/gen/.stamp $(BUILD)/wick.wasm $(BUILD)/wick-nosimd.wasm
	@mkdir -p $(BUILD)/js
	cp $(JS_SRC) $(BUILD)/js/
	$(PYTHON) tools/gen_js.py $(BUILD)/gen/ops.json $(BUILD)/js
	cp $(BUILD)/wick.wasm $(BUILD)/wick-nosimd.wasm $(BUILD)/js/
	@touch $@
js: $(BUILD)/js/.stamp

# ---- tests ----
# C tests run against a separate ASan+UBSan build of the library.
ASAN_BUILD = $(BUILD)/asan
CTESTS = $(patsubst tests/c/%.c,$(ASAN_BUILD)/tests/%,$(wildcard tests/c/test_*.c))
$(ASAN_BUILD)/libwick.a: FORCE
	$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) SAN=1 OPT=-O1 $(ASAN_BUILD)/libwick.a
$(ASAN_BUILD)/examples/mlp: examples/mlp.c $(ASAN_BUILD)/libwick.a
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined $(WARN) -Iinclude \
	    -I$(ASAN_BUILD)/gen $< $(ASAN_BUILD)/libwick.a -lm -pthread -o $@
$(ASAN_BUILD)/tests/%: tests/c/%.c $(ASAN_BUILD)/libwick.a
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -ffp-contract=off \
	    $(WARN) -Iinclude -Isrc -I$(ASAN_BUILD)/gen $< $(ASAN_BUILD)/libwick.a -lm -pthread -o $@
# The public-API test sees include/ and the generated headers only: what a C user of wick.h can reach.
$(ASAN_BUILD)/tests/test_public_api: tests/c/test_public_api.c $(ASAN_BUILD)/libwick.a
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -ffp-contract=off \
	    $(WARN) -Iinclude -I$(ASAN_BUILD)/gen $< $(ASAN_BUILD)/libwick.a -lm -pthread -o $@
test-c: $(CTESTS) $(ASAN_BUILD)/examples/mlp
	@for t in $(CTESTS); do echo "== $$t"; (cd tests/c && ASAN_OPTIONS=detect_leaks=1 $(CURDIR)/$$t) || exit 1; done
	ASAN_OPTIONS=detect_leaks=1 $(ASAN_BUILD)/examples/mlp examples/data/digits.csv 2
	$(PYTHON) tests/c/check_tutorial.py $(ASAN_BUILD)
test-wasm: wasm js
	node --no-warnings tests/wasm/smoke.mjs $(BUILD)/wick.wasm
	node --no-warnings --expose-gc tests/wasm/test_js.mjs $(BUILD)/js
	node --no-warnings --expose-gc tests/wasm/test_js.mjs $(BUILD)/js --nosimd
	node --no-warnings tests/wasm/test_readme.mjs $(BUILD)/js
	node --no-warnings tests/wasm/golden.mjs $(BUILD)/js
	node --no-warnings tests/wasm/golden.mjs $(BUILD)/js --nosimd
	node --no-warnings tests/browser/run.mjs $(BUILD)/js
	node --no-warnings tests/browser/run.mjs $(BUILD)/js --nosimd
# wick/ in Pyodide (npm pyodide in tests/browser/node_modules) on the wasm core, in node and in headless Chromium:
# tests/pyodide/programs/*.py, stdout compared with what real torch printed (pinned by tests/pyodide/pin.py); the
# lessons' code blocks (web/lessons/*.md); the playground and lesson pages driven in Chromium
test-pyodide: js
	node --no-warnings tests/pyodide/run.mjs $(BUILD)/js
	node --no-warnings tests/pyodide/run.mjs $(BUILD)/js --chromium
	node --no-warnings tests/pyodide/lessons.mjs $(BUILD)/js
	node --no-warnings tests/pyodide/playground.mjs $(BUILD)/js
# the playground (web/) on a local server: prints its URL, serves until stopped
serve: js
	node --no-warnings web/serve.mjs $(BUILD)/js
test-parity: all
	$(PYTHON) -m tests.parity
	$(PYTHON) -m tests.parity --check-golden
	$(PYTHON) -m pytest -q tests/parity/test_harness.py tests/test_*.py
# ASan grants huge requests (allocator_may_return_null only covers what it refuses); max_allocation_size_mb caps one
# allocation at 4 GiB (4096 MB; a hostile 8 GiB request must hit it), so a missed size check on a hostile input is a clean allocation failure, not an OOM kill.
ASAN_RUN_OPTIONS = detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=4096
# A slice of the parity suite with the extension built under ASan+UBSan, compared against the pinned goldens.
test-asan:
	rm -rf $(ASAN_BUILD)/py && mkdir -p $(ASAN_BUILD)/py && cp -r wick $(ASAN_BUILD)/py/ && rm -f $(ASAN_BUILD)/py/wick/_C*.so
	$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) SAN=1 OPT=-O1 PYEXT_DIR=$(ASAN_BUILD)/py python
	LD_PRELOAD=$$($(CC) -print-file-name=libasan.so):$$($(CC) -print-file-name=libubsan.so) \
	ASAN_OPTIONS=$(ASAN_RUN_OPTIONS) PYTHONPATH=$(ASAN_BUILD)/py:$(CURDIR) \
	    $(PYTHON) -P -m tests.parity --golden --lib wick -k "$(ASAN_SLICE)"
	LD_PRELOAD=$$($(CC) -print-file-name=libasan.so):$$($(CC) -print-file-name=libubsan.so) \
	ASAN_OPTIONS=$(ASAN_RUN_OPTIONS) PYTHONPATH=$(ASAN_BUILD)/py:$(CURDIR) \
	    $(PYTHON) -P -m tests.fuzz --no-ref --seconds 3 --keep $(ASAN_BUILD)/fuzz
ASAN_SLICE ?= cases_
# The fuzzers of issue 16 for longer than the test command runs them: FUZZ_SECONDS per fuzzer, FUZZ_SEED.
FUZZ_SECONDS ?= 300
FUZZ_SEED ?= 1
fuzz: all
	$(PYTHON) -m tests.fuzz --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED)
deps:
	sh tools/install-test-deps.sh
check: deps
	$(MAKE) --no-print-directory WERROR=-Werror all
	$(MAKE) --no-print-directory WERROR=-Werror test-wasm
	$(MAKE) --no-print-directory test-pyodide
	$(MAKE) --no-print-directory test-c
	$(MAKE) --no-print-directory test-parity
	$(MAKE) --no-print-directory test-asan
	$(MAKE) --no-print-directory test-install

# `pip install .` into a fresh venv must work offline (the build backend needs only the standard library).
test-install:
	rm -rf $(BUILD)/venv && $(PYTHON) -m venv $(BUILD)/venv
	$(BUILD)/venv/bin/pip install --no-index --quiet .
	cd $(BUILD) && venv/bin/python -c "import wick; t = wick.ones(2) * 3; assert t.tolist() == [3.0, 3.0]; print('pip install . works offline:', wick.__file__)"
FORCE:

# The README's first command: build and run the main example.
example: all
	PYTHONPATH=$(CURDIR) $(PYTHON) examples/train_digits.py

# ---- speed (issue 5): wick vs torch side by side, and the GEMM alone in plain C ----
$(BUILD)/bench/gemm_bench: bench/gemm_bench.c $(BUILD)/libwick.a $(HDR)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 $(WARN) -Iinclude -Isrc -I$(BUILD)/gen $< $(BUILD)/libwick.a -lm -pthread -o $@
bench: all $(BUILD)/bench/gemm_bench
	$(BUILD)/bench/gemm_bench
	$(PYTHON) bench/run.py
bench-quick: all
	$(PYTHON) bench/run.py --quick

clean:
	rm -rf $(BUILD) $(PYEXT)
