// JSON <-> typed element values, and the case format's data generators (fill / range / random uniform).

import {
  isFloat, isInt, roundTo, inIntRange, isMidpoint, decimalEqualsDouble, FORMATS, pow2,
} from './numerics.mjs';

const TWO53 = 2n ** 53n;

export function elementCount(shape) {
  return shape.reduce((n, d) => n * d, 1);
}

// Authoring value (JS number incl. NaN/+-Infinity/-0, BigInt, or decimal string) -> canonical JSON value.
export function toJsonValue(v) {
  if (typeof v === 'bigint') return v > -TWO53 && v < TWO53 ? Number(v) : v.toString();
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (v === Infinity) return 'Infinity';
    if (v === -Infinity) return '-Infinity';
    if (Object.is(v, -0)) return '-0';
    return v;
  }
  if (typeof v === 'string') return v;
  throw new Error(`cannot encode ${v}`);
}

// Authoring data (array, scalar or generator object) -> JSON data.
export function toJsonData(data) {
  if (Array.isArray(data)) return data.map(toJsonValue);
  if (data !== null && typeof data === 'object') {
    if ('fill' in data) return { fill: toJsonValue(data.fill) };
    return JSON.parse(JSON.stringify(data)); // range/random: plain numbers
  }
  return toJsonValue(data);
}

// One JSON value -> the element value of type t (double for floats, BigInt for integers), as a conforming
// reader must produce it. Throws on values that are not valid for the type, and on float literals whose
// meaning would depend on the reader's rounding path (exact midpoints reached through an inexact double).
export function parseJsonValue(j, t) {
  if (isFloat(t)) {
    let d;
    if (typeof j === 'number') {
      d = j;
      if (isMidpoint(t, d) && !decimalEqualsDouble(String(d), d)) {
        throw new Error(`ambiguous ${t} literal ${j} (inexact midpoint)`);
      }
    } else if (typeof j === 'string') {
      const special = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };
      if (j in special) d = special[j];
      else throw new Error(`bad ${t} value ${j}`);
    } else throw new Error(`bad ${t} value ${j}`);
    return roundTo(t, d);
  }
  if (!isInt(t)) throw new Error(`unknown type ${t}`);
  let b;
  if (typeof j === 'number') {
    if (!Number.isSafeInteger(j)) throw new Error(`${t} value ${j} is not a safe integer`);
    b = BigInt(j);
  } else if (typeof j === 'string' && /^-?\d+n?$/.test(j)) {
    b = BigInt(j.replace(/n$/, ''));
  } else throw new Error(`bad ${t} value ${JSON.stringify(j)}`);
  if (!inIntRange(t, b)) throw new Error(`${t} value ${b} out of range`);
  return b;
}

// ---------------------------------------------------------------------------------------------------------
// splitmix64 and the data generators.

const M64 = (1n << 64n) - 1n;

export function splitmix64(seed) {
  let s = BigInt.asUintN(64, BigInt(seed));
  return () => {
    s = (s + 0x9E3779B97F4A7C15n) & M64;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & M64;
    z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & M64;
    return z ^ (z >> 31n);
  };
}

const TWO_M53 = pow2(-53);

// Integer-valued double -> element value of an integer type (throws if not an in-range integer).
function intFromDouble(d, t) {
  if (!Number.isSafeInteger(d)) throw new Error(`generator value ${d} is not an exact integer for ${t}`);
  const b = BigInt(d);
  if (!inIntRange(t, b)) throw new Error(`generator value ${d} out of range for ${t}`);
  return b;
}

// JSON data + type + shape -> array of element values.
export function expandData(data, t, shape) {
  const n = elementCount(shape);
  if (Array.isArray(data)) {
    if (data.length !== n) throw new Error(`data length ${data.length} != element count ${n}`);
    return data.map((j) => parseJsonValue(j, t));
  }
  if (data !== null && typeof data === 'object') {
    if ('fill' in data) {
      const v = parseJsonValue(data.fill, t);
      return new Array(n).fill(v);
    }
    if ('range' in data) {
      const { start, step } = data.range;
      const out = [];
      for (let i = 0; i < n; i++) {
        const p = i * step;
        const d = start + p;
        out.push(isFloat(t) ? roundTo(t, d) : intFromDouble(d, t));
      }
      return out;
    }
    if ('random' in data) {
      const { seed, distribution, min, max } = data.random;
      if (distribution !== 'uniform') throw new Error('only the uniform distribution is used');
      const next = splitmix64(seed);
      const out = [];
      for (let i = 0; i < n; i++) {
        const u = Number(next() >> 11n) * TWO_M53;
        if (isFloat(t)) {
          const d = max - min;
          const p = d * u;
          out.push(roundTo(t, min + p));
        } else {
          if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max - min + 1 > 2 ** 53) {
            throw new Error(`integer random needs integer min/max with a range below 2^53 (${min}, ${max}, ${t})`);
          }
          out.push(intFromDouble(min + Math.floor(u * (max - min + 1)), t));
        }
      }
      return out;
    }
    throw new Error(`unknown data generator ${JSON.stringify(data)}`);
  }
  // A single value: the value of a 0-D tensor, or every element.
  const v = parseJsonValue(data, t);
  return new Array(n).fill(v);
}

// ---------------------------------------------------------------------------------------------------------
// Output encoding: element value -> canonical JSON value (shortest decimal that reads back to the same
// float-type value through decimal -> double -> round-to-type, never an exact midpoint).

export function shortestFloat(v, t) {
  for (let p = 1; p <= 17; p++) {
    const c = Number(v.toPrecision(p));
    if (Object.is(roundTo(t, c), v) && !isMidpoint(t, c)) return c;
  }
  return v;
}

export function encodeValue(v, t) {
  if (isFloat(t)) {
    if (typeof v !== 'number') throw new Error(`float element is not a number: ${v}`);
    if (!Number.isNaN(v) && !Object.is(roundTo(t, v), v)) throw new Error(`${v} is not a ${t} value`);
    if (Number.isNaN(v) || !Number.isFinite(v) || v === 0) return toJsonValue(v);
    return shortestFloat(v, t);
  }
  if (typeof v !== 'bigint') throw new Error(`integer element is not a BigInt: ${v}`);
  if (!inIntRange(t, v)) throw new Error(`${t} value ${v} out of range`);
  return toJsonValue(v);
}

export { FORMATS };
