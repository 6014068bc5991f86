# Run by hand, not by npm test (installing PyTorch takes too long): python3 tests/python/check_snippet.py
"""Runs the Python snippet of docs/your-model.md on a small plain-torch model and reads its files back.

The snippet is taken from the page itself (its first ```python block), so the check and the page
cannot differ. The model calls torch.nn.functional.scaled_dot_product_attention in three layers,
batch 2, 4 query heads, T = 16, d_k = 8, with a rotary embedding:
  layers.0: 4 key heads;
  layers.1: 2 key heads repeated to 4 before the call, as Hugging Face's repeat_kv does;
  layers.2: 2 key heads passed as they are, with enable_gqa=True.
PyTorch before 2.0 has no scaled_dot_product_attention; then the function gets a stand-in with the
same signature first. Each layer's q and k, as the model computed them, are saved as .npy arrays of
the whole batch, and read-back.mjs compares them with the snippet's files through readTensors and
pairHeads, bit for bit. Exits non-zero on a difference, and keeps the files then.
"""
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "your-model.md"
BATCH, HEADS, SEQ_LEN, DK, WIDTH = 2, 4, 16, 8, 32


def snippet_source():
    match = re.search(r"^```python\n(.*?)^```", PAGE.read_text(encoding="utf-8"), re.S | re.M)
    if not match:
        sys.exit(f"{PAGE}: no ```python block")
    return match.group(1)


def stand_in_sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    """softmax(q kᵀ · scale + mask) v, with PyTorch 2's signature (dropout is not modelled)."""
    assert dropout_p == 0.0
    if enable_gqa:
        groups = query.size(-3) // key.size(-3)
        key, value = key.repeat_interleave(groups, -3), value.repeat_interleave(groups, -3)
    logits = query @ key.transpose(-2, -1) * (1 / math.sqrt(query.size(-1)) if scale is None else scale)
    if is_causal:
        t, s = logits.shape[-2:]
        logits = logits.masked_fill(~torch.ones(t, s, dtype=torch.bool).tril(), float("-inf"))
    if attn_mask is not None:
        logits = logits.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == torch.bool else logits + attn_mask
    return torch.softmax(logits, -1) @ value


if not hasattr(F, "scaled_dot_product_attention"):
    F.scaled_dot_product_attention = stand_in_sdpa
# enable_gqa came with PyTorch 2.5; the stand-in has it.
GQA_NATIVE = F.scaled_dot_product_attention is stand_in_sdpa or tuple(
    int(x) for x in re.findall(r"\d+", torch.__version__)[:2]
) >= (2, 5)


def rope(x):
    """The rotary embedding of half-split pairs, as Llama applies it to q and k."""
    half = x.size(-1) // 2
    angle = torch.arange(x.size(-2), dtype=torch.float64)[:, None] / 10000 ** (
        torch.arange(half, dtype=torch.float64) / half
    )
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    a, b = x[..., :half], x[..., half:]
    return torch.cat((a * cos - b * sin, a * sin + b * cos), -1)


class Attention(torch.nn.Module):
    def __init__(self, kv_heads, mode):
        super().__init__()
        self.kv_heads, self.mode = kv_heads, mode
        self.q = torch.nn.Linear(WIDTH, HEADS * DK)
        self.k = torch.nn.Linear(WIDTH, kv_heads * DK)
        self.v = torch.nn.Linear(WIDTH, kv_heads * DK)
        self.o = torch.nn.Linear(HEADS * DK, WIDTH)

    def forward(self, x):
        def split(t, h):
            return t.view(BATCH, SEQ_LEN, h, DK).transpose(1, 2)

        q, k = rope(split(self.q(x), HEADS)), rope(split(self.k(x), self.kv_heads))
        v = split(self.v(x), self.kv_heads)
        extra = {}
        if self.mode == "repeat":  # Hugging Face's repeat_kv: expand, then reshape
            groups = HEADS // self.kv_heads
            k, v = (
                t[:, :, None].expand(BATCH, self.kv_heads, groups, SEQ_LEN, DK).reshape(BATCH, HEADS, SEQ_LEN, DK)
                for t in (k, v)
            )
        elif self.mode == "gqa":
            extra["enable_gqa"] = True
        self.seen = (q.detach().clone(), k.detach().clone())
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, **extra)
        return x + self.o(y.transpose(1, 2).reshape(BATCH, SEQ_LEN, HEADS * DK))


