/**
 * The owner's side: serves the board it holds to other jumperless-mcp processes on the board's
 * socket (0600, this user only). Each connection is one client process's channel: its jobs run
 * under the caller it names (round-robin with this process's own callers), a `lease` holds the
 * board for that connection until `release`, hang-up, or `silenceMs` without a frame from it (a
 * process stopped with Ctrl-Z keeps its socket open and says nothing: its lease must not hold
 * everyone's board), and hanging up cancels what runs.
 */
import type { Server, Socket } from 'node:net';
import { createServer } from 'node:net';
import type { BoardSharing, JobLease, JobTarget } from '../board.js';
import { DeviceError } from '../errors.js';
import { encodeFrame, FrameDecoder } from '../frames.js';
import { listenPrivately, prepareSocketPath } from '../socketPath.js';
import {
  isAliveNotice,
  SHARE_PROTOCOL,
  type ShareRequest,
  type ShareResponse,
  shareRequest,
} from './protocol.js';

/** How often a lease's connection says it is alive, and how long a silent one keeps its lease. */
const ALIVE_MS = 1000;
const SILENCE_MS = 5000;

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

export interface ServeBoardOptions {
  path: string;
  device: string;
  log?: (line: string) => void;
  /** How often a connection holding a lease must say `alive` (told in the welcome). Default 1 s. */
  aliveMs?: number;
  /** A lease whose connection sent nothing for this long is ended. Default 5 s. */
  silenceMs?: number;
}

export async function serveBoard(board: JobTarget, options: ServeBoardOptions): Promise<BoardShareServer> {
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
        alive_ms: options.aliveMs ?? ALIVE_MS,
      }),
      silenceMs: options.silenceMs ?? SILENCE_MS,
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
  silenceMs: number;
  hello(peer: Peer): void;
  health(): Promise<Record<string, unknown>>;
  log(line: string): void;
}

function serveChannel(socket: Socket, board: JobTarget, hooks: ChannelHooks): void {
  const decoder = new FrameDecoder();
  // Aborted when the client goes (or its lease is ended for silence): stops what runs for it.
  let gone = new AbortController();
  let lease: JobLease | undefined;
  let greeted = false;
  let peer = 'a client process';
  let chain = Promise.resolve();
  let lastHeard = Date.now();
  let watch: NodeJS.Timeout | undefined;
  /** Why this connection's lease was ended, told to each request until the client releases it. */
  let ended: DeviceError | undefined;
  const end = () => {
    clearInterval(watch);
    gone.abort(new DeviceError('canceled', 'the client process hung up'));
    lease?.release();
    lease = undefined;
  };
  const watchSilence = () => {
    clearInterval(watch);
    watch = setInterval(
      () => {
        const silent = Date.now() - lastHeard;
        if (!lease || silent < hooks.silenceMs) return;
        const seconds = `${Math.round(hooks.silenceMs / 100) / 10} s`;
        ended = new DeviceError(
          'canceled',
          `${peer} showed no sign of life for ${seconds} while it held the board (stopped, e.g. with Ctrl-Z, or hung): its board lease was ended and what it ran was stopped; nothing more of that call runs`,
        );
        hooks.log(
          `${peer} showed no sign of life for ${seconds} while it held the board: lease ended, the board goes to the next caller`,
        );
        clearInterval(watch);
        gone.abort(ended);
        gone = new AbortController();
        lease.release();
        lease = undefined;
      },
      Math.max(50, Math.min(1000, hooks.silenceMs / 4)),
    );
    watch.unref();
  };
  socket.on('close', end);
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => {
    lastHeard = Date.now();
    const { messages, error } = decoder.push(chunk);
    for (const message of messages) {
      if (isAliveNotice(message)) continue;
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
      peer = `${request.client} (pid ${request.pid})`;
      hooks.hello({ client: request.client, pid: request.pid, since: new Date().toISOString() });
      return hooks.welcome();
    }
    if (!greeted) throw new DeviceError('protocol', 'say hello first');
    if (ended && request.type !== 'release' && request.type !== 'health') throw ended;
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
        // From the grant on, the connection must keep saying it is alive (a stopped process cannot).
        watchSilence();
        return { type: 'leased' };
      case 'release':
        clearInterval(watch);
        lease?.release();
        lease = undefined;
        ended = undefined;
        return { type: 'released' };
      case 'health':
        return { type: 'health', health: await hooks.health() };
      case 'board_lease':
        return { type: 'board_lease', ...(await board.boardLease(request.request)) };
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
