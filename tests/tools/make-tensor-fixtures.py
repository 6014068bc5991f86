#!/usr/bin/python3
"""Writes the tensor-file fixtures of tests/js/tensors/tensors.test.js into tests/fixtures/tensors/.

.npy files come from numpy itself (format versions 1.0, 2.0 and 3.0); .safetensors files are written
byte by byte with struct and json as the safetensors README lays them out, without the padding the
reference writer adds, so that tensors start at offsets unaligned for their element size.
expected.json holds every tensor's dtype, shape and values as f32 (inf and NaN as strings).

Run with Debian's python3-numpy: /usr/bin/python3 tests/tools/make-tensor-fixtures.py
"""
import json
import math
import pathlib
import struct

import numpy as np

OUT = pathlib.Path(__file__).resolve().parent.parent / 'fixtures' / 'tensors'


def wave(shape, phase):
    """Deterministic, non-round values (no random generator, whose stream may change)."""
    count = int(np.prod(shape, dtype=np.int64))
    return (np.sin(np.arange(count) * 0.7 + phase) * 2.5).reshape(shape)


def as_json(values):
    def one(x):
        x = float(x)
        if math.isnan(x):
            return 'nan'
        if math.isinf(x):
            return 'inf' if x > 0 else '-inf'
        return x

    return [one(x) for x in np.asarray(values, dtype=np.float64).ravel()]


def f32_values(a):
    with np.errstate(over='ignore'):
        return a.astype(np.float32)


def write_npy(expected, file_name, array, version=None):
    with open(OUT / file_name, 'wb') as f:
        if version is None:
            np.save(f, array)
        else:
            np.lib.format.write_array(f, array, version=version)
    expected[file_name] = {
        'array': {'dtype': array.dtype.str, 'shape': list(array.shape), 'values': as_json(f32_values(array))}
    }


def f32_bits(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


def to_bf16_bits(a):
    """Rounds f32 values to bf16 (nearest, ties to even) and returns the 16-bit patterns."""
    out = []
    for x in np.asarray(a, dtype=np.float32).ravel():
        bits = f32_bits(float(x))
        if math.isnan(x):
            out.append((bits >> 16) | 0x40)
        else:
            out.append((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16)
    return out


def bf16_bits_to_f32(bits):
    return [struct.unpack('<f', struct.pack('<I', b << 16))[0] for b in bits]


def tensor_bytes(dtype, values):
    """The little-endian bytes of `values` stored as `dtype`, and the values as f32 read them back."""
    a = np.asarray(values)
    if dtype == 'F32':
        stored = a.astype('<f4')
        return stored.tobytes(), stored
    if dtype == 'F16':
        stored = a.astype('<f2')
        return stored.tobytes(), stored.astype(np.float32)
    if dtype == 'F64':
        stored = a.astype('<f8')
        return stored.tobytes(), f32_values(stored)
    if dtype == 'BF16':
        bits = to_bf16_bits(a)
        return struct.pack(f'<{len(bits)}H', *bits), np.array(bf16_bits_to_f32(bits), dtype=np.float32)
    raise ValueError(dtype)


def write_safetensors(expected, file_name, tensors, metadata=None):
    """tensors: (name, dtype, array) in the order their bytes are laid out."""
    header = {}
    data = b''
    expected[file_name] = {}
    for name, dtype, array in tensors:
        raw, read_back = tensor_bytes(dtype, array)
        shape = list(np.shape(array))
        header[name] = {'dtype': dtype, 'shape': shape, 'data_offsets': [len(data), len(data) + len(raw)]}
        data += raw
        expected[file_name][name] = {'dtype': dtype, 'shape': shape, 'values': as_json(read_back)}
    if metadata is not None:
        header['__metadata__'] = metadata
    header_bytes = json.dumps(header, separators=(',', ':')).encode('utf-8')
    with open(OUT / file_name, 'wb') as f:
        f.write(struct.pack('<Q', len(header_bytes)) + header_bytes + data)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    expected = {}
    write_npy(expected, 'v1-f4.npy', wave((3, 4), 0.0).astype('<f4'))
    # ±0, the largest finite, the smallest normal and subnormals, ±inf and NaN.
    specials = [0.0, -0.0, 1.0, -2.5, 65504.0, 2.0**-14, 2.0**-24, -3 * 2.0**-24, 1e-6]
    specials += [math.inf, -math.inf, math.nan]
    write_npy(expected, 'v1-f2.npy', np.array(specials + [0.1, 1 / 3], dtype='<f2'))
    write_npy(expected, 'v1-f8.npy', np.array([[0.1, 1 / 3, 1e-40], [3.5e38, -1e300, math.pi]], dtype='<f8'))
    write_npy(expected, 'v2-f4.npy', wave((2, 2, 3), 1.0).astype('<f4'), version=(2, 0))
    write_npy(expected, 'v3-f4.npy', wave((4,), 2.0).astype('<f4'), version=(3, 0))
    write_npy(expected, 'scalar-f4.npy', np.array(1.25, dtype='<f4'))
    write_npy(expected, 'empty-f4.npy', np.zeros((0, 4), dtype='<f4'))
    write_npy(expected, 'q.npy', wave((2, 5, 4), 0.3).astype('<f4'))
    write_npy(expected, 'k.npy', wave((2, 5, 4), 0.9).astype('<f4'))

    # F16 first (6 bytes), so F32 starts at 6 and F64 at 38: both unaligned for their element size.
    write_safetensors(
        expected,
        'dtypes.safetensors',
        [
            ('half', 'F16', np.array([1.5, -0.0, 65504.0])),
            ('single', 'F32', wave((2, 3), 0.5)),
            ('brain', 'BF16', np.array([[1.0, -3.140625], [1e-39, 3e38]])),
            ('double', 'F64', np.array([0.1, 1e-50, -2.0 / 3])),
        ],
        metadata={'format': 'pt', 'written_by': 'make-tensor-fixtures.py'},
    )
    write_safetensors(
        expected,
        'layers.safetensors',
        [
            ('layers.0.q', 'F32', wave((4, 3), 0.1)),
            ('layers.0.k', 'F32', wave((4, 3), 0.2)),
            ('layers.0.v', 'F32', wave((4, 3), 0.3)),
            ('layers.10.q', 'F32', wave((1, 1, 4, 3), 0.4)),
            ('layers.10.k', 'F32', wave((1, 1, 4, 3), 0.5)),
            ('layers.1.q', 'F32', wave((2, 4, 3), 0.6)),
            ('layers.1.k', 'F32', wave((2, 4, 3), 0.7)),
            # Grouped-query attention: 4 query heads share 2 key heads.
            ('layers.2.q', 'BF16', wave((4, 4, 3), 0.8)),
            ('layers.2.k', 'F16', wave((2, 4, 3), 0.9)),
            ('layers.2.v', 'F16', wave((2, 4, 3), 1.0)),
        ],
    )
    with open(OUT / 'expected.json', 'w') as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    main()
