# SPDX-License-Identifier: MIT
"""AttnScope's PyTorch runner: runs PyTorch's own attention implementations under torch.profiler,
one profiler step per call, and says what it does as line-delimited JSON on stdout.

    python3 torch_runner.py CONFIG_JSON OUT_DIR

CONFIG_JSON: {"impls": ["naive", "naive_inplace", "math", "flash", "efficient", "cudnn"], "batch": 1, "heads": 8,
"seq": 2048, "dim": 64, "kv_heads": 0, "kv_len": 0, "causal": false, "dtype": "fp32", "warmup": 1,
"iters": 3, "threads": 0, "mask_by": "masked_fill"}. kv_heads 0: as many as heads (GQA/MQA: fewer);
kv_len 0: seq (decode: a KV cache longer than the queries); mask_by: how naive applies a causal mask
(masked_fill, masked_fill_, where, add). Each call's Kineto trace is written into OUT_DIR.

Lines on stdout, one JSON object each, "event" saying which:
  started   torch version, device ("cpu" or "cuda"), device name, threads
  skipped   impl, reason: the implementation cannot run here (PyTorch's own words)
  checked   impl, max_diff, tolerance, ok: its output against the fp32 math reference on the same inputs
  step      impl, call, warmup, trace (the step's file), ms (the call's wall time); the implementations'
            calls come in rounds, each round one call of each, the first of a round turning by one
  error     message (and "import": true when torch could not be imported); the run ends
  finished  stopped: whether SIGTERM ended it early
AttnScope starts this script (attnscope run --backend torch, or the Run panel's PyTorch backend);
it can also be run by hand to see what it does.
"""
import json
import math
import os
import signal
import sys
import time
import traceback
import warnings

IMPLS = ("naive", "naive_inplace", "math", "flash", "efficient", "cudnn", "flash_bf16")


