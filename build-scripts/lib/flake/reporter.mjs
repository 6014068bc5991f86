// A node:test reporter for build-scripts/flake-hunt.sh: one JSON line per failing test (its file,
// its name and the first line of its error), nothing for the describe blocks that fail only
// because a test inside them failed. Written next to the usual spec output (--test-reporter twice).
export default async function* flakeReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const error = event.data.details?.error;
    if (error?.failureType === 'subtestsFailed') continue;
    const cause = error?.cause ?? error;
    // assert's messages open with a line such as "Expected values to be strictly equal:": keep the
    // line after it too, which names the values.
    const lines = String(cause?.message ?? cause ?? 'failed')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const message = lines[0].endsWith(':') && lines[1] ? `${lines[0]} ${lines[1]}` : lines[0];
    // The suites' test() wrapper is where node:test says a test was declared: the test file is the
    // first *.test.js frame of the error's stack, when it has one.
    const fromStack = /(?:file:\/\/)?(\/[^\s:()]+\.test\.js)/.exec(String(cause?.stack ?? ''))?.[1];
    const file = fromStack ?? event.data.file ?? '';
    yield `${JSON.stringify({ file, name: event.data.name, error: message })}\n`;
  }
}
