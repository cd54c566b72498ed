/** Capability lists as tokens and configs carry them (DESIGN.md §4 Trust), over the one list in src/contract. */
import { CAPABILITIES } from '../contract/index.js';

export const KNOWN_CAPABILITIES = CAPABILITIES;

/** Granted only on purpose: anonymous loopback callers never get these (DESIGN.md §4). */
const OPERATOR_ONLY = new Set<string>(['jumperless.exec', 'jumperless.admin']);

/** What an anonymous loopback HTTP caller gets unless the operator configures otherwise. */
export const DEFAULT_ANONYMOUS_CAPABILITIES: readonly string[] = KNOWN_CAPABILITIES.filter(
  (name) => !OPERATOR_ONLY.has(name),
).sort();

export function isKnownCapability(name: string): boolean {
  return (KNOWN_CAPABILITIES as readonly string[]).includes(name);
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
    return { ok: true, capabilities: normalizeCapabilities(KNOWN_CAPABILITIES) };
  }
  const unknown = names.filter((name) => !isKnownCapability(name));
  if (unknown.length > 0) {
    return {
      ok: false,
      message: `unknown capabilit${unknown.length === 1 ? 'y' : 'ies'} ${unknown.join(', ')} (known: ${KNOWN_CAPABILITIES.join(', ')}, or * for all)`,
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

/**
 * The one intersection rule: a socket `hello` (requested vs the operator allow-list), a bearer
 * (token caps vs the allow-list) and the dispatch gate (required vs granted) all use it.
 */
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
