/**
 * DC operating point of a breadboard circuit by nodal analysis.
 *
 * Every unknown is a node voltage. A Thevenin source (an ideal source to ground behind a series
 * resistance: DAC and rail outputs, GPIO drivers, a battery part) is stamped in its Norton form, a
 * conductance 1/ohms to ground plus an injected current volts/ohms, so the matrix is the plain
 * conductance matrix. Every node also gets `gmin` to ground: a node that nothing drives settles at
 * 0 V, as an unrouted ADC reads about 0 V (spec §10), and the matrix is never singular.
 *
 * The circuit is split into connected pieces (ground does not join them). A piece with no source in
 * it sits at 0 V and is not solved at all; the others are solved one by one, so the cost follows the
 * largest net, not the size of the board. Diodes make a piece nonlinear: it is then solved by Newton
 * iteration with junction-voltage limiting, up to `maxIterations`.
 */

/** The 0 V reference node of every circuit. */
export const GROUND = 'GND';

/** A resistor between two nodes. `current()` is positive from `a` to `b`. */
export interface Resistor {
  readonly kind: 'resistor';
  readonly id?: string;
  readonly a: string;
  readonly b: string;
  readonly ohms: number;
}

/**
 * An ideal voltage source to ground behind a series resistance (> 0). `current()` is what it
 * delivers into `node` (negative when the circuit pushes current back into it).
 */
export interface Source {
  readonly kind: 'source';
  readonly id?: string;
  readonly node: string;
  readonly volts: number;
  readonly ohms: number;
}

/**
 * A diode or LED: exponential junction with `vf` volts across it at {@link DIODE_VF_CURRENT}, and an
 * optional series resistance `rs` (default 0). `current()` is positive from anode to cathode.
 */
export interface Diode {
  readonly kind: 'diode';
  readonly id?: string;
  readonly anode: string;
  readonly cathode: string;
  readonly vf: number;
  readonly rs?: number;
}

export type Element = Resistor | Source | Diode;

export interface SolveOptions {
  /** Conductance from every node (and across every diode junction) to ground, in S. Default 1e-12. */
  readonly gmin?: number;
  /** Newton iteration cap for pieces holding diodes. Default 100. */
  readonly maxIterations?: number;
}

export interface Solution {
  /** Voltage of `node` to ground, in V. Ground, and a node the circuit does not mention, read 0. */
  voltage(node: string): number;
  /**
   * Current in A through an element given by its index in the element list or its `id`: resistor
   * `a`->`b`, source out into its node, diode anode->cathode. Throws on an unknown element.
   */
  current(element: number | string): number;
  /** Newton iterations taken by the hardest piece: 1 for a linear circuit, 0 when nothing is driven. */
  readonly iterations: number;
}

export type SolverErrorCode = 'invalid_circuit' | 'no_convergence' | 'unknown_element';
export type SolverError = Error & { readonly code: SolverErrorCode };

