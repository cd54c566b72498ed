/** A board behind a TCP byte pipe (ser2net, the simulator's TCP ports) as a DeviceLink. */
import { connect, type Socket } from 'node:net';
import { DeviceError } from './errors.js';
import { type DeviceLink, streamLink } from './link.js';

const CONNECT_TIMEOUT_MS = 3000;

export function tcpLink(host: string, port: number): DeviceLink {
  const id = `tcp://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return streamLink(id, { connect: () => openTcp(id, host, port) });
}

function openTcp(id: string, host: string, port: number): Promise<Socket> {
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
