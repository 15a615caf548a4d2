// Helpers to write NNEF case documents.

import { Tensor } from './tensor.mjs';

// A scalar literal (always with a decimal point; integer literals do not cast to scalar). Never exponent form.
export function sc(v) {
  if (Number.isInteger(v)) return `${v}.0`;
  const s = String(v);
  if (/e/i.test(s)) throw new Error(`scalar literal in exponent form: ${s}`);
  return s;
}

// Format an attribute value: numbers are integers unless wrapped with scalar(); arrays; tuples via tup().
export function fmt(v) {
  if (v instanceof Scalar) return sc(v.v);
  if (v instanceof Tup) return `(${v.items.map(fmt).join(', ')})`;
  if (Array.isArray(v)) return `[${v.map(fmt).join(', ')}]`;
  if (typeof v === 'string') return `'${v}'`;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new Error(`non-integer ${v} must be wrapped with S()`);
    return String(v);
  }
  throw new Error(`cannot format ${v}`);
}
class Scalar { constructor(v) { this.v = v; } }
class Tup { constructor(items) { this.items = items; } }
export const S = (v) => new Scalar(v);
export const tup = (...items) => new Tup(items);
export const pads = (list) => list.map(([a, b]) => tup(a, b));

// Named attribute list: attrs({size: [1,1,3,3], border: 'constant'}) -> "size = [1, 1, 3, 3], border = 'constant'"
export function attrs(obj) {
  return Object.entries(obj).map(([k, v]) => `${k} = ${fmt(v)}`).join(', ');
}

const typeName = (t) => (t === 'scalar' ? '' : `<${t}>`);

// A whole document. inputs: [[name, Tensor]] (order = graph parameter order).
export function doc({ extensions = [], fragments = '', name = 'G', inputs = [], outputs, body, explicitScalar = false }) {
  const lines = ['version 1.0;'];
  for (const e of extensions) lines.push(`extension ${e};`);
  lines.push('');
  if (fragments) lines.push(fragments.trim(), '');
  lines.push(`graph ${name}( ${inputs.map(([n]) => n).join(', ')} ) -> ( ${outputs.join(', ')} )`);
  lines.push('{');
  for (const [n, t] of inputs) {
    const tn = explicitScalar && t.type === 'scalar' ? '<scalar>' : typeName(t.type);
    lines.push(`    ${n} = external${tn}(shape = [${t.shape.join(', ')}]);`);
  }
  for (const b of body) lines.push(`    ${b}`);
  lines.push('}');
  return lines.join('\n') + '\n';
}

export const EXT_FRAG = 'KHR_enable_fragment_definitions';
export const EXT_EXPR = 'KHR_enable_operator_expressions';
export const EXT_BOTH = `${EXT_FRAG} ${EXT_EXPR}`; // 1.0.2: whitespace-separated extension list

// One-invocation case: call is the right-hand side, e.g. "add(a, b)".
export function single(name, description, inputs, call, compute, extra = {}) {
  const ins = Object.entries(inputs);
  return {
    name,
    description,
    graph: doc({ inputs: ins, outputs: ['y'], body: [`y = ${call};`] }),
    inputs,
    compute: (o, I) => ({ y: compute(o, I) }),
    ...extra,
  };
}

export const isTensor = (t) => t instanceof Tensor;
