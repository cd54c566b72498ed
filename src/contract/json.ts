/** Plain JSON shapes every layer tests for (imports nothing, so the earliest code may use it). */

/** A JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first MCP revision without initialize (per-request `_meta`, stateless HTTP). */
export const MODERN_PROTOCOL = '2026-07-28';

/** Whether a negotiated or claimed protocol version is 2026-07-28 or later (versions are dates). */
export const isModernProtocol = (version: string | undefined): version is string =>
  version !== undefined && version >= MODERN_PROTOCOL;
