import { describe, expect, it } from 'vitest';
import { MemoryTokenBroker } from '../../test/support/memoryBroker.js';
import { mintToken } from '../auth/index.js';
import { ANONYMOUS_CAPABILITIES } from '../core/capabilities.js';
import { authenticate, parseAuthorization } from './bearer.js';
import { authInfoOf, httpCaller } from './caller.js';

describe('parseAuthorization', () => {
  it('reads Bearer in any case and trims the token', () => {
    expect(parseAuthorization('Bearer abc')).toEqual({ kind: 'bearer', token: 'abc' });
    expect(parseAuthorization('bearer   abc  ')).toEqual({ kind: 'bearer', token: 'abc' });
    expect(parseAuthorization('BEARER\tabc')).toEqual({ kind: 'bearer', token: 'abc' });
  });

  it('tells missing, empty and other schemes apart', () => {
    expect(parseAuthorization(undefined)).toEqual({ kind: 'none' });
    for (const header of ['', '   ', 'Bearer', 'Bearer ', 'bearer \t ']) {
      expect(parseAuthorization(header), JSON.stringify(header)).toEqual({ kind: 'empty' });
    }
    for (const header of ['Basic dXNlcg==', 'Bearerabc', 'Token abc']) {
      expect(parseAuthorization(header), header).toEqual({ kind: 'other_scheme' });
    }
  });
});

describe('authenticate', () => {
  const token = mintToken();
  const broker = new MemoryTokenBroker();
  broker.add(token, { callerId: 'token:t1', capabilities: ['jumperless.exec', 'jumperless.read'] });

  it('gives an anonymous caller the anonymous set within the allow-list', async () => {
    expect(await authenticate({}, {})).toEqual({
      ok: true,
      caller: { id: undefined, capabilities: [...ANONYMOUS_CAPABILITIES] },
    });
    const narrowed = await authenticate({}, { allowList: ['jumperless.read', 'jumperless.exec'] });
    expect(narrowed).toMatchObject({ ok: true, caller: { capabilities: ['jumperless.read'] } });
  });

  it('gives a bearer its own set within the allow-list, and keeps the token for stream checks only', async () => {
    const headers = { authorization: `Bearer ${token}` };
    const all = await authenticate(headers, { broker });
    expect(all).toMatchObject({
      ok: true,
      caller: { id: 'token:t1', capabilities: ['jumperless.exec', 'jumperless.read'], bearer: token },
    });
    const limited = await authenticate(headers, { broker, allowList: ['jumperless.read'] });
    expect(limited).toMatchObject({ ok: true, caller: { capabilities: ['jumperless.read'] } });
    if (!limited.ok) throw new Error('unreachable');
    const info = authInfoOf(limited.caller);
    expect(JSON.stringify(info)).not.toContain(token);
    expect(info.token).toBe('token:t1');
    expect(httpCaller('s1', info)).toEqual({
      id: 'http:token:t1',
      granted: new Set(['jumperless.read']),
      principal: 'token:t1',
    });
  });

  it('names anonymous callers by session and grants nothing to a request that skipped the gate', async () => {
    const anonymous = await authenticate({}, {});
    if (!anonymous.ok) throw new Error('unreachable');
    expect(httpCaller('s9', authInfoOf(anonymous.caller)).id).toBe('http:s9');
    // 2026-07-28 (no session): each connection is a caller of its own; a bearer stays one caller.
    expect(httpCaller(undefined, authInfoOf(anonymous.caller, 'conn-7')).id).toBe('http:conn-7');
    expect(httpCaller(undefined, authInfoOf(anonymous.caller, 'conn-8')).id).toBe('http:conn-8');
    // Its hazard questions are not its connection's: one client's requests use several.
    expect(httpCaller(undefined, authInfoOf(anonymous.caller, 'conn-8')).answersAs).toBe('http:anonymous');
    expect(httpCaller('s9', authInfoOf(anonymous.caller)).answersAs).toBeUndefined();
    const named = await authenticate({ authorization: `Bearer ${token}` }, { broker });
    if (!named.ok) throw new Error('unreachable');
    expect(httpCaller(undefined, authInfoOf(named.caller, 'conn-7')).id).toBe('http:token:t1');
    expect(httpCaller('s9', undefined).granted.size).toBe(0);
  });

  it('logs broker failures by fingerprint, never the token', async () => {
    const lines: string[] = [];
    const failing = new MemoryTokenBroker();
    failing.failWith(new Error('boom'));
    const result = await authenticate(
      { authorization: `Bearer ${token}` },
      { broker: failing, log: (l) => lines.push(l) },
    );
    expect(result).toMatchObject({ ok: false, rejection: { status: 500, code: -32002 } });
    expect(lines.join('\n')).toMatch(/sha256:[0-9a-f]{8}/);
    expect(lines.join('\n')).not.toContain(token);
  });
});
