#!/usr/bin/python3
"""Writes tests/fixtures/sink/expected.json: the float64 numpy reference of analyze's sinkWeight for
the heads tests/js/engine/analyze.test.js builds (the same generator, written again here).

The tensors come from a linear congruential generator whose uniforms (s + 0.5) / 2^32 and values
2u - 1 are exact in float64, then rounded to float32: JS and numpy build the same bits. Query head 1
has component 0 at 4 in every row and key 0 is 5 e_0, so key 0 takes most of that head's weight.

Run with Debian's python3-numpy: /usr/bin/python3 tests/tools/make-sink-fixture.py
"""
import json
import pathlib

import numpy as np

OUT = pathlib.Path(__file__).resolve().parent.parent / 'fixtures' / 'sink' / 'expected.json'
T, DK, HEADS = 32, 16, 2


def uniforms(n, seed):
    s = seed
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        s = (s * 1664525 + 1013904223) % 2**32
        out[i] = 2 * ((s + 0.5) / 2**32) - 1
    return out.astype(np.float32)


def tensors():
    q = uniforms(HEADS * T * DK, 11).reshape(HEADS, T, DK)
    k = uniforms(T * DK, 12).reshape(T, DK)
    q[1, :, 0] = 4
    k[0, :] = 0
    k[0, 0] = 5
    return q, k


def sink_weight(q, k, causal):
    """Mean over the rows of softmax(q k^T / sqrt(DK)) (keys j <= i when causal) at key 0."""
    z = q.astype(np.float64) @ k.astype(np.float64).T * np.float64(np.float32(1 / np.sqrt(DK)))
    if causal:
        z = np.where(np.tril(np.ones((T, T), dtype=bool)), z, -np.inf)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return float(p[:, 0].mean())


def main():
    q, k = tensors()
    cases = [
        {'causal': causal, 'sinkWeight': [sink_weight(q[h], k, causal) for h in range(HEADS)]}
        for causal in (False, True)
    ]
    expected = {
        'seqLen': T,
        'dk': DK,
        'heads': HEADS,
        'kvHeads': 1,
        'scale': 'sqrt',
        # float64 sums, left to right, of the float32 tensors: the JS test checks it built the same
        'qSum': sum(float(x) for x in q.ravel()),
        'kSum': sum(float(x) for x in k.ravel()),
        'cases': cases,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(expected, indent=2) + '\n')


if __name__ == '__main__':
    main()
