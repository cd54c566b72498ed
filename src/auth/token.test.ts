import { describe, expect, it } from 'vitest';
import { hashToken, looksLikeToken, mintToken, sameHash, tokenFingerprint } from './token.js';

describe('tokens', () => {
  it('mints distinct jlmcp_ tokens of 43 base64url chars', () => {
    const tokens = new Set(Array.from({ length: 200 }, mintToken));
    expect(tokens.size).toBe(200);
    for (const token of tokens) {
      expect(token).toMatch(/^jlmcp_[A-Za-z0-9_-]{43}$/);
      expect(looksLikeToken(token)).toBe(true);
    }
  });

  it('rejects other shapes before hashing', () => {
    const good = mintToken();
    for (const bad of [
      '',
      'jlmcp_',
      `${good}x`,
      good.slice(0, -1),
      `Jlmcp_${good.slice(6)}`,
      `${good.slice(0, -1)}=`,
    ]) {
      expect(looksLikeToken(bad)).toBe(false);
    }
  });

  it('fingerprints with a short hash prefix that does not contain the token', () => {
    const token = mintToken();
    const print = tokenFingerprint(token);
    expect(print).toMatch(/^sha256:[0-9a-f]{8}$/);
    expect(print).not.toContain(token.slice(6, 14));
    expect(tokenFingerprint(token)).toBe(print);
  });

  it('compares hashes of different lengths without throwing', () => {
    const a = hashToken('a');
    expect(sameHash(a, hashToken('a'))).toBe(true);
    expect(sameHash(a, hashToken('b'))).toBe(false);
    expect(sameHash(a, a.subarray(0, 16))).toBe(false);
  });
});