def main():
    namespace = {"__name__": "your_model_snippet"}
    exec(compile(snippet_source(), f"{PAGE} (first python block)", "exec"), namespace)
    capture_qk, save_qk = namespace["capture_qk"], namespace["save_qk"]

    torch.manual_seed(1)
    layers = [Attention(HEADS, "mha"), Attention(2, "repeat")] + ([Attention(2, "gqa")] if GQA_NATIVE else [])
    model = torch.nn.Sequential(*layers).eval()
    x = torch.randn(BATCH, SEQ_LEN, WIDTH)
    print(f"torch {torch.__version__}, numpy {np.__version__}, Python {sys.version.split()[0]}")
    if F.scaled_dot_product_attention is stand_in_sdpa:
        print("scaled_dot_product_attention: the stand-in (this PyTorch has none)")

    out = Path(tempfile.mkdtemp(prefix="attnscale-snippet-"))
    cases = []

    def case(name, dtype, calls, refs):
        path = out / f"{name}.safetensors"
        save_qk(calls, path)
        check_layout(path)
        ref_files = {}
        for i, (q, k) in enumerate(refs):
            ref_files[f"layers.{i}."] = {}
            for role, t in (("q", q), ("k", k)):
                ref = out / f"{name}-layers.{i}.{role}.npy"
                np.save(ref, t.to(torch.float32).numpy())  # exact: every dtype here widens to or rounds like f32
                ref_files[f"layers.{i}."][role] = str(ref)
        cases.append({"name": name, "file": str(path), "dtype": dtype, "refs": ref_files})

    for dtype, tag in ((torch.float32, "F32"), (torch.bfloat16, "BF16")):
        model.to(dtype)
        xs = x.to(dtype)
        with torch.no_grad():
            plain = model(xs)
            seen = [layer.seen for layer in layers]
            original = F.scaled_dot_product_attention
            with capture_qk() as calls:
                captured = model(xs)
            assert F.scaled_dot_product_attention is original, "the function was not put back"
        assert torch.equal(plain, captured), "the capture changed the model's output"
        assert len(calls) == len(layers), f"{len(calls)} calls for {len(layers)} layers"
        for q, k in seen:
            assert not torch.equal(q[0], q[1]), "batch elements 0 and 1 are the same: the check could not tell them apart"
        case(tag.lower(), tag, calls, seen)
        if dtype == torch.float32:
            f32_calls, f32_seen = calls, seen
    for dtype, tag in ((torch.float16, "F16"), (torch.float64, "F64")):
        case(
            tag.lower(),
            tag,
            [(q.to(dtype), k.to(dtype)) for q, k in f32_calls],
            [(q.to(dtype), k.to(dtype)) for q, k in f32_seen],
        )

    # The function comes back after an error inside the block too.
    original = F.scaled_dot_product_attention
    try:
        with capture_qk():
            raise RuntimeError("inside the block")
    except RuntimeError:
        pass
    assert F.scaled_dot_product_attention is original, "the function was not put back after an error"

    manifest = out / "manifest.json"
    manifest.write_text(json.dumps({"cases": cases}, indent=1))
    node = subprocess.run(["node", str(ROOT / "tests" / "python" / "read-back.mjs"), str(manifest)], cwd=ROOT)
    if node.returncode != 0:
        sys.exit(f"read-back.mjs failed (files in {out})")
    shutil.rmtree(out)
    print(f"ok: {len(cases)} files, {len(layers)} layers each, equal bit for bit")


def check_layout(path):
    """The safetensors layout: the header's length, a JSON header padded to 8 bytes, the data back to back."""
    raw = path.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    assert n % 8 == 0 and raw[8:9] == b"{", f"{path}: header length {n}"
    header = json.loads(raw[8 : 8 + n])
    ends = sorted(tuple(e["data_offsets"]) for e in header.values())
    assert ends[0][0] == 0 and all(a[1] == b[0] for a, b in zip(ends, ends[1:])), f"{path}: gaps in the data"
    assert ends[-1][1] == len(raw) - 8 - n, f"{path}: the data does not end the file"


if __name__ == "__main__":
    main()