export function isSolverError(error: unknown): error is SolverError {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

function solverError(code: SolverErrorCode, message: string): SolverError {
  return Object.assign(new Error(message), { code });
}

/** The current at which a diode's `vf` is quoted (LED datasheets use 10-20 mA). */
export const DIODE_VF_CURRENT = 0.01;
/** Emission coefficient times thermal voltage: n = 2 at room temperature, ~115 mV per decade. */
const N_VT = 0.05;
/** Above this many times the `vf` current the junction continues as a straight line (no overflow). */
const LINEAR_ABOVE = 1000;
const DEFAULT_GMIN = 1e-12;
const DEFAULT_MAX_ITERATIONS = 100;
const ABS_TOL = 1e-7;
const REL_TOL = 1e-7;

/** Junction law of one diode, fixed by its `vf`. */
interface Junction {
  readonly is: number;
  readonly vcrit: number;
  readonly vmax: number;
  readonly imax: number;
  readonly gmax: number;
}

function junctionFor(vf: number): Junction {
  const is = DIODE_VF_CURRENT / Math.expm1(vf / N_VT);
  const vmax = vf + N_VT * Math.log(LINEAR_ABOVE);
  const imax = is * Math.expm1(vmax / N_VT);
  // The voltage above which Newton steps are damped (the usual critical voltage of a pn junction).
  const vcrit = N_VT * Math.log(N_VT / (Math.SQRT2 * is));
  return { is, vcrit, vmax, imax, gmax: (imax + is) / N_VT };
}

function junctionCurrent(j: Junction, v: number): number {
  return v <= j.vmax ? j.is * Math.expm1(v / N_VT) : j.imax + j.gmax * (v - j.vmax);
}

function junctionConductance(j: Junction, v: number): number {
  return v <= j.vmax ? (j.is / N_VT) * Math.exp(v / N_VT) : j.gmax;
}

/**
 * Keeps a Newton step on the exponential from jumping far up the curve: above the critical voltage
 * a step grows only logarithmically, so the iteration cannot overshoot into absurd currents.
 */
function limitJunction(j: Junction, next: number, previous: number): number {
  if (next <= j.vcrit || Math.abs(next - previous) <= 2 * N_VT) return next;
  if (previous > 0) {
    const arg = 1 + (next - previous) / N_VT;
    return arg > 0 ? previous + N_VT * Math.log(arg) : j.vcrit;
  }
  return N_VT * Math.log(next / N_VT);
}

/** An element after validation, with node names turned into indices (-1 is ground). */
type Compiled =
  | { readonly kind: 'resistor'; readonly a: number; readonly b: number; readonly g: number }
  | { readonly kind: 'source'; readonly node: number; readonly volts: number; readonly g: number }
  | {
      readonly kind: 'diode';
      readonly anode: number;
      readonly cathode: number;
      /** The junction's anode side: an internal node behind `rs`, or the anode itself. */
      readonly inner: number;
      readonly gs: number;
      readonly junction: Junction;
    };

function describe(element: unknown, index: number): string {
  const id = (element as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? `elements[${index}] (${id})` : `elements[${index}]`;
}

/**
 * Solves the DC operating point. Throws a {@link SolverError}: `invalid_circuit` for a malformed
 * element (named by index and id), `no_convergence` when diodes do not settle within the cap.
 */
export function solveDc(elements: readonly Element[], options: SolveOptions = {}): Solution {
  const gmin = options.gmin ?? DEFAULT_GMIN;
  const maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  if (!(gmin > 0 && Number.isFinite(gmin))) throw solverError('invalid_circuit', 'gmin must be positive');
  if (!(Number.isInteger(maxIterations) && maxIterations >= 1)) {
    throw solverError('invalid_circuit', 'maxIterations must be a positive integer');
  }

  const nodeIndex = new Map<string, number>();
  let nodeCount = 0;
  const ids = new Map<string, number>();

  const compiled: Compiled[] = elements.map((element, index) => {
    const where = describe(element, index);
    const node = (name: unknown, field: string): number => {
      if (typeof name !== 'string' || name === '') {
        throw solverError('invalid_circuit', `${where}: ${field} must be a non-empty node name`);
      }
      if (name === GROUND) return -1;
      let at = nodeIndex.get(name);
      if (at === undefined) {
        at = nodeCount++;
        nodeIndex.set(name, at);
      }
      return at;
    };
    const positive = (value: unknown, field: string): number => {
      if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
        throw solverError('invalid_circuit', `${where}: ${field} must be a positive finite number`);
      }
      return value;
    };
    if (element === null || typeof element !== 'object') {
      throw solverError('invalid_circuit', `${where}: not an element`);
    }
    if (element.id !== undefined) {
      if (typeof element.id !== 'string')
        throw solverError('invalid_circuit', `${where}: id must be a string`);
      if (ids.has(element.id)) throw solverError('invalid_circuit', `${where}: duplicate id ${element.id}`);
      ids.set(element.id, index);
    }
    switch (element.kind) {
      case 'resistor':
        return {
          kind: 'resistor',
          a: node(element.a, 'a'),
          b: node(element.b, 'b'),
          g: 1 / positive(element.ohms, 'ohms'),
        };
      case 'source': {
        if (typeof element.volts !== 'number' || !Number.isFinite(element.volts)) {
          throw solverError('invalid_circuit', `${where}: volts must be a finite number`);
        }
        return {
          kind: 'source',
          node: node(element.node, 'node'),
          volts: element.volts,
          g: 1 / positive(element.ohms, 'ohms'),
        };
      }
      case 'diode': {
        const vf = positive(element.vf, 'vf');
        const rs = element.rs ?? 0;
        if (typeof rs !== 'number' || !(rs >= 0) || !Number.isFinite(rs)) {
          throw solverError('invalid_circuit', `${where}: rs must be a finite number >= 0`);
        }
        const anode = node(element.anode, 'anode');
        const cathode = node(element.cathode, 'cathode');
        const inner = rs > 0 ? nodeCount++ : anode;
        return { kind: 'diode', anode, cathode, inner, gs: rs > 0 ? 1 / rs : 0, junction: junctionFor(vf) };
      }
      default:
        throw solverError(
          'invalid_circuit',
          `${where}: unknown kind ${JSON.stringify((element as { kind?: unknown }).kind)}`,
        );
    }
  });

  const volts = new Float64Array(nodeCount);
  const local = new Int32Array(nodeCount);
  let iterations = 0;
  for (const piece of splitPieces(compiled, nodeCount)) {
    iterations = Math.max(iterations, solvePiece(piece, compiled, volts, local, gmin, maxIterations, elements));
  }

  const at = (index: number): number => (index < 0 ? 0 : volts[index]!);
  return {
    iterations,
    voltage(node: string): number {
      const index = nodeIndex.get(node);
      return index === undefined ? 0 : at(index);
    },
    current(element: number | string): number {
      const index = typeof element === 'string' ? ids.get(element) : element;
      const e = index === undefined ? undefined : compiled[index];
      if (e === undefined)
        throw solverError('unknown_element', `no element ${JSON.stringify(element)} in this circuit`);
      switch (e.kind) {
        case 'resistor':
          return (at(e.a) - at(e.b)) * e.g;
        case 'source':
          return (e.volts - at(e.node)) * e.g;
        case 'diode': {
          const vj = at(e.inner) - at(e.cathode);
          return junctionCurrent(e.junction, vj) + gmin * vj;
        }
      }
    },
  };
}

/** One connected group of nodes with the elements touching it. */
interface Piece {
  readonly nodes: number[];
  readonly elements: number[];
  driven: boolean;
  nonlinear: boolean;
}

function splitPieces(compiled: readonly Compiled[], nodeCount: number): Piece[] {
  const parent = new Int32Array(nodeCount);
  for (let i = 0; i < nodeCount; i++) parent[i] = i;
  const find = (x: number): number => {
    let root = x;
    while (parent[root] !== root) root = parent[root]!;
    while (parent[x] !== root) {
      const next = parent[x]!;
      parent[x] = root;
      x = next;
    }
    return root;
  };
  const join = (x: number, y: number): void => {
    if (x >= 0 && y >= 0) parent[find(x)] = find(y);
  };
  for (const e of compiled) {
    if (e.kind === 'resistor') join(e.a, e.b);
    else if (e.kind === 'diode') {
      join(e.anode, e.inner);
      join(e.inner, e.cathode);
    }
  }
  const byRoot = new Map<number, Piece>();
  const pieceOf = (node: number): Piece => {
    const root = find(node);
    let piece = byRoot.get(root);
    if (!piece) {
      piece = { nodes: [], elements: [], driven: false, nonlinear: false };
      byRoot.set(root, piece);
    }
    return piece;
  };
  for (let n = 0; n < nodeCount; n++) pieceOf(n).nodes.push(n);
  compiled.forEach((e, index) => {
    const touching =
      e.kind === 'resistor'
        ? e.a >= 0
          ? e.a
          : e.b
        : e.kind === 'source'
          ? e.node
          : e.inner >= 0
            ? e.inner
            : e.cathode;
    if (touching < 0) return; // both ends on ground: carries nothing the matrix needs
    const piece = pieceOf(touching);
    piece.elements.push(index);
    if (e.kind === 'source' && e.volts !== 0) piece.driven = true;
    if (e.kind === 'diode') piece.nonlinear = true;
  });
  return [...byRoot.values()];
}
/** Solves one piece into `volts`; returns the Newton iterations taken. Undriven pieces stay at 0 V. */
function solvePiece(
  piece: Piece,
  compiled: readonly Compiled[],
  volts: Float64Array,
  local: Int32Array,
  gmin: number,
  maxIterations: number,
  elements: readonly Element[],
): number {
  if (!piece.driven) return 0;
  const n = piece.nodes.length;
  piece.nodes.forEach((node, i) => {
    local[node] = i;
  });
  const li = (node: number): number => (node < 0 ? -1 : local[node]!);

  const base = new Float64Array(n * n);
  const baseRhs = new Float64Array(n);
  const conduct = (m: Float64Array, a: number, b: number, g: number): void => {
    if (a >= 0) m[a * n + a] = m[a * n + a]! + g;
    if (b >= 0) m[b * n + b] = m[b * n + b]! + g;
    if (a >= 0 && b >= 0) {
      m[a * n + b] = m[a * n + b]! - g;
      m[b * n + a] = m[b * n + a]! - g;
    }
  };
  for (let i = 0; i < n; i++) base[i * n + i] = gmin;
  const couplings: [number, number][] = [];
  const diodes: { readonly inner: number; readonly cathode: number; readonly junction: Junction; readonly index: number }[] =
    [];
  for (const index of piece.elements) {
    const e = compiled[index]!;
    if (e.kind === 'resistor') {
      conduct(base, li(e.a), li(e.b), e.g);
      couplings.push([li(e.a), li(e.b)]);
    } else if (e.kind === 'source') {
      const at = li(e.node);
      base[at * n + at] = base[at * n + at]! + e.g;
      baseRhs[at] = baseRhs[at]! + e.volts * e.g;
    } else {
      if (e.gs > 0) {
        conduct(base, li(e.anode), li(e.inner), e.gs);
        couplings.push([li(e.anode), li(e.inner)]);
      }
      couplings.push([li(e.inner), li(e.cathode)]);
      diodes.push({ inner: li(e.inner), cathode: li(e.cathode), junction: e.junction, index });
    }
  }
  const plan = planElimination(n, couplings);

  const store = (x: Float64Array): void => {
    for (let i = 0; i < n; i++) volts[piece.nodes[i]!] = x[i]!;
  };
  if (diodes.length === 0) {
    if (!eliminate(base, baseRhs, n, plan)) throw solverError('invalid_circuit', 'the conductance matrix is singular');
    store(baseRhs);
    return 1;
  }

  const m = new Float64Array(n * n);
  const x = new Float64Array(n);
  const previous = new Float64Array(n);
  // Start each junction at its critical voltage, about where a forward-biased diode ends up.
  const vj = Float64Array.from(diodes, (d) => Math.min(d.junction.vcrit, 0.9 * d.junction.vmax));
  const at = (v: Float64Array, i: number): number => (i < 0 ? 0 : v[i]!);
  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    m.set(base);
    x.set(baseRhs);
    diodes.forEach((d, k) => {
      const v = vj[k]!;
      const g = junctionConductance(d.junction, v) + gmin;
      // Linearised junction: i = g*v + offset, with offset = I(v0) - G(v0)*v0 (gmin term cancels).
      const offset = junctionCurrent(d.junction, v) - (g - gmin) * v;
      conduct(m, d.inner, d.cathode, g);
      if (d.inner >= 0) x[d.inner] = x[d.inner]! - offset;
      if (d.cathode >= 0) x[d.cathode] = x[d.cathode]! + offset;
    });
    if (!eliminate(m, x, n, plan)) break;

    let settled = iteration > 1;
    for (let i = 0; i < n && settled; i++) {
      if (Math.abs(x[i]! - previous[i]!) > ABS_TOL + REL_TOL * Math.abs(x[i]!)) settled = false;
    }
    diodes.forEach((d, k) => {
      const raw = at(x, d.inner) - at(x, d.cathode);
      const limited = limitJunction(d.junction, raw, vj[k]!);
      if (limited !== raw || Math.abs(raw - vj[k]!) > ABS_TOL + REL_TOL * Math.abs(raw)) settled = false;
      vj[k] = limited;
    });
    if (!x.every(Number.isFinite)) break;
    if (settled) {
      store(x);
      return iteration;
    }
    previous.set(x);
  }
  const names = diodes.map((d) => describe(elements[d.index], d.index)).join(', ');
  throw solverError(
    'no_convergence',
    `the DC solution did not converge within ${maxIterations} Newton iterations (diodes: ${names})`,
  );
}

