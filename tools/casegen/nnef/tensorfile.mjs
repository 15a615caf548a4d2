// NNEF tensor files (chapter 5 "Tensor File Format"), written and read by our own code.
//
// Header (128 bytes, little endian): magic 'N' 0xEF, version (major, minor bytes), data length u32, rank u32,
// 8 extents u32 (zeros past the rank), bits per item u32, the 4-byte quantization code at byte 48, 32 bytes of
// algorithm parameters at 52..83, zeros to 127. The code is "split to two 2-byte parts, vendor then algorithm";
// we read it as the u32 value (vendor << 16) | algorithm, so the Khronos codes (vendor 0) are the plain u32
// 0x00 float, 0x01 integer (parameter word 0: signed flag), 0x10 linear, 0x11 logarithmic quantization. The newer
// 1.0.x tooling item types (1 uint, 2 quint, 3 qint, 4 int, 5 bool) use the same word; we write 4 and 5 too.
//
// Data, row-major. Whole-byte widths: each item is bits/8 little-endian bytes. Other widths (agreed with the
// reader's author, /work/notes/nnef.md; the 1.0.x tooling packs its 1-bit bools this way): one bit stream, stream
// bit n is bit (7 - n%8) of byte n>>3 (most significant first), item k occupies stream bits [k*b, (k+1)*b) with its
// most significant bit first; the last byte is zero-padded. Example: 4-bit [1, 2, 15] -> 0x12 0xF0.

import { f16Bits, f16FromBits } from '../numerics.mjs';

export const HEADER_SIZE = 128;
export const CODE = { float: 0x00, integer: 0x01, uint: 0x01, quint: 0x02, int: 0x04, bool: 0x05, linear: 0x10, logarithmic: 0x11 };

// Encodings:
//   { kind: 'float', bits: 16|32|64 }                  values: doubles exactly representable in the format
//   { kind: 'integer', bits, signed: true|false }      Khronos code 0x01; values: JS integers
//   { kind: 'int', bits }                              newer code 4 (signed)
//   { kind: 'bool', bits: 1|8 }                        newer code 5; values: booleans / 0,1
//   { kind: 'quint', bits }                            newer code 2; codes (real values come from graph.quant)
//   { kind: 'linear', bits, min, max }                 code 0x10; codes: integers in [0, 2^bits-1]
//   { kind: 'logarithmic', bits, max }                 code 0x11 (unsigned: min = 0); codes likewise
export function encodeTensor(shape, items, enc, opts = {}) {
  const rank = shape.length;
  if (rank > 8 && !opts.allowBadRank) throw new Error('rank > 8');
  const count = shape.reduce((a, b) => a * b, 1);
  if (items.length !== count && !opts.allowCountMismatch) throw new Error(`item count ${items.length} != volume ${count}`);
  const bits = enc.bits;
  const dataBytes = Math.ceil((items.length * bits) / 8);
  const buf = Buffer.alloc(HEADER_SIZE + dataBytes);
  buf[0] = 0x4e;
  buf[1] = 0xef;
  buf[2] = opts.version ? opts.version[0] : 1;
  buf[3] = opts.version ? opts.version[1] : 0;
  buf.writeUInt32LE(opts.dataLength ?? dataBytes, 4);
  buf.writeUInt32LE(rank, 8);
  for (let i = 0; i < Math.min(rank, 8); i++) buf.writeUInt32LE(shape[i], 12 + 4 * i);
  buf.writeUInt32LE(bits, 44);
  let code;
  switch (enc.kind) {
    case 'float': code = CODE.float; break;
    case 'integer': code = CODE.integer; buf.writeUInt32LE(enc.signed ? 1 : 0, 52); break;
    case 'int': code = CODE.int; break;
    case 'bool': code = CODE.bool; break;
    case 'quint': code = CODE.quint; break; // newer tooling: unsigned codes, meaning from graph.quant
    case 'linear': code = CODE.linear; buf.writeFloatLE(enc.min, 52); buf.writeFloatLE(enc.max, 56); break;
    case 'logarithmic': code = CODE.logarithmic; buf.writeFloatLE(0, 52); buf.writeFloatLE(enc.max, 56); break;
    default: throw new Error(`unknown encoding ${enc.kind}`);
  }
  buf.writeUInt32LE(code, 48);
  const data = buf.subarray(HEADER_SIZE);
  if (enc.kind === 'float') {
    items.forEach((v, i) => {
      if (bits === 32) {
        if (Math.fround(v) !== v && !Number.isNaN(v)) throw new Error(`${v} is not a float32 value`);
        data.writeFloatLE(v, 4 * i);
      } else if (bits === 64) data.writeDoubleLE(v, 8 * i);
      else if (bits === 16) data.writeUInt16LE(f16Bits(v), 2 * i);
      else throw new Error(`float bits ${bits}`);
    });
  } else {
    const signed = enc.kind === 'int' || (enc.kind === 'integer' && enc.signed);
    const b = BigInt(bits);
    items.forEach((v, i) => {
      let n = BigInt(typeof v === 'boolean' ? (v ? 1 : 0) : v);
      const lo = signed ? -(1n << (b - 1n)) : 0n;
      const hi = signed ? (1n << (b - 1n)) - 1n : (1n << b) - 1n;
      if (n < lo || n > hi) throw new Error(`item ${v} out of range for ${bits} bits`);
      n = BigInt.asUintN(bits, n);
      if (bits % 8 === 0) {
        for (let k = 0; k < bits / 8; k++) data[i * (bits / 8) + k] = Number((n >> BigInt(8 * k)) & 0xffn);
        return;
      }
      for (let k = 0; k < bits; k++) {
        if ((n >> BigInt(bits - 1 - k)) & 1n) {
          const pos = i * bits + k;
          data[pos >> 3] |= 0x80 >> (pos & 7);
        }
      }
    });
  }
  return buf;
}

