# SPDX-License-Identifier: MIT
# The README's two commands, `make run` and `make test`, and the other documented entry points.
# Every target installs the Debian packages it needs first (quietly, and only what is missing).

JOBS ?= $(shell nproc)
# Every suite of the core test binary, read from its sources (what `make test` also runs under the
# sanitizers): a suite added there is never left out here.
CORE_SUITES := $(shell grep -ho '^TEST[_F]*.[A-Za-z0-9_]*,' tests/core/*.cpp | sed 's/^TEST[_F]*.//; s/,$$//' | sort -u | paste -sd'|' -)
FUZZ_SECONDS ?= 60
BENCH_MB ?= 400
PAINT_MB ?= 1024

.PHONY: mutate deps build run test torch-venv test-under-load bench bench-torch asan-test fuzz package install-check clean

deps:
	@bash packaging/install-deps.sh

build: deps
	@cmake --preset dev >/dev/null
	@cmake --build --preset dev -j $(JOBS)

# Builds and starts build/attnscope, which opens on a live CPU run of naive vs flash attention.
run: build
	./build/attnscope

# Builds and runs the whole test suite; the fast binaries again in one process each, shuffled and
# three times over, so no test leans on another's state or order; then the core and reader tests
# under AddressSanitizer + UndefinedBehaviorSanitizer (the asan preset), since the readers take files
# from strangers.
SHUFFLED = core kernels cli
test: build torch-venv
	ctest --preset dev -j $(JOBS)
	@for t in $(SHUFFLED); do log=build/dev/tests/shuffled-$$t.log; \
	  if build/dev/tests/attnscope_$${t}_tests --gtest_shuffle --gtest_repeat=3 --gtest_brief=1 >$$log 2>&1; \
	  then echo "attnscope_$${t}_tests, shuffled, 3 times: $$(tail -1 $$log)"; else cat $$log; exit 1; fi; done
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS) --target attnscope_core_tests
	ctest --preset asan -j $(JOBS) -R '^($(CORE_SUITES))\.'

# PyTorch from PyPI in build/torch-venv, once (with numpy, which torch warns about at import without,
# and Hugging Face transformers for examples/hf_attention.py; pip's cache makes a second machine's
# install quick): the PyTorch backend's and `attnscope profile`'s tests and the PyTorch benchmark run
# it, and Dask (with pyarrow for Parquet), the engine of `attnscope job --map`. Nothing else is
# downloaded (the example's model is built from a config, its weights random).
torch-venv: deps
	@test -x build/torch-venv/bin/python || python3 -m venv build/torch-venv
	@build/torch-venv/bin/python -c 'import torch, numpy, transformers, dask.distributed, pyarrow' 2>/dev/null || build/torch-venv/bin/pip install -q torch numpy transformers 'dask[distributed]' pyarrow

# The .deb: release build, then CPack; lists what it installs and validates the desktop entry and
# the AppStream metainfo. Install it with `sudo apt install ./build/release/attnscope_*.deb`.
package: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)
	cd build/release && cpack -G DEB
	dpkg-deb -c build/release/attnscope_*.deb
	desktop-file-validate packaging/attnscope.desktop
	appstreamcli validate --no-net packaging/io.github.attnscope.AttnScope.metainfo.xml

# The .deb installed with apt on a clean Debian 12 (debootstrap minbase bookworm, in a chroot; needs
# root and Debian's archive), then run there: --version, a summary, a chart export, the window.
# The clean system is kept in build/clean-root-cache so a second run skips debootstrap.
install-check: package
	tests/packaging/clean_install.sh build/release/attnscope_*.deb build/clean-root-cache

# The load benchmark on a generated Kineto trace of BENCH_MB megabytes (plain, then gzipped): the bare
# load (single-threaded and on every core), the document parts `summary` adds, `attnscope summary
# --format json` as a user runs it, and python3's json.load on the same file for comparison; the
# timeline's frame benchmark (10M events, 1920x1080); a profile of 1M events streamed into the window
# against opening its saved trace once; the CPU attention kernels; the time to the
# first painted timeline of a PAINT_MB trace vs. `attnscope summary`; a job of 1,000 generated 5 MB ranks
# through the engine (job --map on Dask) against their summaries one by one. Release build.
bench: deps torch-venv
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)
	./build/release/bench/attnscope_bench_load --size-mb $(BENCH_MB)
	./build/release/bench/attnscope_bench_load --size-mb $(BENCH_MB) --gzip --no-python
	./build/release/bench/attnscope_bench_frame
	./build/release/bench/attnscope_bench_live
	./build/release/bench/attnscope_bench_attention_cpu
	./build/release/bench/attnscope_bench_job --python build/torch-venv/bin/python
	tests/bench/first_paint.sh $(PAINT_MB)

# AttnScope's CPU attention beside PyTorch's in one run (tests/bench/torch_compare.py): naive, SDPA math
# and SDPA flash at N 2048/4096, D 64/128, fp32/bf16, causal or not, and a GQA decode step. PyTorch
# comes from PyPI into build/torch-venv (pip's cache is used; nothing else is downloaded).
# BENCH_TORCH_ARGS=--quick keeps the N=2048 D=64 rows and the decode step.
bench-torch: deps torch-venv
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS) --target attnscope_bench_attention_cpu
	tmp=$$(mktemp -d) && XDG_CONFIG_HOME=$$tmp XDG_CACHE_HOME=$$tmp build/torch-venv/bin/python \
	  tests/bench/torch_compare.py build/release/bench/attnscope_bench_attention_cpu $(BENCH_TORCH_ARGS); \
	  status=$$?; rm -rf $$tmp; exit $$status

# The test binaries LOAD_RUNS times in a row (default 20) under two busy loops (tests/under_load.sh):
# no test may lean on an idle machine.
LOAD_RUNS ?= 20
test-under-load: build
	tests/under_load.sh build/dev $(LOAD_RUNS)

# The core and reader tests, the CPU kernels and run session, and the widget tests (the timeline
# writes pixels itself), under AddressSanitizer + UndefinedBehaviorSanitizer.
asan-test: deps torch-venv # RunPanel's PyTorch run starts the venv's Python
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS) --target attnscope_core_tests attnscope_ui_tests attnscope_kernels_tests
	ctest --preset asan -j $(JOBS) -R '^($(CORE_SUITES)|TimeViewport|Ruler|TimelineView|Export|MainWindow|KernelTableModel|CpuAttention|KernelCost|WorkerPool|RoundToDType|RunSession|RunPanel|Charts|Compare|CuptiRecords|RecordAssembler)\.'

# Mutation testing (tests/mutate/mutate.py, universalmutator from PyPI in build/mutate-venv): the
# analysis, summary/diff formatting, timestamps, the gzip reader and the ranks merge, each mutant
# rebuilt into the one test binary that covers the file and run against those tests only. Prints
# killed / survived / equivalent per file and the survivors; reports in build/mutants/.
# MUTATE_MINUTES (default 60) bounds the run, MUTATE_MAX samples that many mutants per file (default
# 60, the same ones each run; 0: all — universalmutator makes about 15 per line),
# MUTATE_ONLY keeps the files whose path contains it.
mutate: build
	@test -x build/mutate-venv/bin/mutate || \
	  (python3 -m venv build/mutate-venv && build/mutate-venv/bin/pip install -q universalmutator)
	build/mutate-venv/bin/python tests/mutate/mutate.py

# Runs the readers' libFuzzer targets for FUZZ_SECONDS each (clang-14): JSON (plain or gzip, then the
# summary, the analysis, diff and the rank merge) seeded from tests/fuzz/corpus and the fixtures; the
# nsys SQLite reader seeded from the fixture export. New inputs go to build/fuzz/corpus-*.
fuzz:
	@bash packaging/install-deps.sh fuzz
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz -j $(JOBS)
	mkdir -p build/fuzz/corpus-json build/fuzz/corpus-nsys
	./build/fuzz/tests/fuzz/fuzz_json_reader -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 \
		-max_len=65536 build/fuzz/corpus-json tests/fuzz/corpus $(wildcard ../shared/fixtures/traces)
	@# libFuzzer takes corpus folders only: the nsys fixture seeds the working corpus.
	$(if $(wildcard ../shared/fixtures/traces/*.sqlite),cp -u ../shared/fixtures/traces/*.sqlite build/fuzz/corpus-nsys/)
	./build/fuzz/tests/fuzz/fuzz_nsys_reader -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 \
		-max_len=700000 build/fuzz/corpus-nsys

clean:
	rm -rf build
