// What a model multiplies q·k by, read from its Hugging Face config.json: the one place for the
// rules of the modelling code (transformers' modeling_*.py), shared by the model presets of
// chapter 8 (state/model-presets.js) and the report's config.json (panels/report/model-config.js).
// Pure, no DOM. A field of the wrong type is named in `problems` and left out; the rest still apply.
//
//   head dim   qk_nope_head_dim + qk_rope_head_dim (DeepSeek-V3), else head_dim, else
//              n_embd / n_head (GPT-2), else hidden_size / num_attention_heads (Llama)
//   multiplier query_pre_attn_scalar^−0.5 (Gemma 2), else head_dim^−0.5; ×1 if scale_attn_weights
//              is false (GPT-2); × mscale² with mscale = 0.1·mscale_all_dim·ln(factor) + 1 when
//              rope_scaling has mscale_all_dim (DeepSeek-V3's yarn_get_mscale)
//   soft-cap   attn_logit_softcapping (Gemma 2)
//   QK-norm    use_qk_norm (Llama 4), a Qwen3 or Gemma 3 model_type (RMS norm in the code), qk_layernorm
//   notes      Llama 4's attention temperature (attn_temperature_tuning, floor_scale, attn_scale)

/** The softcap field's range in the engine (c in [0, 1000]). */
const SOFTCAP_MAX = 1000;
/** model_type values whose attention RMS-normalises each head's q and k (no config field says so). */
const RMS_NORM_TYPES = new Set(['qwen3', 'qwen3_moe', 'gemma3', 'gemma3_text']);

/** DeepSeek-V3's yarn_get_mscale: 1 for a factor ≤ 1, else 0.1·m·ln(factor) + 1. */
export function yarnMscale(factor, m = 1) {
  return factor <= 1 ? 1 : 0.1 * m * Math.log(factor) + 1;
}

