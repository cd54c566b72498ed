import { describe, expect, it } from 'vitest';
import { BrokerLookupError, checkBearer } from '../../src/auth/broker.js';
import { mintToken } from '../../src/auth/token.js';
import { MemoryTokenBroker } from './memoryBroker.js';

describe('MemoryTokenBroker', () => {
  it('goes valid -> revoked, keeping the reason', async () => {
    const broker = new MemoryTokenBroker();
    const token = mintToken();
    broker.add(token, { callerId: 'alice', capabilities: ['jumperless.wire', 'jumperless.read'] });
    expect(await checkBearer(broker, token)).toEqual({
      kind: 'ok',
      identity: { callerId: 'alice', capabilities: ['jumperless.read', 'jumperless.wire'] },
    });
    expect(broker.revoke(token, 'laptop stolen')).toBe(true);
    expect(await checkBearer(broker, token)).toEqual({ kind: 'revoked', detail: 'laptop stolen' });
    expect(broker.revoke(mintToken(), 'nope')).toBe(false);
  });

  it('goes valid -> expired when the clock passes expiresAt', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const broker = new MemoryTokenBroker({ now: () => now });
    const token = mintToken();
    const expiresAt = new Date('2026-01-01T01:00:00Z');
    broker.add(token, { callerId: 'bob', capabilities: [], expiresAt });
    expect((await checkBearer(broker, token)).kind).toBe('ok');
    now = expiresAt.getTime();
    expect(await checkBearer(broker, token)).toEqual({
      kind: 'expired',
      detail: 'expired at 2026-01-01T01:00:00.000Z',
    });
  });

  it('reports unknown tokens, lookup failures, recovery and unexpected throws', async () => {
    const broker = new MemoryTokenBroker();
    const token = mintToken();
    broker.add(token, { callerId: 'carol', capabilities: ['jumperless.read'] });
    expect(await checkBearer(broker, 'garbage')).toEqual({ kind: 'unknown' });
    broker.failWith(new BrokerLookupError('store offline'));
    expect(await checkBearer(broker, token)).toEqual({ kind: 'lookup_failed', message: 'store offline' });
    broker.failWith(new TypeError('secret internals'));
    expect(await checkBearer(broker, token)).toEqual({
      kind: 'internal',
      message: 'token broker failed unexpectedly',
    });
    broker.failWith(undefined);
    expect((await checkBearer(broker, token)).kind).toBe('ok');
    expect(broker.calls).toBe(4);
    expect(broker.acceptedTokenFormats()).toEqual(['opaque']);
  });
});
