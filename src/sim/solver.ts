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

const SOLVER_ERROR_CODES = ['invalid_circuit', 'no_convergence', 'unknown_element'] as const;
export type SolverErrorCode = (typeof SOLVER_ERROR_CODES)[number];
export type SolverError = Error & { readonly code: SolverErrorCode };

export function isSolverError(error: unknown): error is SolverError {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && (SOLVER_ERROR_CODES as readonly unknown[]).includes(code);
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

/** The largest `vf` accepted: far above any LED, and small enough that the exponential stays finite. */
const MAX_VF = 20;

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

/** Node names seen so far and the element ids, filled while compiling. */
interface Table {
  readonly nodes: Map<string, number>;
  readonly ids: Map<string, number>;
  count: number;
}

function describe(element: unknown, index: number): string {
  const id = (element as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? `elements[${index}] (${id})` : `elements[${index}]`;
}

function invalid(element: unknown, index: number, problem: string): SolverError {
  return solverError('invalid_circuit', `${describe(element, index)}: ${problem}`);
}

function nodeOf(table: Table, name: unknown, element: unknown, index: number, field: string): number {
  if (typeof name !== 'string' || name === '')
    throw invalid(element, index, `${field} must be a non-empty node name`);
  if (name === GROUND) return -1;
  let at = table.nodes.get(name);
  if (at === undefined) {
    at = table.count++;
    table.nodes.set(name, at);
  }
  return at;
}

function positive(value: unknown, element: unknown, index: number, field: string): number {
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw invalid(element, index, `${field} must be a positive finite number`);
  }
  return value;
}

function compile(table: Table, element: Element, index: number): Compiled {
  if (element === null || typeof element !== 'object') throw invalid(element, index, 'not an element');
  if (element.id !== undefined) {
    if (typeof element.id !== 'string') throw invalid(element, index, 'id must be a string');
    if (table.ids.has(element.id)) throw invalid(element, index, `duplicate id ${element.id}`);
    table.ids.set(element.id, index);
  }
  switch (element.kind) {
    case 'resistor': {
      const g = 1 / positive(element.ohms, element, index, 'ohms');
      return {
        kind: 'resistor',
        a: nodeOf(table, element.a, element, index, 'a'),
        b: nodeOf(table, element.b, element, index, 'b'),
        g,
      };
    }
    case 'source': {
      if (typeof element.volts !== 'number' || !Number.isFinite(element.volts)) {
        throw invalid(element, index, 'volts must be a finite number');
      }
      const g = 1 / positive(element.ohms, element, index, 'ohms');
      return {
        kind: 'source',
        node: nodeOf(table, element.node, element, index, 'node'),
        volts: element.volts,
        g,
      };
    }
    case 'diode': {
      const vf = positive(element.vf, element, index, 'vf');
      if (vf > MAX_VF) throw invalid(element, index, `vf must be at most ${MAX_VF} V`);
      const rs = element.rs ?? 0;
      if (typeof rs !== 'number' || !(rs >= 0) || !Number.isFinite(rs)) {
        throw invalid(element, index, 'rs must be a finite number >= 0');
      }
      const anode = nodeOf(table, element.anode, element, index, 'anode');
      const cathode = nodeOf(table, element.cathode, element, index, 'cathode');
      const inner = rs > 0 ? table.count++ : anode;
      return { kind: 'diode', anode, cathode, inner, gs: rs > 0 ? 1 / rs : 0, junction: junctionFor(vf) };
    }
    default:
      throw invalid(element, index, `unknown kind ${JSON.stringify((element as { kind?: unknown }).kind)}`);
  }
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
  const table: Table = { nodes: new Map(), ids: new Map(), count: 0 };
  const compiled: Compiled[] = [];
  for (let i = 0; i < elements.length; i++) compiled.push(compile(table, elements[i]!, i));

  const volts = new Float64Array(table.count);
  const local = new Int32Array(table.count);
  let iterations = 0;
  for (const piece of splitPieces(compiled, table.count)) {
    if (!piece.driven) continue;
    iterations = Math.max(
      iterations,
      solvePiece(piece, compiled, volts, local, gmin, maxIterations, elements),
    );
  }
  return new DcSolution(table, compiled, volts, gmin, iterations);
}

class DcSolution implements Solution {
  constructor(
    private readonly table: Table,
    private readonly compiled: readonly Compiled[],
    private readonly volts: Float64Array,
    private readonly gmin: number,
    readonly iterations: number,
  ) {}

  private at(index: number): number {
    return index < 0 ? 0 : this.volts[index]!;
  }

  voltage(node: string): number {
    const index = this.table.nodes.get(node);
    return index === undefined ? 0 : this.at(index);
  }

  current(element: number | string): number {
    const index = typeof element === 'string' ? this.table.ids.get(element) : element;
    const e = index === undefined ? undefined : this.compiled[index];
    if (e === undefined)
      throw solverError('unknown_element', `no element ${JSON.stringify(element)} in this circuit`);
    switch (e.kind) {
      case 'resistor':
        return (this.at(e.a) - this.at(e.b)) * e.g;
      case 'source':
        return (e.volts - this.at(e.node)) * e.g;
      case 'diode': {
        const vj = this.at(e.inner) - this.at(e.cathode);
        return junctionCurrent(e.junction, vj) + this.gmin * vj;
      }
    }
  }
}

/** One connected group of nodes with the elements touching it. */
interface Piece {
  readonly nodes: number[];
  readonly elements: number[];
  /** Holds a source of nonzero voltage; without one every node of the piece sits at 0 V. */
  driven: boolean;
}

function findRoot(parent: Int32Array, x: number): number {
  let root = x;
  while (parent[root] !== root) root = parent[root]!;
  while (parent[x] !== root) {
    const next = parent[x]!;
    parent[x] = root;
    x = next;
  }
  return root;
}

function joinNodes(parent: Int32Array, x: number, y: number): void {
  if (x >= 0 && y >= 0) parent[findRoot(parent, x)] = findRoot(parent, y);
}

/** The node an element is filed under (any of its non-ground terminals), or -1 if all are ground. */
function anchor(e: Compiled): number {
  if (e.kind === 'resistor') return e.a >= 0 ? e.a : e.b;
  if (e.kind === 'source') return e.node;
  return e.inner >= 0 ? e.inner : e.cathode;
}

function splitPieces(compiled: readonly Compiled[], nodeCount: number): Piece[] {
  const parent = new Int32Array(nodeCount);
  for (let i = 0; i < nodeCount; i++) parent[i] = i;
  for (const e of compiled) {
    if (e.kind === 'resistor') joinNodes(parent, e.a, e.b);
    else if (e.kind === 'diode') {
      joinNodes(parent, e.anode, e.inner);
      joinNodes(parent, e.inner, e.cathode);
    }
  }
  const byRoot = new Map<number, Piece>();
  const pieces: Piece[] = [];
  const pieceAt = new Array<Piece>(nodeCount);
  for (let node = 0; node < nodeCount; node++) {
    const root = findRoot(parent, node);
    let piece = byRoot.get(root);
    if (piece === undefined) {
      piece = { nodes: [], elements: [], driven: false };
      byRoot.set(root, piece);
      pieces.push(piece);
    }
    piece.nodes.push(node);
    pieceAt[node] = piece;
  }
  for (let index = 0; index < compiled.length; index++) {
    const e = compiled[index]!;
    const node = anchor(e);
    if (node < 0) continue; // every terminal on ground: nothing for the matrix
    const piece = pieceAt[node]!;
    piece.elements.push(index);
    if (e.kind === 'source' && e.volts !== 0) piece.driven = true;
  }
  return pieces;
}

/** Adds conductance `g` between local nodes `a` and `b` (-1 is ground) of an n*n matrix. */
function stamp(m: Float64Array, n: number, a: number, b: number, g: number): void {
  if (a >= 0) m[a * n + a] = m[a * n + a]! + g;
  if (b >= 0) m[b * n + b] = m[b * n + b]! + g;
  if (a >= 0 && b >= 0) {
    m[a * n + b] = m[a * n + b]! - g;
    m[b * n + a] = m[b * n + a]! - g;
  }
}

/** A diode of one piece, by local node index. */
interface LocalDiode {
  readonly inner: number;
  readonly cathode: number;
  readonly junction: Junction;
  readonly index: number;
}

function outOfRange(): SolverError {
  return solverError(
    'invalid_circuit',
    'the circuit cannot be solved in floating point (resistances or voltages too extreme)',
  );
}

/** Solves one driven piece into `volts`; returns the Newton iterations taken. */
function solvePiece(
  piece: Piece,
  compiled: readonly Compiled[],
  volts: Float64Array,
  local: Int32Array,
  gmin: number,
  maxIterations: number,
  elements: readonly Element[],
): number {
  const n = piece.nodes.length;
  for (let i = 0; i < n; i++) local[piece.nodes[i]!] = i;
  const base = new Float64Array(n * n);
  const baseRhs = new Float64Array(n);
  for (let i = 0; i < n; i++) base[i * n + i] = gmin;
  const couplings = new Couplings(n);
  const diodes: LocalDiode[] = [];
  for (const index of piece.elements) {
    const e = compiled[index]!;
    if (e.kind === 'resistor') {
      const a = e.a < 0 ? -1 : local[e.a]!;
      const b = e.b < 0 ? -1 : local[e.b]!;
      stamp(base, n, a, b, e.g);
      couplings.add(a, b);
    } else if (e.kind === 'source') {
      const at = local[e.node]!;
      base[at * n + at] = base[at * n + at]! + e.g;
      baseRhs[at] = baseRhs[at]! + e.volts * e.g;
    } else {
      const anode = e.anode < 0 ? -1 : local[e.anode]!;
      const inner = e.inner < 0 ? -1 : local[e.inner]!;
      const cathode = e.cathode < 0 ? -1 : local[e.cathode]!;
      if (e.gs > 0) {
        stamp(base, n, anode, inner, e.gs);
        couplings.add(anode, inner);
      }
      couplings.add(inner, cathode);
      diodes.push({ inner, cathode, junction: e.junction, index });
    }
  }

  const plan = planElimination(couplings);

  if (diodes.length === 0) {
    if (!eliminate(base, baseRhs, n, plan) || !baseRhs.every(Number.isFinite)) throw outOfRange();
    for (let i = 0; i < n; i++) volts[piece.nodes[i]!] = baseRhs[i]!;
    return 1;
  }

  const m = new Float64Array(n * n);
  const x = new Float64Array(n);
  const previous = new Float64Array(n);
  // Start each junction at its critical voltage, about where a forward-biased diode ends up.
  const vj = new Float64Array(diodes.length);
  for (let k = 0; k < diodes.length; k++) vj[k] = diodes[k]!.junction.vcrit;
  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    m.set(base);
    x.set(baseRhs);
    for (let k = 0; k < diodes.length; k++) {
      const d = diodes[k]!;
      const v = vj[k]!;
      const g = junctionConductance(d.junction, v);
      // Linearised junction i = (g + gmin)*v + offset, with offset = I(v0) - g*v0.
      const offset = junctionCurrent(d.junction, v) - g * v;
      stamp(m, n, d.inner, d.cathode, g + gmin);
      if (d.inner >= 0) x[d.inner] = x[d.inner]! - offset;
      if (d.cathode >= 0) x[d.cathode] = x[d.cathode]! + offset;
    }
    if (!eliminate(m, x, n, plan)) break;

    let settled = iteration > 1;
    let finite = true;
    for (let i = 0; i < n; i++) {
      const xi = x[i]!;
      if (!Number.isFinite(xi)) finite = false;
      if (Math.abs(xi - previous[i]!) > ABS_TOL + REL_TOL * Math.abs(xi)) settled = false;
    }
    if (!finite) break;
    for (let k = 0; k < diodes.length; k++) {
      const d = diodes[k]!;
      const raw = (d.inner < 0 ? 0 : x[d.inner]!) - (d.cathode < 0 ? 0 : x[d.cathode]!);
      const limited = limitJunction(d.junction, raw, vj[k]!);
      if (limited !== raw || Math.abs(raw - vj[k]!) > ABS_TOL + REL_TOL * Math.abs(raw)) settled = false;
      vj[k] = limited;
    }
    if (settled) {
      for (let i = 0; i < n; i++) volts[piece.nodes[i]!] = x[i]!;
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
 * along these patterns costs far less than n^3. The plan comes from the structure alone (which
 * nodes share an element), so it is made once per piece and reused by every Newton iteration.
 */
interface Plan {
  readonly order: Int32Array;
  readonly later: readonly Int32Array[];
}

/** The symmetric structure of a piece: which local nodes share an element, and how many each. */
class Couplings {
  readonly linked: Uint8Array;
  readonly degree: Int32Array;

  constructor(readonly n: number) {
    this.linked = new Uint8Array(n * n);
    this.degree = new Int32Array(n);
  }

  add(a: number, b: number): void {
    const { linked, degree, n } = this;
    if (a < 0 || b < 0 || a === b || linked[a * n + b] === 1) return;
    linked[a * n + b] = 1;
    linked[b * n + a] = 1;
    degree[a] = degree[a]! + 1;
    degree[b] = degree[b]! + 1;
  }
}

/** Consumes `couplings` (eliminating a node links all its neighbours: the fill-in). */
function planElimination(couplings: Couplings): Plan {
  const { linked, degree, n } = couplings;
  const done = new Uint8Array(n);
  const order = new Int32Array(n);
  const later: Int32Array[] = [];
  const scratch = new Int32Array(n);
  for (let step = 0; step < n; step++) {
    let k = -1;
    let least = n + 1;
    for (let i = 0; i < n; i++) {
      if (done[i] === 0 && degree[i]! < least) {
        k = i;
        least = degree[i]!;
      }
    }
    let count = 0;
    const rowK = k * n;
    for (let j = 0; j < n; j++) if (linked[rowK + j] === 1) scratch[count++] = j;
    const neighbours = scratch.slice(0, count);
    for (let a = 0; a < count; a++) {
      const u = neighbours[a]!;
      const rowU = u * n;
      linked[rowU + k] = 0;
      let d = degree[u]! - 1;
      for (let b = 0; b < count; b++) {
        const w = neighbours[b]!;
        if (w !== u && linked[rowU + w] === 0) {
          linked[rowU + w] = 1;
          d++;
        }
      }
      degree[u] = d;
    }
    done[k] = 1;
    order[step] = k;
    later[k] = neighbours;
  }
  return { order, later };
}

/**
 * Gaussian elimination along a {@link Plan}, in place on a dense row-major n*n matrix; the solution
 * replaces `rhs`. No pivoting is needed: a conductance matrix with gmin on every diagonal is
 * strictly diagonally dominant and stays so as it is eliminated, so every pivot is positive and
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
