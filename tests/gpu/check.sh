#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The GPU checks in one go, for a machine with an NVIDIA GPU: builds the CUDA backend, its tests and
# the GPU benchmark (no GUI, into build/gpu; a build/gpu made elsewhere and carried over is used as
# it is when this machine cannot build), says what the driver and the plugin see, runs the CUDA
# tests against the CPU reference, a collected run from the command line, and the benchmark (flash
# TFLOP/s against the dense peak, cuBLAS naive, CUPTI's overhead), printing every number. Exit
# status: 0 when all pass, 1 when a test fails or there is no GPU, 2 when nothing could be built.
#   tests/gpu/check.sh [--quick]     --quick: fewer measured calls in the benchmark
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=build/gpu
echo "== device"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
else
    echo "nvidia-smi not found"
fi
echo "== build (CUDA backend on, no GUI) in $BUILD"
if cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_CUDA=ON -DATTNSCOPE_BUILD_GUI=OFF \
        -DATTNSCOPE_BIN_DIR="$PWD/$BUILD" >"$BUILD.log" 2>&1 &&
    cmake --build "$BUILD" -j "$(nproc)" --target attnscope attnscope_cuda attnscope_gpu_tests attnscope_bench_attention_gpu >>"$BUILD.log" 2>&1; then
    echo "built"
elif [ -x "$BUILD/attnscope_gpu_tests" ]; then
    echo "could not build here (see $BUILD.log); using the binaries already in $BUILD"
else
    tail -20 "$BUILD.log"
    exit 2
fi
echo "== what the plugin sees"
probe=$("$BUILD/attnscope" run --backend cuda --seq 16 --iters 1 --warmup 0 2>&1 | head -3)
echo "$probe"
echo "== CUDA tests"
"$BUILD/attnscope_gpu_tests" --gtest_color=no
rc=$?
if echo "$probe" | grep -q "no CUDA"; then
    echo "no GPU usable here: the device tests were skipped"
    exit 1
fi
echo "== a collected run from the command line (bf16, naive vs flash)"
"$BUILD/attnscope" run --backend cuda --impl naive,flash --batch 1 --heads 16 --seq 2048 --dim 128 --dtype bf16 \
    --warmup 2 --iters 5 -o "$BUILD/cuda_run.json.gz" || rc=1
"$BUILD/attnscope" summary "$BUILD/cuda_run.json.gz" --top 8 || rc=1
echo "== benchmark"
iters=20
[ "${1:-}" = "--quick" ] && iters=5
"$BUILD/attnscope_bench_attention_gpu" --iters "$iters" || rc=1
exit $rc
