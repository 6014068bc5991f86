// A stand-in for a compute Worker in the engine client's tests: it records what the client posts
// (`sent`) and delivers what a test answers (`answer(data)`) to the client's message listeners.
export function fakeWorker(name = 'worker') {
  const listeners = [];
  return {
    name,
    sent: [],
    postMessage(m) {
      this.sent.push(m);
    },
    addEventListener(type, fn) {
      if (type === 'message') listeners.push(fn);
    },
    answer(data) {
      for (const fn of listeners) fn({ data });
    },
  };
}
