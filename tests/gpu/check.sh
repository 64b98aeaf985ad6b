#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The GPU checks in one go, for a machine with an NVIDIA GPU: builds the CUDA backend (and the GUI where
# Qt is installed), its tests and the GPU benchmark into build/gpu (a build/gpu made elsewhere and
# carried over is used as it is when this machine cannot build), says what the driver and the plugin
# see, runs the CUDA tests against the CPU reference, a collected run from the command line,
# grouped-query and decode runs, PyTorch's own attention through the PyTorch backend and the post's
# experiment (examples/attention_variants.py) with its findings (when a Python with a CUDA PyTorch is there), a live CUDA run and the collected run in the window under Xvfb
# (screenshots into $OUT when set), and the benchmark (flash TFLOP/s against the dense peak, cuBLAS
# naive, CUPTI's overhead), printing every number. Exit status: 0 when all pass, 1 when a test fails
# or there is no GPU, 2 when nothing could be built.
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
echo "== build (CUDA backend on; the GUI too where Qt is installed) in $BUILD"
configure() {
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_CUDA=ON -DATTNSCOPE_BUILD_GUI="$1" \
        -DATTNSCOPE_BIN_DIR="$PWD/$BUILD" >>"$BUILD.log" 2>&1
}
: >"$BUILD.log"
if (configure ON || configure OFF) &&
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
echo "== grouped-query heads and a decode step on flash (bf16, 8 query heads on 1 K/V head, 32k keys)"
"$BUILD/attnscope" run --backend cuda --impl flash --heads 8 --kv-heads 1 --decode --kv-len 32768 --dim 128 \
    --dtype bf16 --warmup 2 --iters 5 || rc=1
"$BUILD/attnscope" run --backend cuda --impl flash --heads 16 --kv-heads 4 --seq 2048 --dim 128 --dtype bf16 \
    --causal --warmup 2 --iters 5 || rc=1
echo "== PyTorch's own attention on the GPU (the PyTorch backend: naive, SDPA math, flash, efficient, cuDNN; bf16)"
# The Python with a CUDA PyTorch: ATTNSCOPE_PYTHON, build/torch-venv (make torch-venv), or python3.
torch_python=""
for py in "${ATTNSCOPE_PYTHON:-}" build/torch-venv/bin/python python3; do
    if [ -n "$py" ] && "$py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
        torch_python=$py
        break
    fi
done
if [ -n "$torch_python" ]; then
    "$BUILD/attnscope" run --backend torch --python "$torch_python" --heads 16 --seq 2048 --dim 128 --dtype bf16 \
        --causal --warmup 2 --iters 5 -o "$BUILD/torch_run.json.gz" || rc=1
    "$BUILD/attnscope" summary "$BUILD/torch_run.json.gz" --top 12 || rc=1
    "$BUILD/attnscope" run --backend torch --python "$torch_python" --impl naive,flash,efficient --heads 32 \
        --kv-heads 8 --decode --kv-len 32768 --dim 128 --dtype bf16 --warmup 2 --iters 5 || rc=1
    echo "== the post's experiment under CUDA (examples/attention_variants.py: naive, in-place, SDPA math,"
    echo "   efficient, flash, cuDNN; bf16): each trace's attention per implementation and its findings"
    if "$torch_python" examples/attention_variants.py --all --device cuda -o "$BUILD/post"; then
        for variant in naive inplace math efficient flash cudnn; do
            [ -f "$BUILD/post/$variant.json" ] || continue
            "$BUILD/attnscope" summary "$BUILD/post/$variant.json" --top 6 | sed -n '/attention calls/,$p' || rc=1
        done
        echo "== the six side by side (attnscope compare): each call against the expected one"
        variants=()
        for variant in naive inplace math efficient flash cudnn; do
            [ -f "$BUILD/post/$variant.json" ] && variants+=("$BUILD/post/$variant.json")
        done
        "$BUILD/attnscope" compare "${variants[@]}" || rc=1
    else
        rc=1
    fi
    echo "== attnscope profile on a transformers model under CUDA (examples/hf_attention.py, eager vs sdpa):"
    echo "   the program unchanged, its optimizer steps streamed, each trace's calls and findings"
    if "$torch_python" -c 'import transformers' 2>/dev/null; then
        for attn in eager sdpa; do
            "$BUILD/attnscope" profile -o "$BUILD/hf_$attn.json" --log - -- "$torch_python" examples/hf_attention.py \
                --attn "$attn" --device cuda --seq 1024 --batch 4 --steps 8 >/dev/null || rc=1
            "$BUILD/attnscope" summary "$BUILD/hf_$attn.json" --findings-only || rc=1
        done
        "$BUILD/attnscope" compare "$BUILD/hf_eager.json" "$BUILD/hf_sdpa.json" || rc=1
    else
        echo "no transformers in $torch_python (make torch-venv installs it): not checked"
        rc=1
    fi
else
    echo "no Python with a CUDA PyTorch here (ATTNSCOPE_PYTHON, build/torch-venv, python3): not checked"
    rc=1
fi
echo "== the window: a live CUDA run, then the collected run (screenshots, where Xvfb and the GUI are)"
if command -v xvfb-run >/dev/null && grep -q "ATTNSCOPE_BUILD_GUI:BOOL=ON" "$BUILD/CMakeCache.txt" 2>/dev/null &&
    cmake --build "$BUILD" --target attnscope_ui >>"$BUILD.log" 2>&1; then
    dir="${OUT:-$BUILD}"
    if timeout 180 xvfb-run -a -s "-screen 0 1400x900x24" "$BUILD/attnscope" --run-backend cuda \
            --screenshot "$dir/live_cuda_run_window.png"; then
        echo "screenshot of the live run: $dir/live_cuda_run_window.png"
    else
        echo "the live run in the window failed (see above)"
        rc=1
    fi
    if timeout 120 xvfb-run -a -s "-screen 0 1400x900x24" "$BUILD/attnscope" "$BUILD/cuda_run.json.gz" \
            --screenshot "$dir/cuda_run_window.png"; then
        echo "screenshot of the collected run: $dir/cuda_run_window.png"
    else
        echo "the window could not open the collected run (see above)"
        rc=1
    fi
else
    echo "no Xvfb or no GUI build here: no screenshot"
fi
echo "== benchmark"
iters=20
[ "${1:-}" = "--quick" ] && iters=5
"$BUILD/attnscope_bench_attention_gpu" --iters "$iters" || rc=1
exit $rc
