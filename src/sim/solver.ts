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
  let iterations = 0;
  for (const piece of splitPieces(compiled, nodeCount)) {
    iterations = Math.max(iterations, solvePiece(piece, compiled, volts, gmin, maxIterations, elements));
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
