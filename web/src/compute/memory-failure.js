// Recognises a failure to get memory for the engine, so that the page can say "this setting needs
// more memory than this browser gives" instead of showing a raw error. The forms it takes:
//   - WebAssembly.Memory.grow refused (the browser's or the device's limit): Emscripten's
//     allocator then gets no memory, and `new` aborts the module: a WebAssembly.RuntimeError
//     "Aborted(…)" / "abort(…)" (its text names OOM or "Cannot enlarge memory" in some builds);
//   - a JS allocation of a result array failing: RangeError "Array buffer allocation failed",
//     "Invalid typed array length", "… out of memory".
const MEMORY_TEXT =
  /out of memory|\bOOM\b|Cannot enlarge memory|Array buffer allocation failed|Invalid typed array length|Maximum memory size|memory access out of bounds|bad_alloc/i;

/** True when `err` says that memory could not be had. */
export function isMemoryFailure(err) {
  const message = String(err?.message ?? err ?? '');
  if (MEMORY_TEXT.test(message)) return true;
  // An abort of the module: with assertions off it carries no reason; in this engine every input
  // is validated before any work starts, so the only way to reach an abort is a failed allocation.
  return isModuleAbort(err);
}

/** True when the wasm module itself stopped (it cannot be trusted afterwards: start a new one). */
export function isModuleAbort(err) {
  const message = String(err?.message ?? err ?? '');
  return err?.name === 'RuntimeError' || /^(Aborted|abort)\(/.test(message);
}
