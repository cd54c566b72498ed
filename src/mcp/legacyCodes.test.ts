import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { keepLegacyCodes } from './legacyCodes.js';

/** A transport that keeps what it was asked to send. */
function recording(): Transport & { sent: JSONRPCMessage[] } {
  const sent: JSONRPCMessage[] = [];
  return {
    sent,
    start: async () => {},
    close: async () => {},
    send: async (message) => void sent.push(message),
  };
}

const error = (code: number, data?: unknown): JSONRPCMessage =>
  ({
    jsonrpc: '2.0',
    id: 1,
    error: { code, message: 'm', ...(data === undefined ? {} : { data }) },
  }) as JSONRPCMessage;

describe('2025 codes on a 2025 connection', () => {
  it('sends a missing resource (-32602 whose data is { uri } alone) as -32002', async () => {
    const transport = recording();
    await keepLegacyCodes(transport).send(error(-32602, { uri: 'jumperless://nothing' }));
    expect(transport.sent[0]).toMatchObject({
      error: { code: -32002, data: { uri: 'jumperless://nothing' } },
    });
  });

  it.each([
    ['invalid arguments', error(-32602, { issues: [] })],
    ['a uri with more data', error(-32602, { uri: 'x', reason: 'y' })],
    ['no data', error(-32602)],
    ['another code', error(-32603, { uri: 'x' })],
    ['a result', { jsonrpc: '2.0', id: 1, result: {} } as JSONRPCMessage],
  ])('leaves %s as it is', async (_what, message) => {
    const transport = recording();
    await keepLegacyCodes(transport).send(message);
    expect(transport.sent[0]).toEqual(message);
  });

  it('leaves a 2026-07-28 connection its -32602', async () => {
    const transport = recording();
    await keepLegacyCodes(transport, () => false).send(error(-32602, { uri: 'x' }));
    expect(transport.sent[0]).toMatchObject({ error: { code: -32602 } });
  });
});
