import { describe, expect, it } from 'vitest';
import { parseRequest } from './messages.js';

describe('parseRequest', () => {
  it('reads every ATD request type with snake_case fields and ATD defaults', () => {
    expect(parseRequest({ type: 'ping' })).toEqual({ ok: true, request: { type: 'ping' } });
    expect(
      parseRequest({ type: 'hello', client_id: 'bench', requested_capabilities: ['jumperless.read'] }),
    ).toEqual({
      ok: true,
      request: { type: 'hello', client_id: 'bench', requested_capabilities: ['jumperless.read'] },
    });
    expect(parseRequest({ type: 'hello' })).toEqual({
      ok: true,
      request: { type: 'hello', requested_capabilities: [] },
    });
    expect(parseRequest({ type: 'tool_list', extra: 1 })).toEqual({
      ok: true,
      request: { type: 'tool_list' },
    });
    expect(parseRequest({ type: 'tool_schema', tool_id: 'jumperless.dac_set' })).toEqual({
      ok: true,
      request: { type: 'tool_schema', tool_id: 'jumperless.dac_set' },
    });
    expect(parseRequest({ type: 'run_tool', tool_id: 't' })).toEqual({
      ok: true,
      request: { type: 'run_tool', tool_id: 't', args: {}, dry_run: false },
    });
    expect(parseRequest({ type: 'run_tool', tool_id: 't', args: { a: [1] }, dry_run: true })).toEqual({
      ok: true,
      request: { type: 'run_tool', tool_id: 't', args: { a: [1] }, dry_run: true },
    });
    expect(parseRequest({ type: 'run_tool_continue', tool_id: 't', cursor: 'c' }).ok).toBe(true);
  });

  it('names what is wrong with other values', () => {
    const cases: [unknown, RegExp][] = [
      [null, /JSON object with a "type"/],
      [[{ type: 'ping' }], /JSON object with a "type"/],
      ['ping', /JSON object/],
      [{}, /unknown message type undefined/],
      [{ type: 7 }, /unknown message type number/],
      [{ type: 'tools/call' }, /unknown message type "tools\/call" \(expected one of ping, hello,/],
      [{ type: 'x'.repeat(5000) }, /^unknown message type "x{40}" /],
      [{ type: 'run_tool', tool_id: 5 }, /^bad run_tool: tool_id: /],
      [{ type: 'run_tool', tool_id: 't', dry_run: 'yes' }, /^bad run_tool: dry_run: /],
      [{ type: 'tool_schema' }, /^bad tool_schema: tool_id: /],
      [{ type: 'tool_schema', tool_id: '' }, /^bad tool_schema: tool_id: /],
      [{ type: 'hello', requested_capabilities: 'jumperless.read' }, /^bad hello: requested_capabilities: /],
      [{ type: 'hello', requested_capabilities: [1] }, /^bad hello: requested_capabilities\.0: /],
      [{ type: 'hello', client_id: 'x'.repeat(300) }, /^bad hello: client_id: /],
    ];
    for (const [value, message] of cases) {
      const parsed = parseRequest(value);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.message).toMatch(message);
    }
  });
});
