// The logit-scheme fields (qkNorm, lengthScale, softcap) through the JS API: the native GoogleTest's golden
// values (LogitSchemes.GoldenValuesSharedWithWasm) in both wasm builds, sweeps equal to run bit for
// bit, sweepSeqLen, attention() and the errors. Tolerance: none unless stated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bothEngines } from '../helpers.js';

const GOLDEN = [
  [
    { dk: 64, seqLen: 48, scale: 'sqrt', qkNorm: 'rms', mean: 1, std: 2 },
    [7.513377381607186, 0.93917217270089826, 3.5206734339396157, 0.075643913686936556, 0.081695838624787145],
  ],
  [
    {
      dk: 96,
      seqLen: 40,
      scale: 'none',
      qkNorm: 'layer',
      softcap: 50,
      lengthScale: 0.43,
      causal: true,
      mean: 0.5,
      correlation: 0.5,
    },
    [
      14.337421025653807, 15.413946224865974, 0.0010784021284487848, 0.0056527852699519519,
      0.0059779992856267596,
    ],
  ],
  [
    { dk: 32, seqLen: 64, scale: 'none', softcap: 5, precision: 'fp16' },
    [5.7900084727806727, 3.3415709151052613, 3.0233455821871758, 0.2987140018526786, 0.29000797945567985],
  ],
  [
    {
      dk: 16,
      seqLen: 33,
      scale: 'linear',
      qkNorm: 'rms',
      softcap: 2,
      lengthScale: 0.43,
      causal: true,
      precision: 'bf16',
    },
    [4.0743323041412687, 0.32379869648781284, 2.5392157868905501, 0.070803430243943699, 0.06310724325945781],
  ],
];
const GOLDEN_FIELDS = ['normLogitStd', 'logitStd', 'entropy', 'gradNormQ', 'gradNormK'];

// Like every field of `run`, these are not bit-identical across builds: the fp32 products sum
// their terms in lanes of the build's vector width (8 natively, 4 in wasm SIMD, 1 in scalar), so
// the last bits of each logit differ. 1e-6 relative covers that (seen: ≤ 2e-8) and still catches a
// missing factor or a wrong derivative, which move these values by percents.
test("logit schemes: the native build's golden values, in SIMD and scalar wasm", async () => {
  const { simd, scalar } = await bothEngines();
  for (const engine of [simd, scalar]) {
    for (const [cfg, want] of GOLDEN) {
      const r = engine.run(cfg);
      GOLDEN_FIELDS.forEach((f, i) =>
        assert.ok(
          Math.abs(r[f] - want[i]) <= 1e-6 * Math.abs(want[i]),
          `${engine.info.arch} ${JSON.stringify(cfg)} ${f}: ${r[f]} vs ${want[i]}`,
        ),
      );
      assert.equal(r.config.qkNorm, cfg.qkNorm ?? 'none');
      assert.equal(r.config.softcap, cfg.softcap ?? 0);
      assert.equal(r.config.lengthScale, cfg.lengthScale ?? 0);
    }
  }
});

test('logit schemes: sweepScales points equal run at that d_k, bit for bit', async () => {
  const { simd } = await bothEngines();
  const cfg = { seqLen: 32, qkNorm: 'layer', softcap: 5, lengthScale: 0.43, mean: 1, causal: true };
  const dks = [2, 16, 64, 8];
  const all = simd.sweepScales(cfg, dks, ['none', 'sqrt']);
  for (const scale of ['none', 'sqrt']) {
    dks.forEach((dk, i) => {
      const r = simd.run({ ...cfg, scale, dk });
      for (const f of [
        'normLogitStd',
        'logitStd',
        'logitMax',
        'entropy',
        'maxWeight',
        'jacobianNormMedian',
        'gradNormQ',
        'gradNormK',
      ]) {
        assert.ok(Object.is(all[scale][f][i], r[f]), `${scale} dk=${dk} ${f}`);
      }
    });
  }
  // Soft-capped logits stay inside (−c, c); q̂·k̂ under layer norm has σ ≈ √d_k.
  assert.ok(all.none.logitMax.every((m) => m <= 5));
  assert.ok(Math.abs(all.none.normLogitStd[2] / 8 - 1) < 0.15);
});