/**
 * How to eliminate one piece: a minimum-degree order, and for each node the nodes still coupled to
 * it when its turn comes (fill-in included). Circuits are sparse, so eliminating in this order
 * along these patterns costs far less than n^3; the plan is made once and reused by every Newton
 * iteration, since diodes change values, never the pattern.
 */
interface Plan {
  readonly order: Int32Array;
  readonly later: readonly Int32Array[];
}

function planElimination(n: number, couplings: readonly (readonly [number, number])[]): Plan {
  const adjacent = Array.from({ length: n }, () => new Set<number>());
  for (const [a, b] of couplings) {
    if (a < 0 || b < 0 || a === b) continue;
    adjacent[a]!.add(b);
    adjacent[b]!.add(a);
  }
  const done = new Uint8Array(n);
  const order = new Int32Array(n);
  const later: Int32Array[] = [];
  for (let step = 0; step < n; step++) {
    let best = -1;
    let bestDegree = Number.POSITIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      const degree = adjacent[i]!.size;
      if (done[i] === 0 && degree < bestDegree) {
        best = i;
        bestDegree = degree;
      }
    }
    const neighbours = Int32Array.from(adjacent[best]!);
    for (const u of neighbours) {
      const set = adjacent[u]!;
      set.delete(best);
      for (const w of neighbours) if (w !== u) set.add(w);
    }
    done[best] = 1;
    order[step] = best;
    later[best] = neighbours;
  }
  return { order, later };
}

