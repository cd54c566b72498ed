/**
 * Argument coercion for firmware functions. The Python wrappers already convert arguments the way
 * the C module does (`mp_obj_get_int`, `mp_obj_get_float`, node lookup), so these checks only
 * guard against direct `_c(...)` calls and callers inside the simulator (main port, backchannel):
 * bad input becomes a Python exception, never a corrupted state.
 */
import { nodeInfo, resolveNode } from '../../board/nodes.js';
import { type Json, PyError } from './types.js';

const typeName = (x: Json | undefined): string => {
  if (x === null || x === undefined) return 'NoneType';
  if (typeof x === 'boolean') return 'bool';
  if (typeof x === 'number') return Number.isInteger(x) ? 'int' : 'float';
  if (typeof x === 'string') return 'str';
  return Array.isArray(x) ? 'list' : 'dict';
};

/** `mp_obj_get_int`: ints and bools; anything else is a TypeError. */
export function asInt(x: Json | undefined): number {
  if (typeof x === 'boolean') return x ? 1 : 0;
  if (typeof x === 'number' && Number.isInteger(x)) return x;
  throw new PyError('TypeError', `can't convert ${typeName(x)} to int`);
}

/**
 * `mp_obj_get_float`. Python sends non-finite floats as the strings `inf`, `-inf` and `nan` (JSON
 * has no literal for them).
 */
export function asNum(x: Json | undefined): number {
  if (typeof x === 'boolean') return x ? 1 : 0;
  if (typeof x === 'number') return x;
  if (x === 'inf') return Number.POSITIVE_INFINITY;
  if (x === '-inf') return Number.NEGATIVE_INFINITY;
  if (x === 'nan') return Number.NaN;
  throw new PyError('TypeError', `can't convert ${typeName(x)} to float`);
}

/** Python truthiness of a JSON value (`mp_obj_is_true`). */
export function truthy(x: Json | undefined): boolean {
  if (x === null || x === undefined || x === false || x === 0 || x === '') return false;
  if (Array.isArray(x)) return x.length > 0;
  if (typeof x === 'object') return Object.keys(x).length > 0;
  return true;
}

/**
 * Names the C module's own table does not know (spec §6.2 lists them, but they exist only as
 * module constants or in other parsers): `node("T_RAIL")` raises on the board.
 */
const NOT_IN_MODULE_TABLE = new Set([
  'T_RAIL',
  'B_RAIL',
  'CURRENT_SENSE_P',
  'CURRENT_SENSE_N',
  ...Array.from({ length: 8 }, (_, i) => `GPIO_${20 + i}`),
]);

/**
 * `find_node_value` (modjumperless.c:760-786): a case-insensitive name of the node table
 * (329-545) or digits 1-200; undefined when unknown. Probe pads and fake GPIO have names elsewhere
 * (the pad table, FakeGpio.cpp), never in this one, so `node('LOGO_PAD_TOP')` and
 * `connect('FAKE_GP_OUT_0', 5)` raise. The same in 5.7.x (modjumperless.c@796c56c).
 */
export function lookupNode(name: string): number | undefined {
  if (NOT_IN_MODULE_TABLE.has(name.trim().toUpperCase())) return undefined;
  const id = resolveNode(name);
  if (id === undefined || DIGITS.test(name)) return id;
  const kind = nodeInfo(id)?.kind;
  return kind === 'pad' || kind === 'fake_gpio' ? undefined : id;
}

const DIGITS = /^\s*[+-]?\d+$/;

/** `get_node_value`: an int as it is (not validated, §6.1), or a name. */
export function asNode(x: Json | undefined): number {
  if (typeof x === 'number' && Number.isInteger(x)) return x;
  if (typeof x === 'string') {
    const id = lookupNode(x);
    if (id === undefined) throw new PyError('ValueError', 'Unknown node name');
    return id;
  }
  throw new PyError('TypeError', 'Expected node, int, or string');
}

/** A float as the firmware stores it (32-bit) and MicroPython prints it (about 7 digits). */
export function f32(v: number): number {
  if (!Number.isFinite(v)) return v;
  return Number(Math.fround(v).toPrecision(7));
}

/** A float for the Python side: JSON has no inf/nan, so those travel as strings (see `_pf` in types.py). */
export function pyFloat(v: number): number | string {
  if (Number.isNaN(v)) return 'nan';
  if (v === Number.POSITIVE_INFINITY) return 'inf';
  if (v === Number.NEGATIVE_INFINITY) return '-inf';
  return f32(v);
}
