// Reads check_snippet.py's files with attnscale/tensors and compares them with the model's own q and
// k (.npy arrays of the whole batch): dtypes, heads, key heads, T, d_k and every value, bit for bit.
// Run by check_snippet.py, not by npm test: node tests/python/read-back.mjs MANIFEST.json
import { readFileSync } from 'node:fs';
import { pairHeads, readTensorFile, readTensors } from '../../web/src/tensors/index.js';

const manifest = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const problems = [];
const bits = (a) => new Uint32Array(a.buffer, a.byteOffset, a.length);

function sameValues(what, got, want) {
  if (got.length !== want.length)
    return problems.push(`${what}: ${got.length} values, the model has ${want.length}`);
  const g = bits(got),
    w = bits(want);
  const i = g.findIndex((v, j) => v !== w[j]);
  if (i >= 0) problems.push(`${what}: value ${i} is ${got[i]}, the model has ${want[i]}`);
}

for (const { name, file, dtype, refs } of manifest.cases) {
  const { format, tensors } = readTensorFile(readFileSync(file));
  if (format !== 'safetensors') problems.push(`${name}: read as ${format}`);
  for (const [tensor, t] of Object.entries(tensors)) {
    if (t.dtype !== dtype) problems.push(`${name} ${tensor}: dtype ${t.dtype}, expected ${dtype}`);
    if (t.shape.length !== 3) problems.push(`${name} ${tensor}: shape (${t.shape}), expected (H, T, d)`);
  }
  const layers = pairHeads(tensors);
  const prefixes = Object.keys(refs);
  if (layers.map((l) => l.layer).join() !== prefixes.join())
    problems.push(`${name}: layers ${layers.map((l) => l.layer)}, the model has ${prefixes}`);
  for (const layer of layers) {
    const paths = refs[layer.layer];
    if (!paths) continue;
    // The model's whole batch, (B, H, T, d): pairHeads takes element 0, as the report does.
    const [want] = pairHeads({
      q: readTensors(readFileSync(paths.q), { name: 'q' }).q,
      k: readTensors(readFileSync(paths.k), { name: 'k' }).k,
    });
    for (const field of ['heads', 'kvHeads', 'seqLen', 'dk'])
      if (layer[field] !== want[field])
        problems.push(`${name} ${layer.layer}: ${field} ${layer[field]}, the model has ${want[field]}`);
    if (layer.notes.length) problems.push(`${name} ${layer.layer}: notes ${layer.notes}`);
    sameValues(`${name} ${layer.layer}q`, layer.q, want.q);
    sameValues(`${name} ${layer.layer}k`, layer.k, want.k);
    console.log(
      `${name} ${layer.layer}: ${layer.heads} heads, ${layer.kvHeads} key heads, T ${layer.seqLen}, ` +
        `d_k ${layer.dk}, ${layer.q.length} q and ${layer.k.length} k values compared`,
    );
  }
}

if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