/**
 * Gaussian elimination along a {@link Plan}, in place on a dense row-major n*n matrix; the solution
 * replaces `rhs`. No pivoting is needed: a conductance matrix with gmin on every diagonal is
 * strictly diagonally dominant, and stays so as it is eliminated, so every pivot is positive and
 * the elimination is stable in any order. Returns false if a pivot is not positive (NaN input).
 */
function eliminate(m: Float64Array, rhs: Float64Array, n: number, plan: Plan): boolean {
  const { order, later } = plan;
  for (let step = 0; step < n; step++) {
    const k = order[step]!;
    const rowK = k * n;
    const pivot = m[rowK + k]!;
    if (!(pivot > 0)) return false;
    const pattern = later[k]!;
    const size = pattern.length;
    const rk = rhs[k]!;
    for (let i = 0; i < size; i++) {
      const r = pattern[i]!;
      const rowR = r * n;
      const f = m[rowR + k]! / pivot;
      if (f === 0) continue;
      for (let j = 0; j < size; j++) {
        const c = pattern[j]!;
        m[rowR + c] = m[rowR + c]! - f * m[rowK + c]!;
      }
      rhs[r] = rhs[r]! - f * rk;
    }
  }
  for (let step = n - 1; step >= 0; step--) {
    const k = order[step]!;
    const rowK = k * n;
    const pattern = later[k]!;
    let sum = rhs[k]!;
    for (let j = 0; j < pattern.length; j++) {
      const c = pattern[j]!;
      sum -= m[rowK + c]! * rhs[c]!;
    }
    rhs[k] = sum / m[rowK + k]!;
  }
  return true;
}
