/**
 * A board held by another process, as a JobTarget: jobs, leases and health go over the owner's
 * board socket. Each job takes a connection from a small pool; a lease keeps one connection for
 * itself until it is released. Cancelling hangs the connection up, which the owner takes as
 * "stop it". When the owner goes away, calls fail with `disconnected` and `onLost` is told.
 */
import type { BoardCallOptions, BoardHealth, JobKind, JobLease, JobTarget } from '../board.js';
import type { BoardLeaseAnswer, BoardLeaseRequest } from '../boardLeases.js';
import { DeviceError, type DeviceErrorCode } from '../errors.js';
import { FrameClient } from '../frameClient.js';
import { aliveNotice, SHARE_PROTOCOL, type ShareResponse, shareResponse } from './protocol.js';

type Welcome = Extract<ShareResponse, { type: 'welcome' }>;

export interface RemoteBoardOptions {
  path: string;
  /** Names this process to the owner, e.g. `jumperless-mcp stdio`. */
  client: string;
  /** Called once when the owner is gone (its socket closed or refuses us). */
  onLost(reason: DeviceError): void;
  /** Idle connections kept. Default 4. */
  poolSize?: number;
}

const CODES = new Set<string>([
  'not_found',
  'busy',
  'disconnected',
  'timeout',
  'python_error',
  'protocol',
  'no_repl',
  'canceled',
  'invalid_code',
]);

export class RemoteBoard implements JobTarget {
  private idle: FrameClient[] = [];
  private watch: FrameClient | undefined;
  private welcome: Welcome | undefined;
  private lost = false;

  private constructor(
    readonly id: string,
    private readonly options: RemoteBoardOptions,
  ) {}

  /** Connects and says hello; rejects when nobody answers at the path (ENOENT, ECONNREFUSED). */
  static async connect(id: string, options: RemoteBoardOptions): Promise<RemoteBoard> {
    const remote = new RemoteBoard(id, options);
    const { channel, welcome } = await remote.open();
    remote.welcome = welcome;
    remote.watch = channel;
    // The first connection stays open only to learn when the owner goes.
    void channel.closed().then(() => remote.loseOwner('the owner closed its socket'));
    return remote;
  }

  get owner(): Welcome['owner'] {
    return (this.welcome as Welcome).owner;
  }

  run(kind: JobKind, code: string, options: BoardCallOptions): Promise<unknown> {
    return this.job(kind, code, options);
  }

  async boardLease(request: BoardLeaseRequest): Promise<BoardLeaseAnswer> {
    const answer = (await this.request({ type: 'board_lease', request })) as Extract<
      ShareResponse,
      { type: 'board_lease' }
    >;
    return answer.lease ? { lease: answer.lease } : {};
  }

  async health(): Promise<BoardHealth> {
    const answer = (await this.request({ type: 'health' })) as Extract<ShareResponse, { type: 'health' }>;
    const health = answer.health as unknown as BoardHealth;
    return { ...health, ...(health.sharing ? { sharing: { ...health.sharing, role: 'client' } } : {}) };
  }

  async lease(owner: string, signal?: AbortSignal): Promise<JobLease> {
    const channel = await this.take();
    // The owner ends a lease whose connection falls silent: this process says it is alive as long
    // as it runs (a process stopped with Ctrl-Z cannot, and loses the lease).
    const alive = setInterval(() => {
      if (!channel.socket.destroyed) channel.send(aliveNotice);
    }, this.welcome?.alive_ms ?? 1000);
    alive.unref();
    const hangUp = () => channel.close();
    signal?.addEventListener('abort', hangUp, { once: true });
    let released = false;
    try {
      await this.exchange(channel, { type: 'lease', owner }, signal);
    } catch (error) {
      clearInterval(alive);
      signal?.removeEventListener('abort', hangUp);
      channel.close();
      throw error;
    }
    channel.socket.once('close', () => clearInterval(alive));
    return {
      run: (kind, code, call) =>
        released
          ? Promise.reject(new DeviceError('canceled', 'a job was sent after its board lease ended'))
          : this.job(kind, code, { ...call, owner }, channel),
      get released() {
        return released;
      },
      release: () => {
        if (released) return;
        released = true;
        clearInterval(alive);
        signal?.removeEventListener('abort', hangUp);
        void this.exchange(channel, { type: 'release' }).then(
          () => this.give(channel),
          () => channel.close(),
        );
      },
    };
  }

