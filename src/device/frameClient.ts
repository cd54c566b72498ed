/**
 * A client of a framed Unix socket (frames.ts): send a request, get the next response (both the
 * native socket and a board's share socket answer in order). The native socket's tests, the
 * parity check, a bench's socket child and the share client (share/remote.ts) use it.
 */
import { createConnection, type Socket } from 'node:net';
import { encodeFrame, FrameDecoder } from './frames.js';
import { checkSocketToConnect } from './socketPath.js';

export class FrameClient {
  private readonly decoder = new FrameDecoder();
  private readonly received: unknown[] = [];
  private readonly waiting: { resolve(value: unknown): void; reject(error: Error): void }[] = [];
  private ended: Error | undefined;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      const { messages, error } = this.decoder.push(chunk);
      for (const message of messages) this.deliver(message);
      if (error) this.finish(new Error(`bad frame from server: ${error.message}`));
    });
    socket.on('close', () => this.finish(new Error('connection closed')));
    socket.on('error', (error) => this.finish(error));
  }

  /** Refuses (SocketPathError) a socket, or a folder, that another user owns or can write. */
  static connect(path: string): Promise<FrameClient> {
    return new Promise((resolve, reject) => {
      checkSocketToConnect(path);
      const socket = createConnection(path);
      socket.once('connect', () => resolve(new FrameClient(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends one request and resolves with its response. */
  request(message: unknown): Promise<unknown> {
    this.send(message);
    return this.next();
  }

  send(message: unknown): void {
    this.socket.write(encodeFrame(message));
  }

  /** The next frame from the server, or a rejection once the connection is gone. */
  next(): Promise<unknown> {
    const ready = this.received.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** Resolves once the server has closed the connection. */
  closed(): Promise<void> {
    if (this.socket.closed) return Promise.resolve();
    return new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  close(): void {
    this.socket.destroy();
  }

  private deliver(message: unknown): void {
    const waiter = this.waiting.shift();
    if (waiter) waiter.resolve(message);
    else this.received.push(message);
  }

  private finish(error: Error): void {
    this.ended ??= error;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.ended);
  }
}
