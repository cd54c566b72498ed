/**
 * A TCP proxy on loopback that holds every chunk for a fixed time in each direction, in order:
 * a network hop of a chosen round trip without touching the machine's network settings (tc/netem
 * would slow every engineer's loopback). Used to check the session's waits over a slow link.
 */
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

export interface DelayProxy {
  readonly port: number;
  close(): Promise<void>;
}

/** Forwards 127.0.0.1:`port` (returned) to 127.0.0.1:`target`, each way `oneWayMs` late. */
export async function startDelayProxy(target: number, oneWayMs: number): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.setNoDelay(true);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        // The other side goes once what was in flight has arrived.
        setTimeout(() => (socket === client ? upstream : client).destroy(), oneWayMs);
      });
    }
    const relay = (from: Socket, to: Socket) =>
      from.on('data', (chunk: Buffer) => {
        setTimeout(() => {
          if (!to.destroyed) to.write(chunk);
        }, oneWayMs);
      });
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((closed) => server.close(closed));
    },
  };
}
