# SPDX-License-Identifier: MIT
"""Profiles of small Hugging Face transformers models, made at test time for the findings' tests.

Each model is built from a config with random weights (nothing is downloaded), run on the CPU under
torch.profiler with its inputs' shapes recorded, and written as a Kineto JSON trace into the folder
given: NAME.json for each entry of MODELS. Usage: make_model_traces.py OUT_DIR [NAME...]
"""
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile
from transformers import (BertConfig, BertModel, Gemma2Config, Gemma2ForCausalLM, GPT2Config, GPT2LMHeadModel,
                          LlamaConfig, LlamaForCausalLM)


def llama(impl, kv_heads, dropout=0.0, dtype=torch.float32):
    # Grouped-query attention when kv_heads < heads (Llama 3, Mistral, Qwen2 have 4-8 query heads per K/V
    # head); a few hundred tokens, so attention weighs as it does in a real model.
    config = LlamaConfig(vocab_size=512, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                         num_attention_heads=8, num_key_value_heads=kv_heads, max_position_embeddings=1024,
                         attention_dropout=dropout, attn_implementation=impl)
    return LlamaForCausalLM(config).to(dtype).eval()


def gpt2(impl):
    # Multi-head attention written out as GPT-2 has it (its own eager code), or SDPA.
    config = GPT2Config(vocab_size=512, n_positions=512, n_embd=256, n_layer=2, n_head=8, attn_implementation=impl)
    return GPT2LMHeadModel(config).eval()


def gemma2():
    # Gemma 2's attention caps its scores with tanh (a division, tanh and a multiplication between QKᵀ and
    # the softmax); transformers runs it eagerly (no SDPA for a soft cap).
    config = Gemma2Config(vocab_size=512, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                          num_attention_heads=8, num_key_value_heads=2, head_dim=32, max_position_embeddings=1024,
                          attn_implementation="eager")
    return Gemma2ForCausalLM(config).eval()


def bert(impl):
    # An encoder: bidirectional attention, a padding mask instead of a causal one.
    config = BertConfig(vocab_size=512, hidden_size=256, num_hidden_layers=2, num_attention_heads=8,
                        intermediate_size=512, max_position_embeddings=512, attn_implementation=impl)
    return BertModel(config).eval()


def inference(model, batch=2, tokens=384):
    ids = torch.randint(0, model.config.vocab_size, (batch, tokens))

    def step():
        with torch.no_grad():
            model(ids, use_cache=False)
    return step


def padded(model, batch=2, tokens=256):
    ids = torch.randint(0, model.config.vocab_size, (batch, tokens))
    mask = torch.ones(batch, tokens, dtype=torch.long)
    mask[1, tokens * 3 // 4:] = 0  # the second sequence is shorter: padded

    def step():
        with torch.no_grad():
            model(input_ids=ids, attention_mask=mask)
    return step


def training(model, batch=2, tokens=256, checkpointed=False):
    model.train()
    if checkpointed:  # each layer's activations recomputed in the backward pass
        (getattr(model, "activation_checkpointing_enable", None) or model.gradient_checkpointing_enable)()
    ids = torch.randint(0, model.config.vocab_size, (batch, tokens))

    def step():
        model(ids, labels=ids, use_cache=False).loss.backward()
    return step


def compiled(model, batch=2, tokens=256):
    compiled_model = torch.compile(model)
    ids = torch.randint(0, model.config.vocab_size, (batch, tokens))

    def step():
        with torch.no_grad():
            compiled_model(ids, use_cache=False)
    return step


def generation(model, cache=None, prompt=64, tokens=16):
    ids = torch.randint(0, model.config.vocab_size, (1, prompt))
    options = {"cache_implementation": cache} if cache else {}

    def step():
        with torch.no_grad():
            model.generate(ids, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False, **options)
    return step


MODELS = {
    # Eager attention repeats K/V heads for the query heads (transformers' repeat_kv).
    "llama_gqa_eager": lambda: inference(llama("eager", 2)),
    # SDPA takes the grouped K/V as they are (enable_gqa=True): no copy.
    "llama_gqa_sdpa": lambda: inference(llama("sdpa", 2)),
    # Multi-query attention (one K/V head): the repeat is a view, and the matmul that reads it copies it.
    "llama_mqa_eager": lambda: inference(llama("eager", 1)),
    # As many K/V heads as query heads: nothing to repeat.
    "llama_mha_eager": lambda: inference(llama("eager", 8)),
    # Eager attention in bf16: its softmax runs in fp32 between two casts of the scores.
    "llama_gqa_eager_bf16": lambda: inference(llama("eager", 2, dtype=torch.bfloat16), tokens=256),
    # Training with attention dropout: dropout is what a training call is expected to run.
    "llama_gqa_eager_train": lambda: training(llama("eager", 2, dropout=0.1)),
    # SDPA in training with dropout: PyTorch leaves the fused CPU kernel for the math backend.
    "llama_gqa_sdpa_train": lambda: training(llama("sdpa", 2, dropout=0.1)),
    # GPT-2's own eager attention and SDPA.
    "gpt2_eager": lambda: inference(gpt2("eager"), tokens=256),
    "gpt2_sdpa": lambda: inference(gpt2("sdpa"), tokens=256),
    "gemma2_eager": lambda: inference(gemma2(), tokens=256),
    # BERT with a padding mask: SDPA turns the boolean mask into a float one inside every call.
    "bert_eager_padded": lambda: padded(bert("eager")),
    "bert_sdpa_padded": lambda: padded(bert("sdpa")),
    # Training with activation checkpointing: each layer's forward, attention included, runs again in the
    # backward pass.
    "llama_gqa_sdpa_train_checkpointed": lambda: training(llama("sdpa", 2), checkpointed=True),
    "llama_gqa_eager_train_checkpointed": lambda: training(llama("eager", 2), checkpointed=True),
    # Generation: transformers' default cache grows by torch.cat at every token; a static cache is
    # preallocated and written in place.
    "llama_gqa_generate": lambda: generation(llama("sdpa", 2)),
    "llama_gqa_generate_static": lambda: generation(llama("sdpa", 2), cache="static"),
    # torch.compile: eager attention's softmax fused by Inductor between two GEMMs it leaves as they are;
    # SDPA kept as one fused op.
    "llama_gqa_eager_compiled": lambda: compiled(llama("eager", 2)),
    "llama_gqa_sdpa_compiled": lambda: compiled(llama("sdpa", 2)),
}


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or list(MODELS)
    os.makedirs(out, exist_ok=True)
    # torch.compile's caches in the output folder, never the user's.
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(os.path.abspath(out), "inductor-cache")
    os.environ["TRITON_CACHE_DIR"] = os.path.join(os.path.abspath(out), "triton-cache")
    torch.set_num_threads(2)
    for name in names:
        torch.manual_seed(0)
        step = MODELS[name]()
        step()  # warm-up, outside the profile
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
            for _ in range(2):
                step()
        prof.export_chrome_trace(os.path.join(out, name + ".json.tmp"))
        os.replace(os.path.join(out, name + ".json.tmp"), os.path.join(out, name + ".json"))
        print("made", name)


if __name__ == "__main__":
    main()
