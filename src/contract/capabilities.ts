/** What a caller may be granted (DESIGN.md §4 "Trust"): one list for tools, auth, dispatch and transports. */
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

export function isCapability(name: string): name is Capability {
  return (CAPABILITIES as readonly string[]).includes(name);
}

/** The capabilities among `names` (an operator's list may name others; they grant nothing). */
export function capabilitiesIn(names: readonly string[]): ReadonlySet<Capability> {
  return new Set(names.filter(isCapability));
}
