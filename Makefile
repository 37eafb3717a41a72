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

SRC = $(wildcard src/*.c) $(wildcard src/cpu/*.c)
GEN = $(BUILD)/gen/ops.c $(BUILD)/gen/py_ops.c $(BUILD)/gen/wick_ops.h $(BUILD)/gen/ops_impl.h
OBJ = $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRC)) $(BUILD)/obj/gen_ops.o
HDR = $(wildcard include/*.h src/*.h src/cpu/*.h) $(BUILD)/gen/wick_ops.h $(BUILD)/gen/ops_impl.h

EXT_SUFFIX := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
PY_INC := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_paths()['include'])")
PYSRC = $(wildcard pyext/*.c)
PYOBJ = $(patsubst pyext/%.c,$(BUILD)/pyobj/%.o,$(PYSRC)) $(BUILD)/pyobj/gen_py_ops.o
PYEXT = wick/_C$(EXT_SUFFIX)

.PHONY: all lib python clean test test-c
all: lib python
lib: $(BUILD)/libwick.a $(BUILD)/libwick.so
python: $(PYEXT)

$(BUILD)/gen/.stamp: tools/gen.py $(wildcard ops/*.def)
	@mkdir -p $(BUILD)/gen
	$(PYTHON) tools/gen.py $(BUILD)/gen
	@touch $@
$(GEN): $(BUILD)/gen/.stamp

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
	$(CC) -shared -o $@ $(PYOBJ) $(BUILD)/libwick.a -lm -pthread $(LDSAN)

clean:
	rm -rf $(BUILD) $(PYEXT)
