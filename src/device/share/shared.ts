/**
 * One owner per board, across processes. A SharedBoard is the board as this process sees it:
 * when another jumperless-mcp already holds the port, every job goes through that owner's board
 * socket; otherwise this process opens the port itself and serves it there. The serial port's
 * lock decides who owns: only the process that opened the port listens, and it replaces a socket
 * file a crashed owner left behind. When the owner goes, the processes working through it race
 * for the port; the winner serves it, the others connect to the winner.
 */
import type { BoardCallOptions, BoardHealth, JobKind, JobLease, JobTarget } from '../board.js';
import type { BoardLeaseAnswer, BoardLeaseRequest } from '../boardLeases.js';
import { DeviceError, isDeviceError } from '../errors.js';
import type { DeviceSession, SessionEvent } from '../session.js';
import { SocketPathError } from '../socketPath.js';
import { type BoardShareServer, serveBoard } from './owner.js';
import { RemoteBoard } from './remote.js';

/** The board opened in this process (cli/board.ts `openBoard`): its session's jobs. */
export interface LocalBoard {
  jobs: JobTarget;
  session: DeviceSession;
  close(): Promise<void>;
}

export interface SharedBoardOptions {
  /** The board's identity (share/path.ts) and the socket its owner listens on. */
  id: string;
  path: string;
  /** What the user asked for (`/dev/ttyACM0`, `auto`), for health. */
  device: string;
  /** Names this process to an owner, e.g. `jumperless-mcp http`. */
  client: string;
  openLocal(): Promise<LocalBoard>;
  /** How long to keep trying when the port is held but nobody serves it yet. Default 5000 ms. */
  claimMs?: number;
  log?(line: string): void;
}

export type ShareEvent =
  | { type: 'owner'; device: string }
  | { type: 'client'; ownerPid: number }
  | { type: 'owner_lost'; reason: string };

type Mode =
  | { kind: 'owner'; local: LocalBoard; server: BoardShareServer }
  | { kind: 'client'; remote: RemoteBoard };

export class SharedBoard implements JobTarget {
  private mode: Mode | undefined;
  private ensuring: Promise<Mode> | undefined;
  private closed = false;
  private readonly listeners = new Set<(event: SessionEvent | ShareEvent) => void>();
  private readonly stale = new Set<() => void>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly options: SharedBoardOptions) {}

  get id(): string {
    return this.options.id;
  }

  /** `owner`, `client`, or undefined before the first job (or while taking over). */
  get role(): Mode['kind'] | undefined {
    return this.mode?.kind;
  }

  /** The session, when this process holds the port. */
  get session(): DeviceSession | undefined {
    return this.mode?.kind === 'owner' ? this.mode.local.session : undefined;
  }

  /** Session events when this process owns the board, and the changes of who owns it. */
  onEvent(listener: (event: SessionEvent | ShareEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Finds the owner or becomes it. Idempotent; rejects with the port's error (busy, not_found). */
  ready(): Promise<Mode> {
    if (this.mode) return Promise.resolve(this.mode);
    if (this.closed) return Promise.reject(new DeviceError('disconnected', 'the board is closed'));
    this.ensuring ??= this.establish().finally(() => {
      this.ensuring = undefined;
    });
    return this.ensuring;
  }

  run(kind: JobKind, code: string, options: BoardCallOptions): Promise<unknown> {
    return this.through((jobs) => jobs.run(kind, code, options));
  }

  lease(owner: string, signal?: AbortSignal): Promise<JobLease> {
    return this.through((jobs) => jobs.lease(owner, signal));
  }

  boardLease(request: BoardLeaseRequest): Promise<BoardLeaseAnswer> {
    return this.through((jobs) => jobs.boardLease(request));
  }

  /** A new owner (this process or another), and while this process holds the port, its session's resets. */
  onStale(listener: () => void): () => void {
    this.stale.add(listener);
    return () => this.stale.delete(listener);
  }

  async health(): Promise<BoardHealth> {
    const mode = await this.ready();
    if (mode.kind === 'client') return mode.remote.health();
    return { ...(await mode.local.jobs.health()), sharing: mode.server.sharing() };
  }

  async close(): Promise<void> {
    this.closed = true;
    // A takeover in flight finishes first, so the port it may have opened is closed here too.
    await this.ensuring?.catch(() => undefined);
    const mode = this.mode;
    this.mode = undefined;
    this.unsubscribe?.();
    if (mode?.kind === 'owner') {
      await mode.server.close();
      await mode.local.close();
    } else mode?.remote.close();
  }

  private async through<T>(work: (jobs: JobTarget) => Promise<T>): Promise<T> {
    const mode = await this.ready();
    return work(mode.kind === 'owner' ? mode.local.jobs : mode.remote);
  }

  private async establish(): Promise<Mode> {
    const deadline = Date.now() + (this.options.claimMs ?? 5000);
    for (;;) {
      let remote: RemoteBoard | undefined;
      remote = await RemoteBoard.connect(this.options.id, {
        path: this.options.path,
        client: this.options.client,
        onLost: (reason) => this.ownerLost(remote, reason),
      }).catch((error: unknown) => {
        // A socket or folder another user could have planted is refused, never worked around.
        if (error instanceof SocketPathError) throw error;
        return undefined;
      });
      if (remote) return this.become({ kind: 'client', remote });
      const local = await this.options.openLocal();
      try {
        await local.session.connect();
        const server = await serveBoard(local.jobs, {
          path: this.options.path,
          device: this.options.device,
          ...(this.options.log ? { log: this.options.log } : {}),
        });
        return this.become({ kind: 'owner', local, server });
      } catch (error) {
        await local.close().catch(() => undefined);
        // Held by a process that does not serve it (yet): an owner starting up, or another program.
        if (!isDeviceError(error, 'busy') || Date.now() >= deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  private become(mode: Mode): Mode {
    this.mode = mode;
    // Closed meanwhile: close() is waiting for this takeover and closes the mode just set.
    if (this.closed) throw new DeviceError('disconnected', 'the board is closed');
    this.staled();
    if (mode.kind === 'owner') {
      const stopStale = mode.local.jobs.onStale(() => this.staled());
      const stopEvents = mode.local.session.onEvent((event) => this.emit(event));
      this.unsubscribe = () => {
        stopStale();
        stopEvents();
      };
      this.emit({ type: 'owner', device: this.options.device });
    } else {
      this.emit({ type: 'client', ownerPid: mode.remote.owner.pid });
    }
    return mode;
  }

  private ownerLost(remote: RemoteBoard | undefined, reason: DeviceError): void {
    if (this.mode?.kind !== 'client' || this.mode.remote !== remote) return;
    this.mode = undefined;
    this.emit({ type: 'owner_lost', reason: reason.message });
    // Take over at once rather than at the next call, so the board is served again within moments.
    if (!this.closed)
      void this.ready().catch((error: unknown) =>
        this.options.log?.(`taking the board over failed: ${String(error)}`),
      );
  }

  private staled(): void {
    for (const listener of this.stale) listener();
  }

  private emit(event: SessionEvent | ShareEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {}
    }
  }
}
