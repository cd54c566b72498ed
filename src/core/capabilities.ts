/**
 * What a caller may be granted (DESIGN.md §4 "Trust"): the one list, the one way to read a list
 * an operator or a token gives, the one intersection, and the one refusal. Tools, tokens, the
 * HTTP gate, the socket's hello and runTool all use these.
 */
import { DISPATCH, JSONRPC, RpcError } from './errors.js';

export const CAPABILITIES = [
  'jumperless.read',
  'jumperless.wire',
  'jumperless.power',
  'jumperless.io',
  'jumperless.files',
  'jumperless.exec',
  'jumperless.admin',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** Granted only on purpose: anonymous loopback callers never get these (DESIGN.md §4). */
const OPERATOR_ONLY: ReadonlySet<string> = new Set(['jumperless.exec', 'jumperless.admin']);

/** What an anonymous loopback HTTP caller gets unless the operator configures otherwise, sorted. */
export const ANONYMOUS_CAPABILITIES: readonly Capability[] = CAPABILITIES.filter(
  (name) => !OPERATOR_ONLY.has(name),
).sort();

export function isCapability(name: string): name is Capability {
  return (CAPABILITIES as readonly string[]).includes(name);
}

/** The capabilities among `names` (an operator's list may name others; they grant nothing). */
export function capabilitiesIn(names: readonly string[]): ReadonlySet<Capability> {
  return new Set(names.filter(isCapability));
}

/** Sorted, without duplicates: the form every capability list takes on the wire and on disk. */
export function normalizeCapabilities(names: Iterable<string>): string[] {
  return [...new Set(names)].sort();
}

export type ParsedCapabilities = { ok: true; capabilities: string[] } | { ok: false; message: string };

/**
 * Parses `jumperless.read,jumperless.wire` (spaces allowed; `*` or `all` means every known
 * capability). Unknown names are refused so a typo never silently grants less than intended.
 */
export function parseCapabilityList(text: string): ParsedCapabilities {
  const names = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  if (names.length === 0) return { ok: false, message: 'no capabilities given' };
  if (names.length === 1 && (names[0] === '*' || names[0] === 'all')) {
    return { ok: true, capabilities: normalizeCapabilities(CAPABILITIES) };
  }
  const unknown = names.filter((name) => !isCapability(name));
  if (unknown.length > 0) {
    return {
      ok: false,
      message: `unknown capabilit${unknown.length === 1 ? 'y' : 'ies'} ${unknown.join(', ')} (known: ${CAPABILITIES.join(', ')}, or * for all)`,
    };
  }
  return { ok: true, capabilities: normalizeCapabilities(names) };
}

export interface CapabilityIntersection {
  /** Wanted and available, sorted. */
  granted: string[];
  /** Wanted but not available, sorted. */
  missing: string[];
}

/** The one intersection rule: a socket `hello` (requested vs the operator allow-list) and a bearer (token caps vs the allow-list). */
export function intersectCapabilities(
  wanted: Iterable<string>,
  available: Iterable<string>,
): CapabilityIntersection {
  const have = new Set(available);
  const granted: string[] = [];
  const missing: string[] = [];
  for (const name of normalizeCapabilities(wanted)) (have.has(name) ? granted : missing).push(name);
  return { granted, missing };
}

/** The refusal of a caller without `required` (-32603, data.code 1001), for `what` it asked for (a tool, a URI). */
export function denied(what: string, required: Capability, granted: ReadonlySet<Capability>): RpcError {
  return new RpcError(JSONRPC.internalError, `Capability denied: ${what} needs ${required}`, {
    code: DISPATCH.capabilityDenied,
    retryable: false,
    required: [required],
    granted: [...granted].sort(),
    missing: [required],
  });
}
