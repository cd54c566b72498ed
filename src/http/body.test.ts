import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkContentType, readJsonBody } from './body.js';

function request(chunks: string[], headers: Record<string, string> = {}): IncomingMessage {
  const stream = new PassThrough();
  Object.assign(stream, { headers });
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  return stream as unknown as IncomingMessage;
}

describe('body gates', () => {
  it('wants application/json (any charset) and refuses the rest with 415', () => {
    expect(checkContentType('application/json')).toBeUndefined();
    expect(checkContentType('Application/JSON; charset=utf-8')).toBeUndefined();
    expect(checkContentType('text/plain')).toMatchObject({ status: 415, code: -32600 });
    expect(checkContentType(undefined)).toMatchObject({ status: 415 });
  });

  it('parses JSON sent in pieces', async () => {
    expect(await readJsonBody(request(['{"jsonrpc":', '"2.0","id":1}']))).toEqual({
      ok: true,
      value: { jsonrpc: '2.0', id: 1 },
    });
  });

  it('refuses bad JSON with 400 / -32700', async () => {
    expect(await readJsonBody(request(['{"jsonrpc": nope']))).toMatchObject({
      ok: false,
      rejection: { status: 400, code: -32700 },
    });
    expect(await readJsonBody(request([]))).toMatchObject({
      ok: false,
      rejection: { status: 400, code: -32700 },
    });
  });

  it('refuses a body over the limit with 413, by header or while reading', async () => {
    expect(await readJsonBody(request(['{}'], { 'content-length': '999' }), 10)).toMatchObject({
      ok: false,
      rejection: { status: 413 },
    });
    expect(await readJsonBody(request(['[1,2,3,', '4,5,6,7,8]']), 10)).toMatchObject({
      ok: false,
      rejection: { status: 413 },
    });
  });
});