/** Llama 4's temperature on the query at position i of a NoPE layer: 1 + s·ln(⌊(i + 1)/floor⌋ + 1). */
export function llama4Temperature(position, floorScale, attnScale) {
  return 1 + attnScale * Math.log(Math.floor((position + 1) / floorScale) + 1);
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const shown = (v) => (typeof v === 'string' ? `the string "${v}"` : JSON.stringify(v));
const num = (x) => String(Number(x.toPrecision(6)));
/** A multiplier as 1/n where it is one (144^−0.5 = 1/12 ≈ 0.08333), else to 4 digits. */
export function exact(m) {
  const n = 1 / m;
  const four = Number(m.toPrecision(4));
  return Math.abs(n - Math.round(n)) < 1e-9 ? `1/${Math.round(n)} ≈ ${four}` : String(four);
}

/** A reader of `src` that checks each field's type and records what was used and what was wrong. */
function fieldReader(src, prefix, problems) {
  const has = (name) => Object.hasOwn(src, name) && src[name] !== null;
  const bad = (name, want) =>
    problems.push({ field: prefix + name, message: `${prefix}${name} is ${shown(src[name])}; ${want}` });
  return {
    has,
    /** A positive number (an integer if `integer`), or null when absent or wrong. */
    positive(name, { integer = false, max = Infinity } = {}) {
      if (!has(name)) return null;
      const v = src[name];
      const ok = typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= max;
      if (ok && (!integer || Number.isInteger(v))) return v;
      const range = max < Infinity ? ` in (0, ${max}]` : '';
      bad(name, `it must be a positive ${integer ? 'integer' : 'number'}${range}`);
      return null;
    },
    /** A boolean, or null when absent or wrong; `truthyNumber` also takes a number (Llama 4 writes 4). */
    flag(name, { truthyNumber = false } = {}) {
      if (!has(name)) return null;
      const v = src[name];
      if (typeof v === 'boolean') return v;
      if (truthyNumber && typeof v === 'number' && Number.isFinite(v)) return v !== 0;
      bad(name, 'it must be true or false');
      return null;
    },
    object(name) {
      if (!has(name)) return null;
      if (isObject(src[name])) return src[name];
      bad(name, 'it must be an object');
      return null;
    },
    string(name) {
      if (!has(name)) return null;
      if (typeof src[name] === 'string') return src[name];
      bad(name, 'it must be a string');
      return null;
    },
  };
}

/** The head dim d_k and the fields it came from. */
function headDim(f, p, used) {
  const nope = f.positive('qk_nope_head_dim', { integer: true });
  const rope = f.positive('qk_rope_head_dim', { integer: true });
  if (nope && rope) {
    used.push({
      field: `${p}qk_nope_head_dim + ${p}qk_rope_head_dim`,
      value: nope + rope,
      effect: `d_k = ${nope} + ${rope} = ${nope + rope}`,
    });
    return nope + rope;
  }
  const hd = f.positive('head_dim', { integer: true });
  if (hd) {
    used.push({ field: `${p}head_dim`, value: hd, effect: `d_k = ${hd}` });
    return hd;
  }
  for (const [width, heads] of [
    ['n_embd', 'n_head'],
    ['hidden_size', 'num_attention_heads'],
  ]) {
    const w = f.positive(width, { integer: true });
    const n = f.positive(heads, { integer: true });
    if (w && n && Number.isInteger(w / n)) {
      used.push({
        field: `${p}${width} / ${p}${heads}`,
        value: w / n,
        effect: `d_k = ${w} / ${n} = ${w / n}`,
      });
      return w / n;
    }
  }
  return null;
}

/** The multiplier on q·k and its formula, from the head dim and the scaling fields. */
function multiplierOf(f, p, dk, used, notes) {
  let multiplier = null;
  let formula = '';
  const qpas = f.positive('query_pre_attn_scalar');
  if (qpas) {
    multiplier = qpas ** -0.5;
    formula = `${num(qpas)}^−0.5`;
    used.push({
      field: `${p}query_pre_attn_scalar`,
      value: qpas,
      effect: `× ${formula} = ${exact(multiplier)}`,
    });
  } else if (dk) {
    multiplier = dk ** -0.5;
    formula = `${dk}^−0.5`;
  }
  if (f.flag('scale_attn_weights') === false) {
    multiplier = 1;
    formula = '1';
    used.push({ field: `${p}scale_attn_weights`, value: false, effect: '× 1 (no scaling)' });
  }
  if (f.flag('scale_attn_by_inverse_layer_idx'))
    notes.push(
      `${p}scale_attn_by_inverse_layer_idx is true: layer ℓ also divides by ℓ + 1 (not applied here).`,
    );
  const rs = f.object('rope_scaling') ?? f.object('rope_parameters');
  const ropeType = rs ? (rs.rope_type ?? rs.type ?? 'default') : 'default';
  const all = rs?.mscale_all_dim;
  const factor = rs?.factor;
  if (
    multiplier !== null &&
    rs &&
    ropeType !== 'default' &&
    typeof all === 'number' &&
    all !== 0 &&
    typeof factor === 'number'
  ) {
    const m = yarnMscale(factor, all);
    multiplier *= m * m;
    formula += ` · (0.1·${num(all)}·ln ${num(factor)} + 1)²`;
    used.push({
      field: `${p}rope_scaling.factor, ${p}rope_scaling.mscale_all_dim`,
      value: [factor, all],
      effect: `× mscale² = (0.1·${num(all)}·ln ${num(factor)} + 1)² = ${num(m * m)}`,
    });
  }
  return { multiplier, formula };
}

/** Llama 4's attention temperature on its NoPE layers, as a note. */
function temperatureNote(f, p, notes) {
  if (!f.flag('attn_temperature_tuning', { truthyNumber: true })) return;
  const floorScale = f.positive('floor_scale');
  const attnScale = f.positive('attn_scale');
  if (!floorScale || !attnScale) return;
  notes.push(
    `${p}attn_temperature_tuning: the queries of NoPE layers are multiplied by 1 + ${num(attnScale)}·ln(⌊(i + 1)/${num(floorScale)}⌋ + 1), ` +
      `which is 1 at every position i below ${num(floorScale - 1)}, so ×1 at the lengths measured here.`,
  );
}

/** The QK-norm the modelling code applies: 'rms', 'layer' or 'none'. */
function qkNormOf(f, p, modelType, used) {
  if (f.flag('use_qk_norm')) {
    used.push({
      field: `${p}use_qk_norm`,
      value: true,
      effect: 'RMS norm of each head’s q and k (no weight), on RoPE layers',
    });
    return 'rms';
  }
  if (f.flag('qk_layernorm')) {
    used.push({ field: `${p}qk_layernorm`, value: true, effect: 'layer norm of q and k' });
    return 'layer';
  }
  if (RMS_NORM_TYPES.has(modelType)) {
    used.push({
      field: `${p}model_type`,
      value: modelType,
      effect: 'RMS norm of each head’s q and k (in its modelling code)',
    });
    return 'rms';
  }
  return 'none';
}

/**
 * modelScaling(config) → { dk, multiplier, formula, softcap, qkNorm, used, notes, problems }. `config`
 * is a parsed config.json (a multimodal one's `text_config` is read). `multiplier` is null when no
 * field gives it; `used` lists [{ field, value, effect }]; `problems` [{ field, message }].
 */
export function modelScaling(config) {
  const used = [];
  const notes = [];
  const problems = [];
  if (!isObject(config)) {
    problems.push({
      field: '(top level)',
      message: `the top level is ${shown(config)}; it must be an object`,
    });
    return { dk: null, multiplier: null, formula: '', softcap: 0, qkNorm: 'none', used, notes, problems };
  }
  const top = fieldReader(config, '', problems);
  const text = top.object('text_config');
  const p = text ? 'text_config.' : '';
  const f = text ? fieldReader(text, p, problems) : top;
  const modelType = f.string('model_type') ?? (text ? top.string('model_type') : null);

  const dk = headDim(f, p, used);
  const { multiplier, formula } = multiplierOf(f, p, dk, used, notes);
  const cap = f.positive('attn_logit_softcapping', { max: SOFTCAP_MAX });
  if (cap)
    used.push({
      field: `${p}attn_logit_softcapping`,
      value: cap,
      effect: `soft-cap ${num(cap)}·tanh(z/${num(cap)})`,
    });
  const qkNorm = qkNormOf(f, p, modelType, used);
  temperatureNote(f, p, notes);
  return { dk, multiplier, formula, softcap: cap ?? 0, qkNorm, used, notes, problems };
}

/**
 * The page settings a model's scaling sets: its d_k, its multiplier (the named 1/√d_k where it is
 * exactly that), its soft-cap and QK-norm, and no length factor.
 */
export function scalingSettings({ dk, multiplier, softcap, qkNorm }) {
  const scale = multiplier === dk ** -0.5 ? 'sqrt' : multiplier;
  return { dk, scale, softcap, qkNorm, lengthScale: 0 };
}