// Reader (used by the self-test and to double-check every written file). Returns { shape, kind, bits, items,
// params } where items are decoded values (floats as doubles; integers as Numbers; bools as 0/1; quantized codes
// as raw codes plus `values` decoded with the chapter 5 formulas in double).
export function decodeTensor(buf) {
  if (buf.length < HEADER_SIZE) throw new Error('truncated header');
  if (buf[0] !== 0x4e || buf[1] !== 0xef) throw new Error('bad magic');
  const dataLength = buf.readUInt32LE(4);
  const rank = buf.readUInt32LE(8);
  if (rank > 8) throw new Error('rank > 8');
  const shape = [];
  for (let i = 0; i < 8; i++) {
    const e = buf.readUInt32LE(12 + 4 * i);
    if (i < rank) shape.push(e);
    else if (e !== 0) throw new Error('nonzero extent past rank');
  }
  const bits = buf.readUInt32LE(44);
  const code = buf.readUInt32LE(48);
  const count = shape.reduce((a, b) => a * b, 1);
  if (bits === 0 || bits > 64) throw new Error('bad bits per item');
  if (Math.ceil((count * bits) / 8) !== dataLength) throw new Error('data length does not match shape');
  if (buf.length !== HEADER_SIZE + dataLength) throw new Error('file size does not match data length');
  const data = buf.subarray(HEADER_SIZE);
  const out = { shape, bits, code, items: [] };
  if (code === CODE.float) {
    out.kind = 'float';
    for (let i = 0; i < count; i++) {
      if (bits === 32) out.items.push(data.readFloatLE(4 * i));
      else if (bits === 64) out.items.push(data.readDoubleLE(8 * i));
      else if (bits === 16) out.items.push(f16FromBits(data.readUInt16LE(2 * i)));
      else throw new Error('bad float bits');
    }
    return out;
  }
  const raw = [];
  for (let i = 0; i < count; i++) {
    let n = 0n;
    if (bits % 8 === 0) {
      for (let k = 0; k < bits / 8; k++) n |= BigInt(data[i * (bits / 8) + k]) << BigInt(8 * k);
    } else {
      for (let k = 0; k < bits; k++) {
        const pos = i * bits + k;
        if ((data[pos >> 3] >> (7 - (pos & 7))) & 1) n |= 1n << BigInt(bits - 1 - k);
      }
    }
    raw.push(n);
  }
  if (code === CODE.integer || code === CODE.int) {
    const signed = code === CODE.int || buf.readUInt32LE(52) !== 0;
    out.kind = code === CODE.int ? 'int' : 'integer';
    out.items = raw.map((n) => Number(signed ? BigInt.asIntN(bits, n) : n));
  } else if (code === CODE.quint) {
    out.kind = 'quint';
    out.items = raw.map(Number);
  } else if (code === CODE.bool) {
    out.kind = 'bool';
    out.items = raw.map((n) => Number(n));
  } else if (code === CODE.linear || code === CODE.logarithmic) {
    const min = buf.readFloatLE(52);
    const max = buf.readFloatLE(56);
    const r = 2 ** bits - 1;
    out.kind = code === CODE.linear ? 'linear' : 'logarithmic';
    out.items = raw.map(Number);
    if (code === CODE.linear) out.values = out.items.map((q) => (q * (max - min)) / r + min);
    else {
      const m = Math.ceil(Math.log2(max));
      out.values = out.items.map((q) => 2 ** (q + m - r));
    }
    out.params = { min, max };
  } else throw new Error(`unknown code ${code}`);
  return out;
}