  /**
   * The owner's resets are not told over the board socket: what tools saw stays a hint there (a
   * tool checks it on the board); a new owner clears it (shared.ts).
   */
  onStale(): () => void {
    return () => {};
  }

  close(): void {
    this.lost = true;
    for (const channel of [this.watch, ...this.idle.splice(0)]) channel?.close();
  }

  private async job(
    kind: JobKind,
    code: string,
    options: BoardCallOptions = {},
    leased?: FrameClient,
  ): Promise<unknown> {
    const answer = await this.request(
      {
        type: 'job',
        kind,
        code,
        owner: options.owner ?? 'anonymous',
        ...(options.timeoutMs ? { timeout_ms: Math.ceil(options.timeoutMs) } : {}),
      },
      options,
      leased,
    );
    return (answer as Extract<ShareResponse, { type: 'done' }>).value;
  }

  /** One request on a pooled connection (or the lease's own), cancelled by hanging it up. */
  private async request(message: unknown, options: BoardCallOptions = {}, leased?: FrameClient) {
    const channel = leased ?? (await this.take());
    const signal = options.signal;
    const hangUp = () => channel.close();
    if (signal && !leased) signal.addEventListener('abort', hangUp, { once: true });
    try {
      const answer = await this.exchange(channel, message, signal);
      if (!leased) this.give(channel);
      return answer;
    } catch (error) {
      if (!leased) channel.close();
      throw error;
    } finally {
      if (signal && !leased) signal.removeEventListener('abort', hangUp);
    }
  }

  private async exchange(
    channel: FrameClient,
    message: unknown,
    signal?: AbortSignal,
  ): Promise<ShareResponse> {
    if (signal?.aborted) throw canceled();
    let raw: unknown;
    try {
      raw = await channel.request(message);
    } catch {
      if (signal?.aborted) throw canceled();
      const gone = this.ownerGone(
        'the connection to the owner closed while a job ran (it may or may not have run)',
      );
      // The owner may have run the job before it went: never a plain retry.
      if ((message as { type?: unknown }).type !== 'job') throw gone;
      throw new DeviceError(gone.code, gone.message, { ...gone.details, mayHaveRun: true });
    }
    const parsed = shareResponse.safeParse(raw);
    if (!parsed.success) throw new DeviceError('protocol', 'the board owner answered out of protocol');
    if (parsed.data.type === 'failed') {
      const { code, message: text, details } = parsed.data.error;
      throw new DeviceError((CODES.has(code) ? code : 'protocol') as DeviceErrorCode, text, details ?? {});
    }
    return parsed.data;
  }

  private async take(): Promise<FrameClient> {
    if (this.lost) throw this.ownerGone('the owner went away');
    const idle = this.idle.pop();
    if (idle) return idle;
    try {
      return (await this.open()).channel;
    } catch (error) {
      throw this.ownerGone(
        `cannot reach the owner (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }

  private give(channel: FrameClient): void {
    if (!this.lost && this.idle.length < (this.options.poolSize ?? 4)) this.idle.push(channel);
    else channel.close();
  }

  private async open(): Promise<{ channel: FrameClient; welcome: Welcome }> {
    const channel = await FrameClient.connect(this.options.path);
    try {
      const answer = shareResponse.parse(
        await channel.request({
          type: 'hello',
          protocol: SHARE_PROTOCOL,
          client: this.options.client,
          pid: process.pid,
        }),
      );
      if (answer.type === 'failed') throw new Error(answer.error.message);
      if (answer.type !== 'welcome') throw new Error('no welcome');
      return { channel, welcome: answer };
    } catch (error) {
      channel.close();
      throw error;
    }
  }

  private ownerGone(why: string): DeviceError {
    const error = new DeviceError(
      'disconnected',
      `${this.id}: ${why}; another process takes the board over, retry`,
      {
        port: this.id,
        owner: this.welcome?.owner.pid,
      },
    );
    this.loseOwner(why);
    return error;
  }

  private loseOwner(why: string): void {
    if (this.lost) return;
    this.lost = true;
    for (const channel of this.idle.splice(0)) channel.close();
    this.watch?.close();
    this.options.onLost(new DeviceError('disconnected', `${this.id}: ${why}`));
  }
}

const canceled = () => new DeviceError('canceled', 'the call was canceled');
