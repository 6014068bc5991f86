// What the app does when the engine refuses or fails a request. A run's config the engine rejects
// is reset (the field it names, or everything); a request that needs more memory than the browser
// gives keeps the charts of the last setting that worked and says which setting failed; a failed
// background job keeps the curves it had drawn.
import { sameConfig } from '../state/state.js';
import { PANELS } from '../panels/index.js';

const MEMORY_WHY = 'needs more memory than this browser gives the engine';
const size = (c) => `T = ${c.seqLen}, d_k = ${c.dk}`;

/**
 * createErrorHandler({ schema, defaults, dks, showNotices, delivery, set, config(), lastGood() })
 * → onError(m), for the session's error messages. A panel's job's failure goes to its panel
 * (jobFailed(message)), named by the job's `title` (panels/index.js).
 */
export function createErrorHandler({ schema, defaults, dks, showNotices, delivery, set, config, lastGood }) {
  const { each } = delivery;
  const ownerOf = (kind) => Object.values(PANELS).find((p) => p.meta.job?.kind === kind)?.meta;
  /** A failed job's owner is told (the sweep's panels, or the panel whose job it is). */
  function tellPanels(kind, message) {
    if (kind === 'sweep') each('sweepFailed', message);
    const owner = ownerOf(kind);
    if (owner) delivery.one(owner.name, 'jobFailed', message);
  }
  function outOfMemory(m) {
    const current = config();
    if (m.kind === 'run' || m.kind === 'gradients') {
      const failed = m.cfg ?? current;
      const good = lastGood();
      const back =
        good && !sameConfig(good, failed, schema)
          ? good
          : { ...current, seqLen: defaults.seqLen, dk: defaults.dk };
      showNotices(
        [
          `The setting ${size(failed)} ${MEMORY_WHY}. The charts show ${size(back)}, the last setting that worked; ` +
            'a smaller T or d_k needs less.',
        ],
        'error',
      );
      set(back, { force: true, base: back });
      return;
    }
    const what =
      m.kind === 'sweep'
        ? `The d_k sweep at T = ${current.seqLen} (up to d_k = ${dks[dks.length - 1]})`
        : `${ownerOf(m.kind)?.job.title ?? `The ${m.kind} computation`} at ${size(current)}`;
    showNotices([`${what} ${MEMORY_WHY}. The charts keep what was computed before.`], 'error');
    tellPanels(
      m.kind,
      m.kind === 'sweep'
        ? `${what} ${MEMORY_WHY}; the curves drawn are the last that could be computed.`
        : `${what} ${MEMORY_WHY}.`,
    );
  }

  return function onError(m) {
    if (m.memory) {
      outOfMemory(m);
      return;
    }
    if (m.kind === 'gradients') {
      showNotices(
        [
          `The backward of this setting failed (${m.message}); the gradient panel shows the last setting whose backward worked.`,
        ],
        'error',
      );
      return;
    }
    if (m.kind !== 'run') {
      showNotices([`The ${m.kind} computation failed: ${m.message}`], 'error');
      tellPanels(
        m.kind,
        `${m.kind === 'sweep' ? 'The sweep' : (ownerOf(m.kind)?.job.title ?? 'It')} stopped: ${m.message}`,
      );
      return;
    }
    // The engine is the final judge of a config. Reset the field it names (or everything).
    const field = schema.find((f) => new RegExp(`\\b${f.name}\\b`).test(m.message));
    const reset = field ? { [field.name]: defaults[field.name] } : defaults;
    showNotices([
      `The engine rejected the setting (${m.message}); ${field ? `${field.name} reset to ${defaults[field.name]}` : 'all settings reset to their defaults'}.`,
    ]);
    set(reset, { force: true });
  };
}
