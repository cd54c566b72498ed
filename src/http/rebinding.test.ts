import { describe, expect, it } from 'vitest';
import { checkLoopbackHost, checkOrigin, checkSource, hostName, originAllowed } from './rebinding.js';

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

describe('loopback host check', () => {
  it('reads the host name without the port', () => {
    expect(hostName('127.0.0.1:8931')).toBe('127.0.0.1');
    expect(hostName('[::1]:80')).toBe('[::1]');
    expect(hostName('LocalHost')).toBe('localhost');
  });
  it('allows loopback names and refuses rebinding hosts with 403', () => {
    for (const host of ['localhost:1', '127.0.0.1:8931', '[::1]:8931'])
      expect(checkLoopbackHost({ host }), host).toBeUndefined();
    for (const host of ['evil.example.com', 'localhost.evil.example:80', undefined]) {
      expect(checkLoopbackHost({ host }), String(host)).toMatchObject({ status: 403, code: -32001 });
    }
  });
});

describe('source check', () => {
  it('asks Origin first, then a Host at all, then a loopback Host unless told otherwise', () => {
    const evil = { origin: 'http://evil.example', host: 'evil.example' };
    expect(checkSource(evil)).toMatchObject({ status: 403, message: expect.stringContaining('origin') });
    expect(checkSource({})).toMatchObject({ status: 400, code: -32600 });
    expect(checkSource({ host: 'evil.example' })).toMatchObject({ status: 403, code: -32001 });
    expect(checkSource({ host: 'evil.example' }, { loopbackHostOnly: false })).toBeUndefined();
    expect(
      checkSource(
        { host: '127.0.0.1:8931', origin: 'https://lab.example' },
        { origins: ['https://lab.example'] },
      ),
    ).toBeUndefined();
  });
});
