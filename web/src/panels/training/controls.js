// The training panel's controls: the transport (Play, Step, Reset, the step counter and speed),
// the measured comparisons to repeat, the trainer's own settings and the copies to train (both from
// the engine's training schema), and the lines that say how the page's values were fitted.
import { h } from '../../ui/dom.js';
import { STEP_BUTTON_STEPS, REACH_ACCURACY, copiesField, copiesOf, copyLabel } from './train-state.js';
import { FINDINGS_PRESETS, TRAIN_PRESETS } from '../../state/study-presets.js';

const SETTING_UI = [
  {
    name: 'optimizer',
    label: 'Optimizer',
    kind: 'select',
    options: { adam: 'Adam', sgd: 'SGD (plain)' },
    hint: 'Adam rescales each weight’s step; plain SGD steps along the raw gradient, so gradient size matters directly.',
  },
  {
    name: 'learningRate',
    label: 'Learning rate',
    kind: 'number',
    hint: 'Adam’s usual 0.001 is the default. Plain SGD needs a far larger rate on this task (about 1).',
  },
  {
    name: 'initScale',
    label: 'Init scale σ',
    kind: 'number',
    hint: 'The std of every embedding component, so every q and k component starts with std σ. σ = 1 is the unit-variance assumption that 1/√d_k is built on; without scaling, the logits start with std σ²·√d_k.',
  },
  {
    name: 'batchSize',
    label: 'Batch size',
    kind: 'number',
    step: 1,
    hint: 'Sequences per step (each has T queries).',
  },
  {
    name: 'seed',
    label: 'Seed',
    kind: 'number',
    step: 1,
    hint: 'Picks the starting weights, the batches and the example drawn below.',
  },
  {
    name: 'stopAt',
    label: 'Pause at step',
    kind: 'number',
    step: 1,
    min: 0,
    hint: 'Play pauses when the counter reaches this step (0: run until paused).',
  },
];

/** The line under the settings: what the trainer takes from the page's settings. */
export function fromPageText(c, trainSchema) {
  const copies = copiesOf(c, trainSchema).map((x) => copyLabel(x, c.scale, trainSchema));
  return (
    `From the page’s settings: d_k ${c.dk}, T ${c.seqLen}, precision ${c.precision}; copies: ${copies.join(', ')}` +
    `${typeof c.scale === 'number' ? ' (the last: the page’s custom multiplier)' : ' (a custom scaling on the page adds one more)'}.`
  );
}

function transportOf(idp, on) {
  const playBtn = h('button', {
    type: 'button',
    class: 'btn train-play',
    'data-action': 'play',
    'aria-describedby': `${idp}status`,
    text: 'Play',
    onclick: on.playOrPause,
  });
  const stepBtn = h('button', {
    type: 'button',
    class: 'btn',
    'data-action': 'step',
    text: `Step +${STEP_BUTTON_STEPS}`,
    'aria-label': `Step +${STEP_BUTTON_STEPS}: run ${STEP_BUTTON_STEPS} more steps`,
    onclick: on.step,
  });
  const resetBtn = h('button', {
    type: 'button',
    class: 'btn',
    'data-action': 'reset',
    text: 'Reset',
    'aria-label': 'Reset: back to the starting weights, step 0',
    onclick: on.reset,
  });
  const downloadBtn =
    on.downloadQk &&
    h('button', {
      type: 'button',
      class: 'btn small',
      'data-download-qk': '',
      text: 'Download q, k (.safetensors)',
      title: 'The queries and keys of every copy at this step, one (T, d_k) pair each',
      onclick: on.downloadQk,
    });
  const stepOut = h('output', { 'data-stat': 'train.step', text: '0' });
  const speedOut = h('output', { 'data-stat': 'train.speed', text: '—' });
  const el = h(
    'div',
    { class: 'train-transport', role: 'group', 'aria-label': 'Training' },
    playBtn,
    stepBtn,
    resetBtn,
    h('span', { class: 'train-counter' }, 'step ', stepOut),
    h(
      'span',
      { class: 'train-speed', title: 'Steps of all copies per second, wall clock, while playing' },
      speedOut,
      ' steps/s',
    ),
    downloadBtn,
  );
  return { el, playBtn, stepBtn, stepOut, speedOut };
}

function presetsOf(onPreset) {
  const note = h('p', { class: 'train-preset-note' });
  const buttons = (list) =>
    h(
      'div',
      { class: 'train-preset-list' },
      list.map((p) =>
        h('button', {
          type: 'button',
          class: 'btn small',
          'data-train-preset': p.id,
          text: p.title,
          onclick: () => onPreset(p),
        }),
      ),
    );
  const el = h(
    'div',
    { class: 'train-presets' },
    h('p', {
      class: 'train-presets-title',
      text: 'Repeat a measured comparison (T 32, batch 16, fp32, seed 1, 500 steps):',
    }),
    buttons(TRAIN_PRESETS),
    h('p', {
      class: 'train-presets-title',
      text: 'The newer schemes (QK-norm, soft-caps, s·ln T), same settings:',
    }),
    buttons(FINDINGS_PRESETS),
    note,
  );
  return { el, note };
}

/**
 * The copies picker: one labelled checkbox per copy the training schema offers (`build(choices)`,
 * in its order), its colour beside it.
 */
