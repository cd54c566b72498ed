/**
 * The owner's side: serves the board it holds to other jumperless-mcp processes on the board's
 * socket (0600, this user only). Each connection is one client process's channel: its jobs run
 * under the caller it names (round-robin with this process's own callers), a `lease` holds the
 * board for that connection until `release` or hang-up, and hanging up cancels what runs.
 */
import type { Server, Socket } from 'node:net';
import { createServer } from 'node:net';
import type { BoardSharing, JobLease, JobTarget } from '../board.js';
import { DeviceError } from '../errors.js';
import { encodeFrame, FrameDecoder } from '../frames.js';
import { listenPrivately, prepareSocketPath } from '../socketPath.js';
import { SHARE_PROTOCOL, type ShareRequest, type ShareResponse, shareRequest } from './protocol.js';

export interface BoardShareServer {
  readonly path: string;
  /** Who holds the port (this process) and who works through it. */
  sharing(): BoardSharing;
  close(): Promise<void>;
}

interface Peer {
  client: string;
  pid: number;
  since: string;
}

export async function serveBoard(
  board: JobTarget,
  options: { path: string; device: string; log?: (line: string) => void },
): Promise<BoardShareServer> {
  const log = options.log ?? ((line) => process.stderr.write(`jumperless-mcp share: ${line}\n`));
  const since = new Date().toISOString();
  const peers = new Map<Socket, Peer | undefined>();
  await prepareSocketPath(options.path);
  const server: Server = createServer((socket) => {
    peers.set(socket, undefined);
    socket.once('close', () => peers.delete(socket));
    serveChannel(socket, board, {
      welcome: () => ({
        type: 'welcome',
        protocol: SHARE_PROTOCOL,
        owner: { pid: process.pid, device: options.device, socket: options.path, since },
      }),
      hello: (peer) => peers.set(socket, peer),
      health: async () => ({ ...(await board.health()), sharing: sharing() }),
      log,
    });
  });
  const sharing = (): BoardSharing => {
    const clients = new Map<string, BoardSharing['clients'][number]>();
    for (const peer of peers.values()) {
      if (!peer) continue;
      const key = `${peer.client}:${peer.pid}`;
      const known = clients.get(key);
      if (known) {
        known.connections++;
        if (peer.since < known.since) known.since = peer.since;
      } else clients.set(key, { ...peer, connections: 1 });
    }
    return {
      role: 'owner',
      owner: { pid: process.pid, device: options.device, socket: options.path, since },
      clients: [...clients.values()],
    };
  };
  await listenPrivately(server, options.path);
  return {
    path: options.path,
    sharing,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of peers.keys()) socket.destroy();
      await closed;
    },
  };
}

interface ChannelHooks {
  welcome(): ShareResponse;
  hello(peer: Peer): void;
  health(): Promise<Record<string, unknown>>;
  log(line: string): void;
}

function serveChannel(socket: Socket, board: JobTarget, hooks: ChannelHooks): void {
  const decoder = new FrameDecoder();
  const gone = new AbortController();
  let lease: JobLease | undefined;
  let greeted = false;
  let chain = Promise.resolve();
  const end = () => {
    gone.abort(new DeviceError('canceled', 'the client process hung up'));
    lease?.release();
    lease = undefined;
  };
  socket.on('close', end);
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => {
    const { messages, error } = decoder.push(chunk);
    for (const message of messages) {
      chain = chain.then(async () => {
        const answer = await respond(message).catch(
          (failure: unknown): ShareResponse => ({ type: 'failed', error: failureOf(failure) }),
        );
        if (!socket.destroyed) socket.write(encodeFrame(answer));
      });
    }
    if (error) {
      hooks.log(`a client sent a bad frame (${error.message}); closing its connection`);
      socket.destroy();
    }
  });

  async function respond(message: unknown): Promise<ShareResponse> {
    const parsed = shareRequest.safeParse(message);
    if (!parsed.success) throw new DeviceError('protocol', 'not a board-share request');
    const request: ShareRequest = parsed.data;
    if (request.type === 'hello') {
      if (request.protocol !== SHARE_PROTOCOL) {
        throw new DeviceError(
          'protocol',
          `this owner speaks board-share protocol ${SHARE_PROTOCOL}, the client ${request.protocol}: run the same jumperless-mcp version`,
        );
      }
      greeted = true;
      hooks.hello({ client: request.client, pid: request.pid, since: new Date().toISOString() });
      return hooks.welcome();
    }
    if (!greeted) throw new DeviceError('protocol', 'say hello first');
    const signal = gone.signal;
    switch (request.type) {
      case 'job': {
        const on = lease && !lease.released ? lease : board;
        const value = await on.run(request.kind, request.code, {
          signal,
          owner: request.owner,
          ...(request.timeout_ms ? { timeoutMs: request.timeout_ms } : {}),
        });
        return { type: 'done', value: value === undefined ? null : value };
      }
      case 'lease':
        if (lease && !lease.released)
          throw new DeviceError('protocol', 'this connection holds a lease already');
        lease = await board.lease(request.owner, signal);
        return { type: 'leased' };
      case 'release':
        lease?.release();
        lease = undefined;
        return { type: 'released' };
      case 'health':
        return { type: 'health', health: await hooks.health() };
    }
  }
}

function failureOf(error: unknown): { code: string; message: string; details?: Record<string, unknown> } {
  if (error instanceof DeviceError) {
    const { code, message, details } = error;
    return { code, message, ...(Object.keys(details).length > 0 ? { details } : {}) };
  }
  return { code: 'protocol', message: error instanceof Error ? error.message : String(error) };
}