test('sweepSeqLen: each point equals run at that T; entropy grows like ln T without the length scale', async () => {
  const { simd, scalar } = await bothEngines();
  const seqLens = [8, 32, 128, 512];
  for (const engine of [simd, scalar]) {
    const plain = engine.sweepSeqLen({ dk: 32, blockSize: 64 }, seqLens);
    assert.deepEqual([...plain.seqLen], seqLens);
    seqLens.forEach((T, i) => {
      const r = engine.run({ dk: 32, seqLen: T, blockSize: Math.min(64, T) });
      for (const f of ['logitStd', 'entropy', 'maxWeight', 'gradNormQ'])
        assert.ok(Object.is(plain[f][i], r[f]), `T=${T} ${f}`);
    });
    // 1/√d_k: the entropy's gap to ln T stays about constant, so the entropy climbs with ln T and the
    // largest weight falls; with s·ln T (s = 0.43) the largest weight holds up (measured, not tuned).
    const scaled = engine.sweepSeqLen({ dk: 32, lengthScale: 0.43 }, seqLens);
    assert.ok(plain.entropy[3] - plain.entropy[0] > 0.8 * (Math.log(512) - Math.log(8)));
    assert.ok(plain.maxWeight[3] < plain.maxWeight[0] / 4);
    assert.ok(scaled.maxWeight[3] > 2 * plain.maxWeight[3]);
  }
});

test('attention(): QK-norm, length scale and soft-cap against a plain JS computation', async () => {
  const { simd } = await bothEngines();
  const T = 5,
    d = 4;
  const rnd = (i) => Math.sin(1 + i * 12.9898) * 2;
  const q = Float32Array.from({ length: T * d }, (_, i) => rnd(i));
  const k = Float32Array.from({ length: T * d }, (_, i) => rnd(i + 100));
  const v = Float32Array.from({ length: T * d }, (_, i) => rnd(i + 200));
  const norm = (x) => {
    const out = [];
    for (let t = 0; t < T; t++) {
      const row = [...x.slice(t * d, t * d + d)];
      const mean = row.reduce((a, b) => a + b) / d;
      const varr = row.reduce((a, b) => a + (b - mean) ** 2, 0) / d;
      out.push(row.map((e) => (e - mean) / Math.sqrt(varr + 1e-6)));
    }
    return out;
  };
  const qn = norm(q),
    kn = norm(k);
  const got = simd.attention(q, k, v, {
    seqLen: T,
    dk: d,
    scale: 'sqrt',
    qkNorm: 'layer',
    softcap: 2,
    lengthScale: 0.43,
    causal: true,
  });
  for (let i = 0; i < T; i++) {
    const n = i + 1;
    const z = Array.from({ length: n }, (_, j) => {
      const u = (qn[i].reduce((a, e, c) => a + e * kn[j][c], 0) / Math.sqrt(d)) * 0.43 * Math.log(n);
      return 2 * Math.tanh(u / 2);
    });
    const m = Math.max(...z);
    const e = z.map((x) => Math.exp(x - m));
    const sum = e.reduce((a, b) => a + b);
    for (let c = 0; c < d; c++) {
      const want = e.reduce((a, w, j) => a + (w / sum) * v[j * d + c], 0);
      // fp32 against double over ≤ 5 keys of O(1) values: 1e-5 absolute.
      assert.ok(Math.abs(got[i * d + c] - want) < 1e-5, `O[${i}][${c}] ${got[i * d + c]} vs ${want}`);
    }
  }
});

test('logit schemes: bad values name the field and range; the engine stays usable', async () => {
  const { simd } = await bothEngines();
  assert.throws(() => simd.run({ qkNorm: 'batch' }), {
    name: 'RangeError',
    message: /qkNorm must be one of 'none', 'rms', 'layer', got "batch"/,
  });
  assert.throws(() => simd.run({ softcap: -1 }), {
    name: 'RangeError',
    message: /softcap must be a finite number in \[0, 1000\]/,
  });
  assert.throws(() => simd.run({ lengthScale: '0.4' }), {
    name: 'TypeError',
    message: /lengthScale must be a finite number in \[0, 4\]/,
  });
  assert.throws(() => simd.sweepSeqLen({}, [1, 8]), {
    name: 'RangeError',
    message:
      /seqLens must be a non-empty array \(at most 64 entries\) of integers in \[2, 2048\], got 1 at index 0/,
  });
  assert.throws(() => simd.sweepSeqLen({}, 'long'), { name: 'TypeError', message: /seqLens must be/ });
  assert.throws(() => simd.sweepSeqLen({ qkNorm: 'x' }, [8]), { name: 'RangeError', message: /qkNorm/ });
  assert.throws(
    () =>
      simd.attention(new Float32Array(4), new Float32Array(4), new Float32Array(4), {
        seqLen: 2,
        dk: 2,
        softcap: 'big',
      }),
    { name: 'TypeError', message: /softcap/ },
  );
  assert.equal(simd.run({ dk: 8, seqLen: 8 }).config.qkNorm, 'none');
  assert.deepEqual(
    simd.schema.slice(-3).map((f) => [f.name, f.default]),
    [
      ['qkNorm', 'none'],
      ['lengthScale', 0],
      ['softcap', 0],
    ],
  );
});
