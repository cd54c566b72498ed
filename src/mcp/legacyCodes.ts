/**
 * MCP 2025-11-25 answers an unknown resource URI with -32002 (and so did we); the v2 SDK sends
 * -32602 on every era, the 2026-07-28 code (its 2025 wire codec maps -32002 to -32602 on the way
 * out). A 2025-era connection's transport gets the 2025 code back, so its clients see what they
 * always saw. Which -32602 is a missing resource is the SDK's own convention
 * (ResourceNotFoundError): the one whose data is `{ uri }` and nothing else.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';

/** Resource not found (MCP 2025-11-25 resources). */
const RESOURCE_NOT_FOUND = -32002;

function isResourceNotFound(error: { code: number; data?: unknown }): boolean {
  const { data } = error;
  if (error.code !== -32602 || typeof data !== 'object' || data === null) return false;
  const keys = Object.keys(data);
  return keys.length === 1 && keys[0] === 'uri' && typeof (data as { uri: unknown }).uri === 'string';
}

function withLegacyCode(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message) || !isResourceNotFound(message.error)) return message;
  return { ...message, error: { ...message.error, code: RESOURCE_NOT_FOUND } };
}

/**
 * The transport, its sends rewritten while `legacy()` says the connection is 2025-era. The hook
 * sits on the transport itself (a Proxy would bind a fresh function on every property the SDK
 * reads); `async`, so a rewrite that throws still rejects, as a transport's send does.
 */
export function keepLegacyCodes<T extends Transport>(transport: T, legacy: () => boolean = () => true): T {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => send(legacy() ? withLegacyCode(message) : message, options);
  return transport;
}
