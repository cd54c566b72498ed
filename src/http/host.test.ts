import { describe, expect, it } from 'vitest';
import { checkLoopbackHost, hostName } from './host.js';

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
