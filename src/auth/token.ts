/**
 * Our bearer tokens: `jlmcp_` + 32 random bytes in base64url (43 chars). 256 bits of entropy,
 * so a plain SHA-256 is enough to store them (no salt or slow hash needed: nothing to guess).
 * The prefix lets secret scanners and humans recognise one, and lets us reject junk quickly.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOKEN_PREFIX = 'jlmcp_';
const TOKEN_PATTERN = /^jlmcp_[A-Za-z0-9_-]{43}$/;

/** A claim's name (tokenFile.ts): letters, digits and `_ . -`, as a flag or a config file writes it. */
export const CLAIM_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

export function mintToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** Cheap shape check, done before any hashing or store access. */
export function looksLikeToken(text: string): boolean {
  return text.length === TOKEN_PREFIX.length + 43 && TOKEN_PATTERN.test(text);
}

export function hashToken(token: string): Buffer {
  return Buffer.from(hashTokenHex(token), 'hex');
}

/** The form the store keeps. One-shot `crypto.hash` is several times cheaper than createHash here. */
export function hashTokenHex(token: string): string {
  return hash('sha256', token, 'hex');
}

/** What logs may show of a token: 8 hex chars of its hash. Safe for any input. */
export function tokenFingerprint(token: string): string {
  return `sha256:${hashTokenHex(token).slice(0, 8)}`;
}

/** Constant-time equality of two hashes (different lengths compare unequal, still without a throw). */
export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
