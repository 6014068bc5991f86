// A model's config.json among the report's files: what it says the attention multiplies q·k by,
// and its soft-cap, by the rules of state/model-scaling.js (the same as chapter 8's model
// presets). The q and k are taken as captured at the attention call, so a QK-norm or RoPE's own
// factors are already in them: only the multiplier and the soft-cap are applied. A file that is
// not JSON, or a field of the wrong type, is named, and the report goes on with 1/√d_k.
import { exact, modelScaling } from '../../state/model-scaling.js';

/** Whether a chosen file is a model's config (by its name: `config.json`, `my-model.json`). */
export const isConfigFile = (name) => /\.json$/i.test(name);

const valueText = (v) => (Array.isArray(v) ? v.join(', ') : String(v));

/**
 * modelConfigOf(config, name) → { name, multiplier, softcap, dk, lines, problems }: `multiplier` is
 * null when no field gives it (the report then uses 1/√d_k); `softcap` null when no field sets
 * it; `lines` say which fields were used and how, `problems` what was wrong (each naming the file).
 */
export function modelConfigOf(config, name) {
  const s = modelScaling(config);
  const lines = s.used
    .filter((u) => !/model_type|qk_norm|qk_layernorm/.test(u.field))
    .map((u) => `${u.field} = ${valueText(u.value)} → ${u.effect}`);
  if (s.qkNorm !== 'none')
    lines.push(
      `the model normalises q and k (QK-norm ${s.qkNorm}); q and k captured at the attention call already are, so it is not applied again`,
    );
  const usesMultiplier = s.used.some((u) =>
    /head_dim|query_pre_attn|n_embd|hidden_size|scale_attn|rope_scaling/.test(u.field),
  );
  return {
    name,
    multiplier: usesMultiplier ? s.multiplier : null,
    multiplierText: s.multiplier ? `${s.formula} = ${exact(s.multiplier)}` : '',
    softcap: s.used.some((u) => /attn_logit_softcapping/.test(u.field)) ? s.softcap : null,
    dk: s.dk,
    lines: [...lines, ...s.notes],
    problems: s.problems.map((p) => `${name}: ${p.message}.`),
  };
}

/** readModelConfig({ blob, name }) → Promise<modelConfigOf's object>; a file that is not JSON is a problem. */
export async function readModelConfig({ blob, name }) {
  let config;
  try {
    config = JSON.parse(await blob.text());
  } catch (err) {
    return {
      name,
      multiplier: null,
      multiplierText: '',
      softcap: null,
      dk: null,
      lines: [],
      problems: [`${name} is not JSON (${err.message}).`],
    };
  }
  return modelConfigOf(config, name);
}

/**
 * What the report says of the config: the fields used and the multiplier and soft-cap every head is
 * measured with, or why it falls back to 1/√d_k. `dks` are the files' head dims.
 */
export function configSentence(cfg, dks) {
  if (!cfg) return '';
  const parts = [...cfg.problems];
  if (cfg.lines.length) parts.push(`${cfg.name}: ${cfg.lines.join('; ')}.`);
  if (cfg.multiplier === null)
    parts.push(`No field of ${cfg.name} gives the multiplier: every head is measured with 1/√d_k.`);
  else {
    const cap = cfg.softcap ? ` and soft-cap ${cfg.softcap}` : '';
    parts.push(`Every head is measured with × ${cfg.multiplierText}${cap}, as the model computes.`);
    const other = [...new Set(dks)].filter((d) => cfg.dk && d !== cfg.dk);
    if (other.length)
      parts.push(
        `The files’ d_k (${other.join(', ')}) is not the config’s head dim ${cfg.dk}: is it this model’s config?`,
      );
  }
  return parts.join(' ');
}
