/**
 * Puts `hook` in front of a transport's `send`, on the transport itself. A Proxy would do the
 * same, but it binds a fresh function on every property the SDK reads, on every message.
 */
import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/server';

export type SendHook = (
  message: JSONRPCMessage,
  options: TransportSendOptions | undefined,
  send: (message: JSONRPCMessage, options?: TransportSendOptions) => Promise<void>,
) => Promise<void>;

export function interceptSend<T extends Transport>(transport: T, hook: SendHook): T {
  const send = transport.send.bind(transport);
  // async: a hook that throws still rejects, as a transport's send does.
  transport.send = async (message, options) => hook(message, options, send);
  return transport;
}
