/**
 * The byte link to one board: the contract every transport (serial, TCP, an in-process stream
 * such as the simulator's port) implements, and `streamLink`, which implements it over any Node
 * Duplex. Modelled on serialport's bindings contract (STYLE.md §8): small, with the meaning of
 * "disconnected" written down.
 */
import type { Duplex } from 'node:stream';
import { asDeviceError, DeviceError } from './errors.js';

/**
 * A reopenable byte pipe to a board.
 *
 * - `open()` resolves once bytes can flow. It rejects with a DeviceError: `not_found` (nothing
 *   there), `busy` (someone else holds it) or `disconnected`. Calling it while open is a no-op.
 *   After a disconnect the link can be opened again; listeners stay registered across reopens.
 * - `write()` queues bytes and never blocks. It throws `disconnected` when the link is not open.
 *   Write failures after that surface as a disconnect.
 * - **Disconnected** means the link stopped without `close()` being called: the stream ended,
 *   errored or was destroyed (cable pulled, board reset its USB, TCP peer gone). Every
 *   `onClose` listener is called once with a `disconnected` DeviceError; `isOpen` is false from
 *   then on. Bytes that arrived before are delivered first.
 * - `close()` is ours: it releases the port, does not call `onClose` listeners, and is idempotent.
 */
export interface DeviceLink {
  /** Names the port in messages and identifies it for one-owner-per-board checks. */
  readonly id: string;
  /** The concrete port behind it right now (for `auto`, the path it resolved to last). */
  readonly address: string;
  readonly isOpen: boolean;
  /**
   * The round trip to the far end of a network link, measured when it last opened (TCP connect,
   * or the RFC 2217 handshake through the exporter); undefined for a local port. Waits that must
   * cover the hop (an interrupt's traceback, a raw-paste window) can add it.
   */
  readonly roundTripMs?: number | undefined;
  open(): Promise<void>;
  write(bytes: Uint8Array): void;
  /** Returns an unsubscribe function. */
  onData(listener: (chunk: Buffer) => void): () => void;
  /** Returns an unsubscribe function. */
  onClose(listener: (reason: DeviceError) => void): () => void;
  close(): Promise<void>;
}

/** Where a stream link gets its stream each time it (re)opens. */
export interface StreamSource {
  /** Opens (or finds) the stream; throw a DeviceError (`not_found`, `busy`) when it cannot. */
  connect(): Promise<Duplex> | Duplex;
  /** The concrete port the last connect() opened, when it differs from the link id. */
  readonly address?: string;
  /**
   * Lets go of the stream on `close()`. Defaults to destroying it, which closes a serial port
   * or socket; an in-process port that outlives one host connection may only need detaching.
   */
  release?(stream: Duplex): void | Promise<void>;
  /**
   * Why the far end let go, when the source can tell (the line a network server sent just before
   * it hung up, such as ser2net's "Port already in use"). Added to the disconnect message.
   */
  lossReason?(stream: Duplex): string | undefined;
  /** The round trip measured when `stream` was opened, for a network source (DeviceLink.roundTripMs). */
  roundTripMs?(stream: Duplex): number | undefined;
}

/** Streams that already have a do-nothing 'error' listener (an in-process port is reused across opens). */
const swallowing = new WeakSet<Duplex>();

export function streamLink(id: string, source: StreamSource): DeviceLink {
  return new StreamLink(id, source);
}

class StreamLink implements DeviceLink {
  private stream: Duplex | undefined;
  private detach: (() => void) | undefined;
  private opening: Promise<void> | undefined;
  private readonly dataListeners = new Set<(chunk: Buffer) => void>();
  private readonly closeListeners = new Set<(reason: DeviceError) => void>();

  constructor(
    readonly id: string,
    private readonly source: StreamSource,
  ) {}

  get address(): string {
    return this.source.address ?? this.id;
  }

  get isOpen(): boolean {
    return this.stream !== undefined;
  }

  get roundTripMs(): number | undefined {
    return this.stream && this.source.roundTripMs?.(this.stream);
  }

  open(): Promise<void> {
    if (this.stream) return Promise.resolve();
    this.opening ??= this.doOpen().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async doOpen(): Promise<void> {
    let stream: Duplex;
    try {
      stream = await this.source.connect();
    } catch (error) {
      throw asDeviceError(error, 'not_found', `cannot open ${this.id}`);
    }
    if (stream.destroyed || !stream.readable) {
      throw new DeviceError('disconnected', `${this.id} closed as soon as it was opened`);
    }
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
      for (const listener of this.dataListeners) listener(bytes);
    };
    const onLost = (error?: Error) => this.lost(stream, error);
    const onError = (error: Error) => onLost(error);
    const onEnd = () => onLost();
    stream.on('data', onData);
    stream.on('error', onError);
    stream.on('end', onEnd);
    stream.on('close', onEnd);
    this.detach = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('close', onEnd);
      // Keep swallowing late errors from a stream we let go of: an unhandled 'error' would
      // crash the process.
      stream.off('error', onError);
      if (!swallowing.has(stream)) {
        swallowing.add(stream);
        stream.on('error', () => {});
      }
    };
    this.stream = stream;
  }

  private lost(stream: Duplex, error?: Error): void {
    if (this.stream !== stream) return;
    this.detach?.();
    this.detach = undefined;
    this.stream = undefined;
    // Let go of it the way the source knows (a serial port must be closed, not just destroyed).
    if (this.source.release) void Promise.resolve(this.source.release(stream)).catch(() => {});
    else if (!stream.destroyed) stream.destroy();
    const said = this.source.lossReason?.(stream);
    const why = [error?.message, said].filter(Boolean).join('; ');
    const reason = new DeviceError('disconnected', `${this.id} disconnected${why ? `: ${why}` : ''}`, {
      port: this.id,
    });
    for (const listener of this.closeListeners) listener(reason);
  }

  write(bytes: Uint8Array): void {
    const stream = this.stream;
    if (!stream) throw new DeviceError('disconnected', `${this.id} is not open`, { port: this.id });
    stream.write(bytes);
  }

  onData(listener: (chunk: Buffer) => void): () => void {
    this.dataListeners.add(listener);
    return () => this.dataListeners.delete(listener);
  }

  onClose(listener: (reason: DeviceError) => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  async close(): Promise<void> {
    await this.opening?.catch(() => {});
    const stream = this.stream;
    if (!stream) return;
    this.detach?.();
    this.detach = undefined;
    this.stream = undefined;
    if (this.source.release) await this.source.release(stream);
    else await destroyAndWait(stream);
  }
}

/** Destroys a stream and waits for 'close' (a serial port must be really closed before reopening). */
function destroyAndWait(stream: Duplex): Promise<void> {
  if (stream.closed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 1000);
    stream.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    stream.destroy();
  });
}
