// Chapter 8's model presets: what real models multiply q·k by. Pure data. Each holds the fields of
// the model's published config.json that its attention reads (copied as published; a multimodal
// config's `text_config` kept as its own object), and where its modelling code uses them (Hugging
// Face transformers, src/transformers/models/). state/model-scaling.js turns the fields into d_k,
// the multiplier, the soft-cap and the QK-norm, by the same rules as the report's config.json.

export const MODEL_PRESETS = Object.freeze([
  {
    id: 'gpt2',
    title: 'GPT-2 (small)',
    repo: 'openai-community/gpt2',
    config: { model_type: 'gpt2', n_embd: 768, n_head: 12 },
    code:
      'gpt2/modeling_gpt2.py, GPT2Attention._attn: attn_weights / value.size(-1) ** 0.5 when scale_attn_weights ' +
      '(GPT2Config’s default, true: the config.json does not set it); head_dim = n_embd // n_head',
  },
  {
    id: 'llama-3-8b',
    title: 'Llama 3 8B',
    repo: 'meta-llama/Meta-Llama-3-8B',
    config: { model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8 },
    code: 'llama/modeling_llama.py, LlamaAttention: head_dim = hidden_size // num_attention_heads, scaling head_dim**-0.5',
  },
  {
    id: 'gemma-2-9b',
    title: 'Gemma 2 9B',
    repo: 'google/gemma-2-9b',
    config: {
      model_type: 'gemma2',
      head_dim: 256,
      hidden_size: 3584,
      num_attention_heads: 16,
      query_pre_attn_scalar: 256,
      attn_logit_softcapping: 50.0,
    },
    code:
      'gemma2/modeling_gemma2.py, Gemma2Attention.__init__: scaling = query_pre_attn_scalar**-0.5; ' +
      'eager_attention_forward: w / softcap, tanh, × softcap',
  },
  {
    id: 'gemma-2-27b',
    title: 'Gemma 2 27B',
    repo: 'google/gemma-2-27b',
    config: {
      model_type: 'gemma2',
      head_dim: 128,
      hidden_size: 4608,
      num_attention_heads: 32,
      query_pre_attn_scalar: 144,
      attn_logit_softcapping: 50.0,
    },
    code:
      'gemma2/modeling_gemma2.py, Gemma2Attention.__init__: scaling = query_pre_attn_scalar**-0.5; ' +
      'eager_attention_forward: w / softcap, tanh, × softcap',
  },
  {
    id: 'qwen3-8b',
    title: 'Qwen3 8B',
    repo: 'Qwen/Qwen3-8B',
    config: { model_type: 'qwen3', head_dim: 128, hidden_size: 4096, num_attention_heads: 32 },
    code:
      'qwen3/modeling_qwen3.py, Qwen3Attention.__init__: scaling = head_dim**-0.5; q_norm, k_norm = ' +
      'Qwen3RMSNorm(head_dim), applied to each head’s q and k before RoPE',
  },
  {
    id: 'deepseek-v3',
    title: 'DeepSeek-V3',
    repo: 'deepseek-ai/DeepSeek-V3',
    config: {
      model_type: 'deepseek_v3',
      qk_nope_head_dim: 128,
      qk_rope_head_dim: 64,
      rope_scaling: {
        type: 'yarn',
        factor: 40,
        mscale: 1.0,
        mscale_all_dim: 1.0,
        original_max_position_embeddings: 4096,
      },
    },
    code:
      'deepseek_v3/modeling_deepseek_v3.py, DeepseekV3Attention.__init__: scaling = qk_head_dim ** (-0.5), ' +
      'then × yarn_get_mscale(factor, mscale_all_dim)² when rope_scaling has mscale_all_dim',
  },
  {
    id: 'llama-4-scout',
    title: 'Llama 4 Scout',
    repo: 'meta-llama/Llama-4-Scout-17B-16E',
    config: {
      model_type: 'llama4',
      text_config: {
        model_type: 'llama4_text',
        head_dim: 128,
        hidden_size: 5120,
        num_attention_heads: 40,
        use_qk_norm: true,
        attn_temperature_tuning: 4,
        floor_scale: 8192,
        attn_scale: 0.1,
      },
    },
    code:
      'llama4/modeling_llama4.py, Llama4TextAttention: scaling = head_dim**-0.5; Llama4TextL2Norm ' +
      '(x·rsqrt(mean x² + eps), no weight) on q and k of the RoPE layers; on the NoPE layers (every fourth) ' +
      'q × (log1p(floor((pos + 1) / floor_scale)) · attn_scale + 1)',
  },
]);
