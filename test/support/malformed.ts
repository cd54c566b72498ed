/**
 * Malformed JSON-RPC requests in the shapes issue 23 item 7 found unanswered, each with the id
 * the answer must carry: the request's own when it is a valid id (a string or a number), else null
 * (JSON-RPC 2.0 §5: the id cannot be told). Every transport answers each of them with an error.
 */
export interface MalformedRequest {
  what: string;
  /** The message as sent (a JSON value, not yet encoded). */
  message: unknown;
  /** The id the error answer carries. */
  answerId: string | number | null;
}

export function malformedRequests(id: number, meta?: Record<string, unknown>): MalformedRequest[] {
  const params = (extra: Record<string, unknown> = {}) => ({ ...extra, ...(meta ? { _meta: meta } : {}) });
  return [
    { what: 'method a number', message: { jsonrpc: '2.0', id, method: 42, params: params() }, answerId: id },
    { what: 'method null', message: { jsonrpc: '2.0', id, method: null, params: params() }, answerId: id },
    {
      what: 'method an object',
      message: { jsonrpc: '2.0', id, method: { a: 1 }, params: params() },
      answerId: id,
    },
    { what: 'method empty', message: { jsonrpc: '2.0', id, method: '', params: params() }, answerId: id },
    { what: 'no method', message: { jsonrpc: '2.0', id, params: params() }, answerId: id },
    {
      what: 'id an object',
      message: { jsonrpc: '2.0', id: { n: id }, method: 'ping', params: params() },
      answerId: null,
    },
    {
      what: 'id an array',
      message: { jsonrpc: '2.0', id: [id], method: 'ping', params: params() },
      answerId: null,
    },
    {
      what: 'id true',
      message: { jsonrpc: '2.0', id: true, method: 'ping', params: params() },
      answerId: null,
    },
    { what: 'jsonrpc 1.0', message: { jsonrpc: '1.0', id, method: 'ping', params: params() }, answerId: id },
    { what: 'no jsonrpc', message: { id, method: 'ping', params: params() }, answerId: id },
    { what: 'jsonrpc a number', message: { jsonrpc: 2, id, method: 'ping', params: params() }, answerId: id },
    {
      what: 'params a string',
      message: { jsonrpc: '2.0', id, method: 'tools/list', params: 'x' },
      answerId: id,
    },
    {
      what: 'params an array',
      message: { jsonrpc: '2.0', id, method: 'tools/list', params: [1] },
      answerId: id,
    },
    {
      what: 'tool name a number',
      message: { jsonrpc: '2.0', id, method: 'tools/call', params: params({ name: 7, arguments: {} }) },
      answerId: id,
    },
    { what: 'a JSON number', message: 17, answerId: null },
    { what: 'a JSON string', message: 'ping', answerId: null },
    { what: 'an empty object', message: {}, answerId: null },
    { what: 'an empty batch', message: [], answerId: null },
    { what: 'a batch', message: [{ jsonrpc: '2.0', id, method: 'ping' }], answerId: null },
  ];
}
