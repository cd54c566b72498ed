/**
 * The two eras of MCP this server speaks: `legacy` (2025-11-25 / 2025-06-18: initialize, then a
 * session) and `modern` (2026-07-28 and later: every request carries its protocol version and
 * client capabilities in `_meta`). A connection's or a request's era is decided once, where it
 * arrives (the stdio entry, the HTTP route), and handed to the server made for it.
 */
export type Era = 'legacy' | 'modern';

/** The first MCP revision without initialize (per-request `_meta`, stateless HTTP). */
export const MODERN_PROTOCOL = '2026-07-28';

/** Whether a negotiated or claimed protocol version is 2026-07-28 or later (versions are dates). */
export const isModernProtocol = (version: string | undefined): version is string =>
  version !== undefined && version >= MODERN_PROTOCOL;
