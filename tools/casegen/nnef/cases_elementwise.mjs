// 4.2 element-wise operations: unary, binary (with NNEF's leading-aligned broadcasting), select, simplifiers.

import { T, dyadic, bools, ints } from './tensor.mjs';
import { single, doc, sc } from './casekit.mjs';

export function elementwiseCases() {
  const cases = [];
  const add = (c) => cases.push(c);

  // ---------------------------------------------------------------------------------------------- unary
  const x23 = (seed, lo = -4, hi = 4, den = 8, opts) => dyadic(`unary.${seed}`, [2, 3], lo, hi, den, opts);
  add(single('copy.basic', 'copy of a scalar tensor', { x: x23('copy') }, 'copy(x)', (o, I) => o.copy(I.x)));
  add(single('copy.integer', 'copy<?> is generic: an integer tensor', { x: ints('copy.int', [2, 3], -5, 9) },
    'copy(x)', (o, I) => o.copy(I.x)));
  add(single('copy.logical', 'copy<?> is generic: a logical tensor', { x: bools('copy.bool', [3, 2]) },
    'copy(x)', (o, I) => o.copy(I.x)));
  add(single('neg.basic', 'neg', { x: x23('neg') }, 'neg(x)', (o, I) => o.neg(I.x)));
  add(single('rcp.basic', 'rcp = 1/x, one IEEE division (exact rounding)',
    { x: T([2, 4], [1, -2, 3, 0.375, -7, 10, 0.1875, 1.5]) }, 'rcp(x)', (o, I) => o.rcp(I.x)));
  add(single('rcp.zero', 'rcp(0) = +Infinity', { x: T([3], [0, 0.5, -8]) }, 'rcp(x)', (o, I) => o.rcp(I.x)));
  add(single('exp.basic', 'exp', { x: x23('exp') }, 'exp(x)', (o, I) => o.exp(I.x), { transcendental: true }));
  add(single('exp.range', 'exp underflow to 0 and overflow to +Infinity in float32',
    { x: T([2, 3], [-200, -90, 0, 1, 88, 100]) }, 'exp(x)', (o, I) => o.exp(I.x), { transcendental: true }));
  add(single('log.basic', 'log of positive values', { x: dyadic('log', [2, 3], 0, 16, 8, { nonzero: true }) },
    'log(x)', (o, I) => o.log(I.x), { transcendental: true }));
  add(single('log.special', 'log(0) = -Infinity, log(1) = 0, log of a negative value is NaN',
    { x: T([4], [0, 1, -1, 2]) }, 'log(x)', (o, I) => o.log(I.x), { transcendental: true }));
  add(single('sin.basic', 'sin', { x: x23('sin', -3, 3) }, 'sin(x)', (o, I) => o.sin(I.x), { transcendental: true }));
  add(single('cos.basic', 'cos', { x: x23('cos', -3, 3) }, 'cos(x)', (o, I) => o.cos(I.x), { transcendental: true }));
  add(single('abs.basic', 'abs', { x: x23('abs') }, 'abs(x)', (o, I) => o.abs(I.x)));
  add(single('sign.basic', 'sign: 1, 0, -1', { x: T([2, 3], [3.5, 0, -0.125, 7, -2, 0]) }, 'sign(x)', (o, I) => o.sign(I.x)));
  add(single('not.basic', 'logical not', { x: bools('not', [2, 3]) }, 'not(x)', (o, I) => o.not(I.x)));
  const roundIn = T([2, 5], [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.5 - 2 ** -25, -0.75, 8388609, 3.25]);
  add(single('floor.basic', 'floor', { x: roundIn }, 'floor(x)', (o, I) => o.floor(I.x)));
  add(single('ceil.basic', 'ceil', { x: T([2, 4], [-2.5, -1.5, 0.5, 1.5, 2.25, -0.75, 7, 8388607.5]) },
    'ceil(x)', (o, I) => o.ceil(I.x)));
  add(single('round.half_up', 'round(x) = floor(x + 0.5): halves go up (-2.5 -> -2, 2.5 -> 3); 0.49999997 -> 0 and '
    + '8388609 -> 8388609 (the exact sum, not a float32 addition)', { x: roundIn }, 'round(x)', (o, I) => o.round(I.x)));

  // --------------------------------------------------------------------------------------------- binary
  const a23 = dyadic('bin.a', [2, 3], -4, 4, 8);
  const b23 = dyadic('bin.b', [2, 3], -4, 4, 8, { nonzero: true });
  for (const op of ['add', 'sub', 'mul', 'div']) {
    add(single(`${op}.basic`, `${op} of equal shapes`, { a: a23, b: b23 }, `${op}(a, b)`, (o, I) => o[op](I.a, I.b)));
  }
  add(single('add.broadcast_leading_aligned',
    'NNEF broadcasting aligns shapes at dimension 0: [2,3,4] + [2,3] treats [2,3] as [2,3,1]',
    { a: dyadic('bc.a', [2, 3, 4], -2, 2, 4), b: dyadic('bc.b', [2, 3], -2, 2, 4) }, 'add(a, b)', (o, I) => o.add(I.a, I.b)));
  add(single('add.broadcast_singletons', '[1,3] + [2,1] -> [2,3]',
    { a: dyadic('bs.a', [1, 3], -2, 2, 4), b: dyadic('bs.b', [2, 1], -2, 2, 4) }, 'add(a, b)', (o, I) => o.add(I.a, I.b)));
  add(single('add.bias_row', 'a bias of shape [1,C] added to [N,C,H,W] (the bias broadcasts over batch and spatial dims)',
    { a: dyadic('br.a', [2, 3, 2, 2], -2, 2, 4), b: dyadic('br.b', [1, 3], -2, 2, 4) }, 'add(a, b)', (o, I) => o.add(I.a, I.b)));
  add(single('sub.literal', 'a scalar literal is a constant tensor of singleton shape',
    { a: a23 }, 'sub(a, 1.5)', (o, I) => o.sub(I.a, 1.5)));
  add(single('mul.broadcast_column', '[3,4] * [3] multiplies each row by one value',
    { a: dyadic('mc.a', [3, 4], -2, 2, 4), b: dyadic('mc.b', [3], -2, 2, 4) }, 'mul(a, b)', (o, I) => o.mul(I.a, I.b)));
  add(single('div.inexact', 'div rounds once (IEEE division is exact-rounded in float32 too)',
    { a: T([2, 3], [1, 2, -10, 7, 0.1875, 100]), b: T([2, 3], [3, 7, 3, -9, 11, 6]) }, 'div(a, b)', (o, I) => o.div(I.a, I.b)));
  add(single('pow.basic', 'pow of positive bases with fractional exponents',
    { a: dyadic('pow.a', [2, 3], 0, 4, 8, { nonzero: true }), b: dyadic('pow.b', [2, 3], -2, 2, 4) },
    'pow(a, b)', (o, I) => o.pow(I.a, I.b), { transcendental: true }));
  add(single('pow.integer_exponents', 'pow with negative bases and integer exponents, and 0^0 = 1',
    { a: T([2, 3], [-2, -1.5, 3, 0, -0.5, 2]), b: T([2, 3], [3, 2, -2, 0, -3, 10]) },
    'pow(a, b)', (o, I) => o.pow(I.a, I.b), { transcendental: true }));
  const ca = T([2, 4], [1, -2, 0.5, 3, 3, -1, 0, 2.5]);
  const cb = T([2, 4], [1, 2, 0.25, 3, -3, -1, 0, 2.75]);
  for (const op of ['lt', 'gt', 'le', 'ge', 'eq', 'ne']) {
    add(single(`${op}.basic`, `${op} (with equal pairs)`, { a: ca, b: cb }, `${op}(a, b)`, (o, I) => o[op](I.a, I.b)));
  }
  add(single('lt.broadcast_literal', 'comparison with a scalar literal', { a: a23 }, 'lt(a, 0.0)', (o, I) => o.lt(I.a, 0.0)));
  add(single('ge.broadcast', 'comparison broadcasting [2,3] with [2]', { a: a23, b: T([2], [0, -1]) },
    'ge(a, b)', (o, I) => o.ge(I.a, I.b)));
  const la = T([2, 2], [true, true, false, false], 'logical');
  const lb = T([2, 2], [true, false, true, false], 'logical');
  add(single('and.basic', 'logical and (truth table)', { a: la, b: lb }, 'and(a, b)', (o, I) => o.and(I.a, I.b)));
  add(single('or.basic', 'logical or (truth table)', { a: la, b: lb }, 'or(a, b)', (o, I) => o.or(I.a, I.b)));
  add(single('and.broadcast_literal', 'logical and with the literal true broadcast',
    { a: bools('andl', [2, 3]) }, 'and(a, true)', (o, I) => o.and(I.a, true)));
  add(single('or.broadcast', 'logical or of [2,3] and [2,1]',
    { a: bools('orb.a', [2, 3]), b: T([2, 1], [true, false], 'logical') }, 'or(a, b)', (o, I) => o.or(I.a, I.b)));

  // ---------------------------------------------------------------------------------------------- select
  add(single('select.basic', 'select per element', { c: bools('sel.c', [2, 3]), t: a23, f: b23 },
    'select(c, t, f)', (o, I) => o.select(I.c, I.t, I.f)));
  add(single('select.broadcast', 'condition [2,1] broadcast over [2,3] values, false value a literal',
    { c: T([2, 1], [false, true], 'logical'), t: a23 }, 'select(c, t, 0.5)', (o, I) => o.select(I.c, I.t, 0.5)));
  add(single('select.integer', 'select<?> with integer values',
    { c: bools('seli.c', [3, 2]), t: ints('seli.t', [3, 2], -9, 9), f: ints('seli.f', [3, 2], 100, 120) },
    'select(c, t, f)', (o, I) => o.select(I.c, I.t, I.f)));
  add({
    name: 'select.logical_condition_from_comparison',
    description: 'select(x < 0.0, -x, x) with operator expressions (nested invocations need the extension)',
    graph: doc({ extensions: ['KHR_enable_operator_expressions'], inputs: [['x', a23]], outputs: ['y'], body: ['y = select(x < 0.0, -x, x);'] }),
    inputs: { x: a23 },
    compute: (o, I) => ({ y: o.select(o.lt(I.x, 0.0), o.neg(I.x), I.x) }),
  });

  // ----------------------------------------------------------------------------------------- simplifiers
  const pos = dyadic('simp.pos', [2, 3], 0, 8, 8, { nonzero: true });
  add(single('sqr.basic', 'sqr = pow(x, 2.0)', { x: x23('sqr') }, 'sqr(x)', (o, I) => o.sqr(I.x), { transcendental: true }));
  add(single('sqrt.basic', 'sqrt = pow(x, 0.5)', { x: pos }, 'sqrt(x)', (o, I) => o.sqrt(I.x), { transcendental: true }));
  add(single('sqrt.perfect_squares', 'sqrt of perfect squares is exact',
    { x: T([2, 3], [0, 0.25, 1, 2.25, 16, 0.015625]) }, 'sqrt(x)', (o, I) => o.sqrt(I.x), { transcendental: true }));
  add(single('rsqr.basic', 'rsqr = pow(x, -2.0)', { x: x23('rsqr', -4, 4, 8, { nonzero: true }) }, 'rsqr(x)',
    (o, I) => o.rsqr(I.x), { transcendental: true }));
  add(single('rsqrt.basic', 'rsqrt = pow(x, -0.5)', { x: pos }, 'rsqrt(x)', (o, I) => o.rsqrt(I.x), { transcendental: true }));
  add(single('log2.basic', 'log2 = log(x) / log(2.0)',
    { x: T([2, 4], [1, 2, 8, 0.25, 3, 10, 0.1875, 1024]) }, 'log2(x)', (o, I) => o.log2(I.x), { transcendental: true }));
  add(single('min.basic', 'min = select(x < y, x, y)', { a: ca, b: cb }, 'min(a, b)', (o, I) => o.min(I.a, I.b)));
  add(single('max.basic', 'max = select(x > y, x, y)', { a: ca, b: cb }, 'max(a, b)', (o, I) => o.max(I.a, I.b)));
  add(single('max.broadcast_literal', 'max with a literal (relu-like)', { a: a23 }, 'max(a, 0.0)', (o, I) => o.max(I.a, 0.0)));
  add(single('clamp.literals', 'clamp(x, -1.0, 1.5) = max(min(x, b), a)', { x: x23('clamp') }, 'clamp(x, -1.0, 1.5)',
    (o, I) => o.clamp(I.x, -1.0, 1.5)));
  add(single('clamp.tensors', 'clamp with per-row tensor bounds [2,1]',
    { x: x23('clampt'), a: T([2, 1], [-1, 0]), b: T([2, 1], [0.5, 2]) }, 'clamp(x, a, b)', (o, I) => o.clamp(I.x, I.a, I.b)));

  // --------------------------------------------------------------- tensor introducing: constant, external
  add({
    name: 'constant.basic',
    description: 'constant with a full value list and with a single repeated value; external<scalar> spelled out',
    graph: doc({ inputs: [['x', T([2, 3], [0, 0, 0, 0, 0, 0])]], explicitScalar: true, outputs: ['y', 'z'], body: [
      'c = constant(shape = [2, 3], value = [1.0, -2.0, 0.5, 4.0, 0.25, -0.125]);',
      'k = constant(shape = [1, 3], value = [3.5]);',
      'y = add(x, c);',
      'z = mul(x, k);',
    ] }),
    inputs: { x: dyadic('const.x', [2, 3], -2, 2, 4) },
    compute: (o, I) => ({
      y: o.add(I.x, T([2, 3], [1, -2, 0.5, 4, 0.25, -0.125])),
      z: o.mul(I.x, T([1, 3], [3.5, 3.5, 3.5])),
    }),
  });
  add({
    name: 'constant.integer_and_logical',
    description: 'constant<integer> and constant<logical> used through generic ops',
    graph: doc({ inputs: [['c', T([2, 2], [true, false, true, false], 'logical')]], outputs: ['y', 'z'], body: [
      'i = constant<integer>(shape = [2, 2], value = [1, 2, 3, 4]);',
      'j = constant<integer>(shape = [2, 2], value = [-7]);',
      'y = select(c, i, j);',
      'l = constant<logical>(shape = [1, 2], value = [true, false]);',
      'z = and(c, l);',
    ] }),
    inputs: { c: T([2, 2], [true, false, false, true], 'logical') },
    compute: (o, I) => ({
      y: o.select(I.c, T([2, 2], [1, 2, 3, 4], 'integer'), T([2, 2], [-7, -7, -7, -7], 'integer')),
      z: o.and(I.c, T([1, 2], [true, false], 'logical')),
    }),
  });
  return cases;
}

export { sc };
