// A hand-written ONNX encoder for one graph: O = Softmax((Q · Transpose(K)) * scale) · V, float32,
// fixed shapes [T, d_k]. Only the few protobuf fields that graph needs (field numbers from onnx.proto3),
// so the benchmark depends on nothing but onnxruntime-web itself. Works in Node and in the browser.
//
// Nodes: Transpose(K) → MatMul(Q, Kᵀ) → Mul(·, scale) → Softmax(axis −1) → MatMul(·, V): the
// textbook MatMul → Mul → Softmax → MatMul chain; onnxruntime's optimizer may fuse it as it likes.

const utf8 = new TextEncoder();

function varint(n) {
  const out = [];
  let x = BigInt.asUintN(64, BigInt(n)); // negative int64 → two's complement, 10 bytes
  do {
    let byte = Number(x & 0x7fn);
    x >>= 7n;
    if (x > 0n) byte |= 0x80;
    out.push(byte);
  } while (x > 0n);
  return out;
}

// One protobuf field. Wire type 0 (varint) for integers, 2 (length-delimited) for everything else.
const intField = (field, n) => [...varint((field << 3) | 0), ...varint(n)];
function bytesField(field, bytes) {
  const body = typeof bytes === 'string' ? [...utf8.encode(bytes)] : [...bytes];
  return [...varint((field << 3) | 2), ...varint(body.length), ...body];
}

const FLOAT = 1; // TensorProto.DataType.FLOAT
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_INTS = 7;

// ValueInfoProto { name = 1, type = 2 { tensor_type = 1 { elem_type = 1, shape = 2 { dim = 1 { dim_value = 1 } } } } }
function tensorInfo(name, dims) {
  const shape = dims.flatMap((d) => bytesField(1, intField(1, d)));
  const tensorType = [...intField(1, FLOAT), ...bytesField(2, shape)];
  return [...bytesField(1, name), ...bytesField(2, bytesField(1, tensorType))];
}

// NodeProto { input = 1, output = 2, name = 3, op_type = 4, attribute = 5 }
function node(opType, inputs, outputs, attributes = []) {
  return [
    ...inputs.flatMap((s) => bytesField(1, s)),
    ...outputs.flatMap((s) => bytesField(2, s)),
    ...bytesField(3, `${opType}_${outputs[0]}`),
    ...bytesField(4, opType),
    ...attributes.flatMap((a) => bytesField(5, a)),
  ];
}

// AttributeProto { name = 1, i = 3, ints = 8, type = 20 }
const intAttribute = (name, i) => [...bytesField(1, name), ...intField(3, i), ...intField(20, ATTRIBUTE_INT)];
const intsAttribute = (name, xs) => [
  ...bytesField(1, name),
  ...xs.flatMap((x) => intField(8, x)),
  ...intField(20, ATTRIBUTE_INTS),
];

// TensorProto { dims = 1, data_type = 2, name = 8, raw_data = 9 } for a float32 scalar.
function scalarInitializer(name, value) {
  const raw = new Uint8Array(new Float32Array([value]).buffer);
  return [...intField(2, FLOAT), ...bytesField(8, name), ...bytesField(9, raw)];
}

/** The serialized ModelProto (opset 17) as a Uint8Array: inputs q, k, v of [T, dk], output o. */
export function attentionOnnxModel(T, dk, scale) {
  const graph = [
    ...bytesField(1, node('Transpose', ['k'], ['kt'], [intsAttribute('perm', [1, 0])])),
    ...bytesField(1, node('MatMul', ['q', 'kt'], ['logits'])),
    ...bytesField(1, node('Mul', ['logits', 'scale'], ['scaled'])),
    ...bytesField(1, node('Softmax', ['scaled'], ['weights'], [intAttribute('axis', -1)])),
    ...bytesField(1, node('MatMul', ['weights', 'v'], ['o'])),
    ...bytesField(2, 'attention'),
    ...bytesField(5, scalarInitializer('scale', scale)),
    ...['q', 'k', 'v'].flatMap((name) => bytesField(11, tensorInfo(name, [T, dk]))),
    ...bytesField(12, tensorInfo('o', [T, dk])),
  ];
  // ModelProto { ir_version = 1, producer_name = 2, graph = 7, opset_import = 8 { domain = 1, version = 2 } }
  const model = [
    ...intField(1, 8),
    ...bytesField(2, 'attnscale-bench'),
    ...bytesField(7, graph),
    ...bytesField(8, [...bytesField(1, ''), ...intField(2, 17)]),
  ];
  return new Uint8Array(model);
}
