/**
 * Connecting to the board and getting it back: the first connect (one session per board in this
 * process), and after a lost link, reopening with backoff while jobs that may wait do.
 */
import { asDeviceError, DeviceError } from './errors.js';
import type { SessionState, SessionStats } from './health.js';
import { closedError } from './jobErrors.js';
import type { HelperPrimer } from './priming.js';
import type { Recovery } from './recovery.js';
import type { SessionCore } from './sessionTypes.js';

/** What the connection needs of the session it belongs to. */
export interface ConnectionHost {
  readonly state: SessionState;
  setState(state: SessionState): void;
  /** Before a job: raw mode, a clean line and the helper, each only when needed. */
  prepare(): Promise<void> | undefined;
  /** Fails the queued jobs that were not asked to wait for the board to come back. */
  failUnwaiting(error: DeviceError): void;
  /** Starts the queue unless it already runs. */
  kick(): void;
}

/** Boards held by a session in this process, by link id: one owner per board. */
const owners = new Map<string, Connection>();

export class Connection {
  private connecting: Promise<void> | undefined;
  private wakeReconnect: (() => void) | undefined;
  private disconnectedAt: number | undefined;
  private reconnectAttempts = 0;

  constructor(
    private readonly core: SessionCore,
    private readonly primer: HelperPrimer,
    private readonly recovery: Recovery,
    private readonly stats: SessionStats,
    private readonly host: ConnectionHost,
  ) {}

  /** The session's `connect()`: one first connect at a time, shared by whoever asks meanwhile. */
  connect(): Promise<void> {
    if (this.host.state === 'ready') return Promise.resolve();
    if (this.host.state === 'closed') return Promise.reject(closedError());
    this.connecting ??= this.firstConnect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /** The session closed: cut the backoff wait short; the loop then sees `closed` and ends. */
  stopReconnect(): void {
    this.wakeReconnect?.();
  }

  /** After the link is closed for good: another session in this process may have the board. */
  release(): void {
    if (owners.get(this.core.link.id) === this) owners.delete(this.core.link.id);
  }

  private async firstConnect(): Promise<void> {
    const { link } = this.core;
    const owner = owners.get(link.id);
    if (owner && owner !== this) {
      throw new DeviceError(
        'busy',
        `${link.id} is busy: another session in this process (pid ${process.pid}) holds it`,
        {
          port: link.id,
          holders: [{ pid: process.pid, command: 'this process' }],
        },
      );
    }
    owners.set(link.id, this);
    this.host.setState('connecting');
    try {
      await this.establish();
      this.host.setState('ready');
    } catch (error) {
      if (owners.get(link.id) === this) owners.delete(link.id);
      await link.close().catch(() => {});
      if (this.host.state === 'connecting') this.host.setState('idle');
      throw asDeviceError(error, 'not_found', `cannot connect to ${link.id}`);
    }
  }

  private async establish(): Promise<void> {
    const { link, driver, options } = this.core;
    await link.close();
    await link.open();
    driver.resetCapabilities();
    this.primer.forget();
    this.stats.info = {};
    // Via friendly mode, so the board prints its banner: firmware and MicroPython versions.
    await driver.enterRaw(options.connectTimeoutMs, { banner: true });
    // Old replies (a script the last host left running) may still be on the line.
    this.recovery.needsRaw = false;
    this.recovery.needsSync = true;
    await this.host.prepare();
  }

  onLinkLost(reason: DeviceError): void {
    // During recovery the failing step reports the loss itself.
    if (!this.recovery.recovering) this.loseLink(reason);
  }

  /** The link is gone: fail what cannot wait, then reopen with backoff. */
  loseLink(reason: DeviceError): void {
    if (this.host.state !== 'ready') return;
    this.core.driver.abandon(reason);
    this.startReconnect(reason);
  }

  startReconnect(reason: DeviceError): void {
    if (this.host.state === 'reconnecting' || this.host.state === 'closed') return;
    this.stats.noteError(reason);
    this.disconnectedAt = Date.now();
    this.reconnectAttempts = 0;
    this.host.setState('reconnecting');
    this.host.failUnwaiting(this.disconnectedError());
    void this.reconnectLoop();
  }

  private async reconnectLoop(): Promise<void> {
    const { link, options } = this.core;
    let delay = options.reconnectDelayMs.initial;
    while (this.host.state === 'reconnecting') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wakeReconnect = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeReconnect = undefined;
      if (this.host.state !== 'reconnecting') return;
      this.reconnectAttempts++;
      try {
        await this.establish();
      } catch (error) {
        await link.close().catch(() => {});
        this.stats.noteError(asDeviceError(error, 'disconnected', 'reconnect failed'));
        delay = Math.min(delay * 2, options.reconnectDelayMs.max);
        continue;
      }
      if (this.host.state !== 'reconnecting') return; // closed meanwhile
      this.stats.reconnects++;
      this.disconnectedAt = undefined;
      owners.set(link.id, this);
      this.host.setState('ready');
      this.host.kick();
    }
  }

  disconnectedError(why = 'it is reconnecting'): DeviceError {
    const { link } = this.core;
    const since = this.disconnectedAt ? ` since ${new Date(this.disconnectedAt).toISOString()}` : '';
    const last = this.stats.lastError ? ` (last error: ${this.stats.lastError.message})` : '';
    return new DeviceError(
      'disconnected',
      `${link.id} is disconnected${since}; ${why}${last}. Retry later, or pass waitForConnectionMs to wait.`,
      { port: link.id, reconnectAttempts: this.reconnectAttempts },
    );
  }
}
