// The one dealer of a job's parts to the Workers that compute it (a sweep's d_k tasks, a model
// report's layers, a learning-rate sweep's training runs). The parts wait in one queue, in the
// order given, and each Worker (a `slot`) gets the next part when it reports one done, so that a
// Worker that computes faster, or is less busy with the page's runs, simply takes more of them
// (list scheduling). A Worker may hold a few parts at once (`holds`), so that its next part is
// at hand when it finishes one: its answer and the next part both pass through the page's thread,
// which may be busy drawing.

/**
 * createDealer({ parts, slots, send(slot, part, index), holds?(part) }) → { done(index) → true
 * once every part is done, cancel(), get left }. `send` hands part `index` (its place in `parts`)
 * to Worker `slot` (0 ≤ slot < slots); `holds(part)` is how many parts a Worker may hold while
 * it is given this one (1 by default). The first parts go out at once, a part to each slot in
 * turn, then another to each slot that may hold more. done(index) frees the part's slot, which
 * takes the next parts; a part reported twice, or not given, is ignored. After cancel() no part
 * is sent.
 */
export function createDealer({ parts, slots, send, holds = () => 1 }) {
  const n = Math.max(1, slots);
  let next = 0;
  let left = parts.length;
  const owner = new Map(); // part index → slot
  const held = new Array(n).fill(0);
  /** Gives `slot` the next part if it may hold one more; → whether it did. */
  const give = (slot) => {
    if (next >= parts.length || held[slot] >= holds(parts[next])) return false;
    owner.set(next, slot);
    held[slot] += 1;
    send(slot, parts[next], next);
    next += 1;
    return true;
  };
  // A part each, then another each while a round gives any.
  for (let given = true; given;) {
    given = false;
    for (let slot = 0; slot < n; slot++) given = give(slot) || given;
  }
  return {
    done(index) {
      if (!owner.has(index)) return false;
      const slot = owner.get(index);
      owner.delete(index);
      held[slot] -= 1;
      left -= 1;
      while (give(slot));
      return left === 0;
    },
    /** No part is sent from now on (the parts held stay theirs until done). */
    cancel() {
      next = parts.length;
    },
    get left() {
      return left;
    },
  };
}