def say(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


stop_requested = False


def request_stop(signum, frame):
    global stop_requested
    stop_requested = True


def main():
    if len(sys.argv) != 3:
        say(event="error", message="usage: torch_runner.py CONFIG_JSON OUT_DIR")
        return 2
    try:
        config = json.loads(sys.argv[1])
    except ValueError as e:
        say(event="error", message="the configuration is not JSON: %s" % e)
        return 2
    out_dir = sys.argv[2]
    impls = config.get("impls", ["naive", "math", "flash"])
    unknown = [i for i in impls if i not in IMPLS]
    if unknown:
        say(event="error", message="unknown implementation '%s' (PyTorch's are: %s)" % (unknown[0], ", ".join(IMPLS)))
        return 2
    signal.signal(signal.SIGTERM, request_stop)
    try:
        import torch
    except Exception as e:  # ImportError, or a broken install raising anything
        say(event="error", message="torch could not be imported: %s: %s" % (type(e).__name__, e), **{"import": True})
        return 3
    try:
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel
        from torch.profiler import ProfilerActivity, profile, record_function
    except Exception as e:
        say(event="error", message="PyTorch %s lacks what the runner uses (torch.nn.attention.sdpa_kernel, "
            "PyTorch 2.3 or newer): %s: %s" % (torch.__version__, type(e).__name__, e))
        return 3

    cuda = torch.cuda.is_available()
    device = "cuda" if cuda else "cpu"
    threads = int(config.get("threads", 0))
    if threads > 0:
        torch.set_num_threads(threads)
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[config.get("dtype", "fp32")]
    b, h, n, d = (int(config.get(k, v)) for k, v in (("batch", 1), ("heads", 8), ("seq", 2048), ("dim", 64)))
    kv_heads = int(config.get("kv_heads", 0)) or h
    kv_len = int(config.get("kv_len", 0)) or n
    causal = bool(config.get("causal", False))
    warmup, iters = int(config.get("warmup", 1)), int(config.get("iters", 3))
    say(event="started", torch=torch.__version__, device=device,
        device_name=torch.cuda.get_device_name(0) if cuda else "CPU", threads=torch.get_num_threads())

    gen = torch.Generator(device="cpu").manual_seed(1)
    q = torch.randn(b, h, n, d, generator=gen).to(device=device, dtype=dtype)
    k = torch.randn(b, kv_heads, kv_len, d, generator=gen).to(device=device, dtype=dtype)
    v = torch.randn(b, kv_heads, kv_len, d, generator=gen).to(device=device, dtype=dtype)
    scale = 1.0 / math.sqrt(d)
    # Causal with a KV cache longer than the queries: the queries are the cache's last tokens
    # (the mask's diagonal at the bottom right), as in decoding.
    lower_right = causal and kv_len != n
    mask = None
    if causal:
        mask = torch.ones(n, kv_len, dtype=torch.bool, device=device).tril(diagonal=kv_len - n)
    # How the call applied its mask by hand, as the trace shows it (the call as it was): masked_fill (out
    # of place), masked_fill_, where, or add (an additive mask, as transformers' eager attention adds its
    # causal mask). The mask is made once, outside the calls, as a model makes it once per forward.
    mask_by = config.get("mask_by", "masked_fill")
    hidden = None if mask is None else ~mask
    additive = None
    if mask is not None and mask_by == "add":
        additive = torch.zeros(n, kv_len, dtype=dtype, device=device).masked_fill(hidden, torch.finfo(dtype).min)
    minus_inf = torch.tensor(float("-inf"), dtype=dtype, device=device)

    def by_hand(in_place):
        # Attention as people write it by hand (Hugging Face's eager attention): K and V heads
        # repeated for grouped queries, QKᵀ, scale, mask, softmax, PV. The mask as most write it,
        # masked_fill (a copy of the scores, then the fill), or in place, masked_fill_ (no copy): the
        # post's lesson.
        def call():
            kk, vv = k, v
            if kv_heads != h:
                kk = k.repeat_interleave(h // kv_heads, dim=1)
                vv = v.repeat_interleave(h // kv_heads, dim=1)
            s = (q @ kk.transpose(-2, -1)) * scale
            if mask is not None:
                if in_place or mask_by == "masked_fill_":
                    s.masked_fill_(hidden, float("-inf"))
                elif mask_by == "add":
                    s = s + additive
                elif mask_by == "where":
                    s = torch.where(hidden, minus_inf, s)
                else:
                    s = s.masked_fill(hidden, float("-inf"))
            return torch.softmax(s, dim=-1) @ vv
        return call

    # (cuDNN's backend is newer than the others: an older PyTorch lacks it.)
    backends = {impl: getattr(SDPBackend, name, None) for impl, name in (
        ("math", "MATH"), ("flash", "FLASH_ATTENTION"), ("efficient", "EFFICIENT_ATTENTION"),
        ("cudnn", "CUDNN_ATTENTION"))}

    # Grouped K/V heads need enable_gqa (PyTorch 2.5 or newer); it is left out otherwise, so that
    # older versions run the rest.
    gqa = {"enable_gqa": True} if kv_heads != h else {}

    def sdpa(backend, inputs=(q, k, v)):
        qq, kk, vv = inputs

        def call():
            with sdpa_kernel([backend]):
                if lower_right:
                    return F.scaled_dot_product_attention(qq, kk, vv, attn_mask=mask, **gqa)
                return F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal, **gqa)
        return call

    # Half precision where the call ran fp32 (flash_bf16): the same inputs cast to bf16 once, outside the
    # measured call (a model in bf16 has them so), held to the fp32 reference within bf16's tolerance.
    half = tuple(x.to(torch.bfloat16) for x in (q, k, v)) if dtype == torch.float32 else None

    # Every implementation's output is held to one reference: the same inputs in fp32, K/V heads repeated,
    # through SDPA's math backend, within the dtype's tolerance (an implementation that computes
    # something else says so).
    with sdpa_kernel([backends["math"]]):
        kr, vr = k.float(), v.float()
        if kv_heads != h:
            kr = kr.repeat_interleave(h // kv_heads, dim=1)
            vr = vr.repeat_interleave(h // kv_heads, dim=1)
        if lower_right:
            reference = F.scaled_dot_product_attention(q.float(), kr, vr, attn_mask=mask)
        else:
            reference = F.scaled_dot_product_attention(q.float(), kr, vr, is_causal=causal)

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    # The profiler's first start loads and sets up Kineto (a second or two): not in a step.
    with profile(activities=activities):
        pass

    # Each implementation that can run here, checked against the reference first; then their calls in
    # rounds, one call of each a round, the order turned by one each round: run one after another, the
    # first to run is slowed by what the process has not yet warmed (allocator, caches, threads) and a
    # saving measured between them is partly the order's. The i-th calls of two implementations are a pair.
    runnable = []
    for impl in impls:
        if stop_requested:
            break
        if impl == "naive_inplace" and mask is None:
            say(event="skipped", impl=impl, reason="the call has no mask: nothing to fill in place (naive is the same)")
            continue
        if impl == "naive_inplace" and mask_by == "masked_fill_":
            say(event="skipped", impl=impl, reason="the call fills its mask in place already (naive is the same)")
            continue
        if impl.endswith("_bf16") and half is None:
            say(event="skipped", impl=impl, reason="the call already runs in half precision")
            continue
        backend = backends[impl[:-len("_bf16")] if impl.endswith("_bf16") else impl] \
            if not impl.startswith("naive") else None
        if not impl.startswith("naive") and backend is None:
            say(event="skipped", impl=impl, reason="PyTorch %s has no such SDPA backend" % torch.__version__)
            continue
        if impl.startswith("naive"):
            run = by_hand(impl == "naive_inplace")
        else:
            run = sdpa(backend, half) if impl.endswith("_bf16") else sdpa(backend)
        # Can it run here? PyTorch says why not in the error it raises and the warnings before it.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = run()
                if cuda:
                    torch.cuda.synchronize()
                reason = None
            except Exception as e:
                said = [str(w.message) for w in caught if str(w.message).strip()]
                reason = "; ".join(said + [str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__])
        if reason is not None:
            if not cuda and impl in ("efficient", "cudnn"):
                reason = "PyTorch has this backend on CUDA only (%s)" % reason
            say(event="skipped", impl=impl, reason=reason)
            continue
        diff = (out.float() - reference).abs().max().item()
        within = {torch.float32: 1e-3, torch.bfloat16: 5e-2, torch.float16: 1e-2}[out.dtype]
        say(event="checked", impl=impl, max_diff=diff, tolerance=within, ok=bool(diff <= within))
        runnable.append((impl, run))

    step = 0
    for call in range(warmup + iters):
        if stop_requested:
            break
        turn = call % len(runnable) if runnable else 0
        for impl, run in runnable[turn:] + runnable[:turn]:
            if stop_requested:
                break
            path = os.path.join(out_dir, "step-%04d.json" % step)
            with profile(activities=activities, record_shapes=True) as prof:
                start = time.perf_counter()
                with record_function("%s attention" % impl):
                    run()
                    if cuda:
                        torch.cuda.synchronize()
                ms = (time.perf_counter() - start) * 1e3
            prof.export_chrome_trace(path)
            say(event="step", impl=impl, call=call, warmup=call < warmup, trace=path, ms=ms)
            step += 1
    say(event="finished", stopped=stop_requested)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:
        say(event="error", message="%s: %s" % (type(e).__name__, e), trace=traceback.format_exc())
        sys.exit(1)
