/**
 * A board behind a raw TCP byte pipe as a DeviceLink: ser2net's `tcp` accepter, a labgrid
 * `NetworkSerialPort` with `protocol: raw`, the simulator's TCP ports. `tcp://host:port`, and
 * `socket://host:port`, pyserial's name for the same thing (deviceUrl.ts).
 */
import { connect, type Socket } from 'node:net';
import { DeviceError } from './errors.js';
import { type DeviceLink, streamLink } from './link.js';

const CONNECT_TIMEOUT_MS = 3000;

export function tcpLink(host: string, port: number): DeviceLink {
  const id = networkId('tcp', host, port);
  const words = new WeakMap<Socket, ServerWords>();
  const roundTrips = new WeakMap<Socket, number>();
  return streamLink(id, {
    async connect() {
      const started = performance.now();
      const socket = await connectTcp(id, host, port);
      // SYN to SYN-ACK: one round trip to the exporter's host.
      roundTrips.set(socket, performance.now() - started);
      const said = new ServerWords();
      words.set(socket, said);
      // Attached before the link's own listener, in the same turn: no chunk can slip past either.
      socket.on('data', (chunk: Buffer) => said.add(chunk));
      return socket;
    },
    lossReason: (stream) => {
      const said = words.get(stream as Socket);
      return said && hangUpReason(stream.readableEnded, said);
    },
    roundTripMs: (stream) => roundTrips.get(stream as Socket),
  });
}

/** `scheme://host:port`, with an IPv6 host in brackets. */
export function networkId(scheme: string, host: string, port: number): string {
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Opens a TCP connection for link `id`; rejects with `not_found` (nothing listens) or `disconnected`. */
export function connectTcp(id: string, host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      const refused = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH/.test(error.message);
      reject(
        new DeviceError(refused ? 'not_found' : 'disconnected', `cannot connect to ${id}: ${error.message}`),
      );
    };
    const timer = setTimeout(
      () => fail(new Error(`no answer within ${CONNECT_TIMEOUT_MS} ms`)),
      CONNECT_TIMEOUT_MS,
    );
    socket.once('error', fail);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', fail);
      // Small request/reply frames: Nagle would add up to 40 ms per round trip.
      socket.setNoDelay(true);
      resolve(socket);
    });
  });
}

/** At most this much of what a server sent is kept to quote when it hangs up. */
const QUOTED_BYTES = 256;

/**
 * What a server said on a connection, kept to quote when it hangs up: ser2net refuses a client
 * with one line of text and a close ("Port already in use", "Device open failure: ...").
 */
export class ServerWords {
  private bytes: Buffer = Buffer.alloc(0);
  private total = 0;

  add(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.bytes.length < QUOTED_BYTES) {
      this.bytes = Buffer.concat([this.bytes, chunk.subarray(0, QUOTED_BYTES - this.bytes.length)]);
    }
  }

  /** The text, when all the server ever sent is one short piece of plain text (not board traffic). */
  quote(): string | undefined {
    if (this.total === 0 || this.total > QUOTED_BYTES) return undefined;
    const text = this.bytes.toString('latin1').trim();
    return /^[\x20-\x7e\t\r\n]+$/.test(text) ? text.replace(/\s+/g, ' ') : undefined;
  }
}

/** The disconnect reason of a network link: who hung up, and what the server said if it spoke plainly. */
export function hangUpReason(serverEnded: boolean, said: ServerWords): string | undefined {
  const quote = said.quote();
  if (serverEnded) return `the server closed the connection${quote ? `, saying "${quote}"` : ''}`;
  return quote ? `the server said "${quote}"` : undefined;
}