function copiesPickerOf(idp, onChange) {
  const boxes = new Map();
  const hintId = `${idp}copies-hint`;
  const list = h('div', { class: 'copy-list' });
  const build = (choices) =>
    list.replaceChildren(
      ...choices.map((c) => {
        const id = `${idp}copy-${c.name}`;
        const input = h('input', {
          type: 'checkbox',
          id,
          value: c.name,
          'data-train-copy': c.name,
          'aria-describedby': hintId,
        });
        input.addEventListener('change', () => onChange(c.name));
        boxes.set(c.name, input);
        const sw = h('span', { class: 'swatch solid', 'aria-hidden': 'true' });
        sw.style.setProperty('--swatch', `var(--c-${c.name})`);
        return h('label', { for: id, class: 'copy-choice' }, input, sw, h('span', { text: c.label }));
      }),
    );
  const el = h(
    'fieldset',
    { class: 'control-group copy-picker' },
    h('legend', { text: 'Copies to train' }),
    list,
    h('p', {
      class: 'hint',
      id: hintId,
      text:
        'All copies start from the same weights and see the same batches; they differ only in how they form their logits. ' +
        'QK-norm normalizes each query and key row (with a learned gain) before 1/√d_k; a soft-cap c turns a logit z into c·tanh(z/c); ' +
        '0.43 ln T multiplies the 1/√d_k logits by 0.43·ln T (Scalable-Softmax). Changing the copies starts the run again.',
    }),
  );
  return { el, boxes, build };
}

/**
 * createTrainingControls(body, idp, on) appends the controls to `body`. `on`: { playOrPause(),
 * step(), reset(), downloadQk() (null: no download button), preset(p), copies(name),
 * setting(name, value) }.
 */
export function createTrainingControls(body, idp, on) {
  const transport = transportOf(idp, on);
  const status = h('p', { class: 'train-status', id: `${idp}status`, role: 'status', 'aria-live': 'polite' });
  const presets = presetsOf(on.preset);
  const fieldsBox = h('div', { class: 'train-fields' });
  const settingsBox = h(
    'fieldset',
    { class: 'control-group train-settings' },
    h('legend', { text: 'Training settings' }),
    fieldsBox,
  );
  const copies = copiesPickerOf(idp, on.copies);
  const fromPage = h('p', { class: 'train-from-page' });
  const adjustBox = h('div', { class: 'train-adjust', role: 'status' }); // the page's values fitted to the trainer
  const notesBox = h('div', { class: 'train-notes', role: 'status' }); // a typed value the panel could not use
  body.append(
    h(
      'div',
      { class: 'train-controls' },
      transport.el,
      status,
      presets.el,
      settingsBox,
      copies.el,
      fromPage,
      adjustBox,
      notesBox,
    ),
  );

  const inputs = new Map();
  /** One control per trainer setting, with the training schema's range, and the copies it offers. */
  function buildSettings(schema) {
    copies.build(copiesField(schema).choices);
    for (const ui of SETTING_UI) {
      const f = schema.find((x) => x.name === ui.name) ?? { name: ui.name, min: ui.min };
      const id = `${idp}${ui.name}`;
      const hintId = `${id}-hint`;
      let input;
      if (ui.kind === 'select') {
        input = h(
          'select',
          { id, 'aria-describedby': hintId },
          (f.values ?? Object.keys(ui.options)).map((v) =>
            h('option', { value: v, text: ui.options[v] ?? v }),
          ),
        );
      } else {
        input = h('input', {
          type: 'number',
          id,
          'aria-describedby': hintId,
          step: ui.step ?? 'any',
          inputmode: ui.step ? 'numeric' : 'decimal',
          min: f.min ?? ui.min,
          max: f.max,
        });
      }
      input.addEventListener('change', () => on.setting(ui.name, input.value));
      inputs.set(ui.name, input);
      fieldsBox.append(
        h(
          'div',
          { class: 'control', 'data-train-field': ui.name },
          h('label', { for: id, text: ui.label }),
          input,
          h('p', { class: 'hint', id: hintId, text: ui.hint }),
        ),
      );
    }
  }

  // Both boxes are live regions: they are rebuilt only when their text changes (a d_k drag would
  // otherwise repeat the same sentence to a screen reader at every step).
  let shownNotes = '';
  /** adjusted: how the page's values were fitted; typed: what a typed value became; fitT: a button to set the page's T. */
  function showNotes(adjusted, typed, fitT) {
    const key = JSON.stringify([adjusted, typed]);
    if (key === shownNotes) return;
    shownNotes = key;
    adjustBox.replaceChildren(...adjusted.map((l) => h('p', { text: l })));
    if (fitT)
      adjustBox.append(
        h('button', { type: 'button', class: 'btn small', text: 'Set the page’s T to 32', onclick: fitT }),
      );
    notesBox.replaceChildren();
    if (!typed.length) return;
    notesBox.append(
      h(
        'div',
        { class: 'notice warning' },
        h('p', { class: 'notice-title', text: 'Some values were adjusted' }),
        h(
          'ul',
          {},
          typed.map((l) => h('li', { text: l })),
        ),
      ),
    );
  }

  return {
    ...transport,
    buildSettings,
    showNotes,
    /** Writes the settings into the controls. */
    showSettings(settings) {
      for (const [name, input] of inputs) input.value = String(settings[name]);
      for (const [name, box] of copies.boxes) box.checked = settings.copies.includes(name);
    },
    /** The copies ticked, in the training schema's order. */
    chosenCopies: () => [...copies.boxes].filter(([, box]) => box.checked).map(([name]) => name),
    keepCopy(name) {
      copies.boxes.get(name).checked = true;
    },
    setStatus(text) {
      status.textContent = text;
    },
    /** What a preset repeats: the native run's steps to reach REACH_ACCURACY. */
    showPresetNote(p) {
      presets.note.textContent = `${p.title}${p.title.endsWith('?') ? '' : ':'} the native run of the same settings reached ${100 * REACH_ACCURACY}% at steps ${p.measured}. This run repeats it.`;
    },
    setFromPage(text) {
      fromPage.textContent = text;
    },
  };
}
