/**
 * Where the operator says an outside lease comes from (`--outside-lease`, a bench's `outsideLease`):
 * a claim the token broker vouches for (`claim:labgrid_place`), or a request header
 * (`header:X-Jumpstarter-Lease`). The value names a lease as the lab's engine does: a labgrid place
 * (`jumperless-3`), or a Jumpstarter exporter and one lease of it (`bench-3/<lease id>`); a board
 * bound to that name (`leaseName`) is held by whoever presents it (device/boardLeases.ts).
 *
 * A claim is as trustworthy as the token store: only the operator writes it. A header is as
 * trustworthy as the path to the server: anyone who reaches the port can write any header, so one
 * is read only from a peer on this machine (a proxy that checks the person, sets the header and
 * drops the client's own), never from the network.
 */
import type { PresentedLease } from './toolDefinition.js';

export interface OutsideLeaseSource {
  from: 'claim' | 'header';
  /** The claim's name, or the header's (as written; HTTP compares header names without case). */
  name: string;
}

const CLAIM = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
/** RFC 9110 §5.1 field names (tokens), minus the ones that already mean something here. */
const HEADER = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
const RESERVED_HEADERS = new Set([
  'authorization',
  'host',
  'origin',
  'cookie',
  'content-type',
  'content-length',
]);

/** `claim:<name>` or `header:<Name>`; anything else is refused in words naming `what`. */
export function parseOutsideLeaseSource(text: string, what: string): OutsideLeaseSource {
  const at = text.indexOf(':');
  const from = text.slice(0, at).trim();
  const name = text.slice(at + 1).trim();
  if (at > 0 && from === 'claim' && CLAIM.test(name)) return { from, name };
  if (at > 0 && from === 'header' && HEADER.test(name) && !RESERVED_HEADERS.has(name.toLowerCase()))
    return { from, name };
  throw new Error(
    `${what}: "${text}" is not claim:<name> (a claim of the bearer token, e.g. claim:labgrid_place) or header:<Name> (a request header set by a proxy on this machine, e.g. header:X-Jumpstarter-Lease)`,
  );
}

/** How a source is written (`claim:labgrid_place`). */
export function sourceText(source: OutsideLeaseSource): string {
  return `${source.from}:${source.name}`;
}

/** A board's binding (`leaseName`): the name a lab's engine calls the board's lease by, no `/`. */
export function leaseNameProblem(name: string): string | undefined {
  if (name.length < 1 || name.length > 200 || name.includes('/') || /[\s\p{Cc}]/u.test(name))
    return `"${name}" is not a lease name: 1-200 characters, no spaces and no "/" (a labgrid place or a Jumpstarter exporter)`;
  return undefined;
}

/**
 * The outside lease a value names: `name`, or `name/lease` (one lease of the name, e.g. a
 * Jumpstarter lease id). Undefined for a value that names none (empty, too long, control
 * characters): such a caller is an ordinary one.
 */
export function outsideLeaseOf(value: string, key: string, until?: Date): PresentedLease | undefined {
  const text = value.trim();
  if (text === '' || text.length > 300 || /[\s\p{Cc}]/u.test(text)) return undefined;
  const slash = text.indexOf('/');
  const name = slash < 0 ? text : text.slice(0, slash);
  const lease = slash < 0 ? undefined : text.slice(slash + 1);
  if (name === '' || name.length > 200 || lease === '' || (lease?.length ?? 0) > 200) return undefined;
  return {
    key,
    name,
    ...(lease ? { lease } : {}),
    ...(until && Number.isFinite(until.getTime()) ? { until: until.toISOString() } : {}),
  };
}
