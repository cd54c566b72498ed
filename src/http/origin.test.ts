import { describe, expect, it } from 'vitest';
import { checkOrigin, originAllowed } from './origin.js';

describe('origin check', () => {
  it('allows no Origin, loopback origins on any port, tauri apps and configured origins', () => {
    expect(originAllowed(undefined)).toBe(true);
    for (const origin of [
      'http://localhost:3000',
      'https://127.0.0.1',
      'http://[::1]:8931',
      'tauri://localhost',
    ]) {
      expect(originAllowed(origin), origin).toBe(true);
    }
    expect(originAllowed('https://lab.example', ['https://lab.example'])).toBe(true);
  });

  it('refuses other origins, look-alikes and prefixes of configured ones', () => {
    for (const origin of [
      'http://evil.example',
      'http://localhost.evil.example',
      'http://127.0.0.1.evil.example',
      'null',
      'file://x',
    ]) {
      expect(originAllowed(origin), origin).toBe(false);
    }
    expect(originAllowed('https://lab.example.evil', ['https://lab.example'])).toBe(false);
    expect(originAllowed('https://lab.exampl', ['https://lab.example'])).toBe(false);
  });

  it('answers a refusal with 403 and JSON-RPC -32001', () => {
    expect(checkOrigin({ origin: 'http://evil.example' })).toMatchObject({ status: 403, code: -32001 });
    expect(checkOrigin({})).toBeUndefined();
  });
});
