/**
 * A board whose serial port is exported over RFC 2217 (telnet COM-PORT option) as a DeviceLink:
 * ser2net's `telnet(rfc2217)` accepter, which is also what a labgrid exporter runs for a
 * `NetworkSerialPort`. The framing and the handshake are rfc2217.ts; this file is the socket.
 *
 * `open()` resolves once the server has confirmed 115200 8N1 (DTR and RTS raised, as a local
 * port opens), so the session's first byte goes to the board on a configured line. Nothing is
 * written before the server has spoken telnet, and the session's bytes are the only data the
 * board gets: negotiation is telnet commands, which the exporter consumes.
 */
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { DeviceError } from './errors.js';
import { type DeviceLink, streamLink } from './link.js';
import { ComPortClient, TELNET_NOP } from './rfc2217.js';
import { SERIAL_BAUD } from './serialLink.js';
import { connectTcp, hangUpReason, networkId, ServerWords } from './tcpLink.js';

/** From connect to the confirmed line settings; ser2net needs a round trip or two. */
const HANDSHAKE_TIMEOUT_MS = 3000;

export interface Rfc2217Options {
  handshakeTimeoutMs?: number;
}

export function rfc2217Link(host: string, port: number, options: Rfc2217Options = {}): DeviceLink {
  const id = networkId('rfc2217', host, port);
  const timeoutMs = options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS;
  return streamLink(id, {
    connect: async () => {
      const stream = new ComPortStream(await connectTcp(id, host, port), id);
      await stream.handshake(timeoutMs);
      return stream;
    },
    lossReason: (stream) => (stream instanceof ComPortStream ? stream.lossReason() : undefined),
    roundTripMs: (stream) => (stream instanceof ComPortStream ? stream.roundTripMs : undefined),
  });
}

/**
 * The board's byte stream over one RFC 2217 connection: reads are the server's data with telnet
 * taken out, writes go out escaped. Writes wait while the server has suspended flow.
 */
class ComPortStream extends Duplex {
  readonly client = new ComPortClient({ baud: SERIAL_BAUD });
  private readonly said = new ServerWords();
  private held: Buffer[] = [];
  private serverEnded = false;
  private serverGone = false;
  private settle: (() => void) | undefined;
  private settingsSentAt: number | undefined;
  /** From sending the line settings to the server's last confirmation: one round trip through the exporter. */
  roundTripMs: number | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly id: string,
  ) {
    super();
    socket.on('data', (chunk: Buffer) => this.fromServer(chunk));
    socket.on('end', () => {
      this.serverEnded = true;
      this.gone();
    });
    socket.on('close', () => this.gone());
    socket.on('error', (error) => {
      this.serverGone = true;
      this.destroy(error);
    });
  }

  /** Resolves when the line is configured; rejects (and closes) when the server will not do. */
  handshake(timeoutMs: number): Promise<void> {
    if (this.client.phase === 'ready') return Promise.resolve();
    // Until the link takes the stream, a socket error (EPIPE from a server that hung up while we
    // answered its greeting) ends the handshake instead of crashing the process.
    const quiet = () => this.settle?.();
    this.on('error', quiet);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(this.stalled(timeoutMs)), timeoutMs);
      const fail = (error: DeviceError) => {
        this.settle = undefined;
        clearTimeout(timer);
        this.destroy();
        reject(error);
      };
      this.settle = () => {
        if (this.client.phase === 'ready') {
          this.settle = undefined;
          clearTimeout(timer);
          this.off('error', quiet);
          resolve();
        } else if (this.client.phase === 'refused') {
          fail(this.notComPort());
        } else if (this.serverGone || this.destroyed) {
          fail(this.refusedConnection());
        }
      };
    });
  }

  lossReason(): string | undefined {
    return hangUpReason(this.serverEnded, this.said);
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const bytes = this.client.encodeData(chunk);
    if (this.client.server.suspended || this.held.length > 0) this.held.push(bytes);
    else this.socket.write(bytes);
    // The socket buffers; waiting for its callback would hold the next write (a Ctrl-C) back.
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.socket.end();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.socket.destroy();
    callback(error);
    this.settle?.();
  }

  private fromServer(chunk: Buffer): void {
    const before = this.client.phase;
    const { data, send } = this.client.push(chunk);
    for (const bytes of send) this.socket.write(bytes);
    if (before !== this.client.phase) {
      if (this.client.phase === 'configuring') this.settingsSentAt = performance.now();
      if (this.client.phase === 'ready' && this.settingsSentAt !== undefined) {
        this.roundTripMs = performance.now() - this.settingsSentAt;
      }
    }
    for (const bytes of data) {
      this.said.add(bytes);
      this.push(bytes);
    }
    // Acknowledge what the server sent at once, with a telnet no-op. ser2net's accepter without
    // `tcp(nodelay)` (labgrid's exporter writes it so) holds each further small write until the
    // last one is acknowledged, and this side delays a bare ACK by up to 40 ms: a tool call then
    // took 45 ms instead of 5, and the handshake's four confirmations 40 ms more (bench/links.ts).
    // The NOP carries the ACK; ser2net drops the NOP. Not before the server has spoken telnet.
    const phase = this.client.phase;
    if (send.length === 0 && (phase === 'configuring' || phase === 'ready')) this.socket.write(TELNET_NOP);
    if (!this.client.server.suspended && this.held.length > 0) {
      for (const bytes of this.held) this.socket.write(bytes);
      this.held = [];
    }
    this.settle?.();
  }

  /**
   * The server hung up: end the stream once what it sent before is read (the link then reports
   * the loss, with what the server said, through `lossReason`).
   */
  private gone(): void {
    if (this.serverGone) return;
    this.serverGone = true;
    this.push(null);
    this.settle?.();
  }

  private stalled(timeoutMs: number): DeviceError {
    const phase = this.client.phase;
    if (phase === 'greeting') {
      return new DeviceError(
        'not_found',
        `${this.id} sent no telnet negotiation within ${timeoutMs} ms: if it is a raw TCP port (ser2net accepter "tcp,PORT"), use socket://host:port; an RFC 2217 server must open the negotiation, as ser2net does`,
        { port: this.id, phase },
      );
    }
    return new DeviceError(
      'not_found',
      `${this.id} did not confirm the line settings (115200 8N1) within ${timeoutMs} ms (${phase})`,
      { port: this.id, phase },
    );
  }

  private notComPort(): DeviceError {
    const quote = this.said.quote();
    return new DeviceError(
      'not_found',
      `${this.id} is not an RFC 2217 port: ${this.client.refusal}${quote ? `; it said "${quote}"` : ''}. For a raw TCP port use socket://host:port; for ser2net, give the port the accepter "telnet(rfc2217),tcp,PORT"`,
      { port: this.id },
    );
  }

  private refusedConnection(): DeviceError {
    const quote = this.said.quote();
    // ser2net answers "Port already in use" when max-connections clients are connected.
    if (quote && /in use/i.test(quote)) {
      return new DeviceError(
        'busy',
        `${this.id} is busy: the server said "${quote}" (another client holds the board; ser2net allows max-connections clients per port)`,
        { port: this.id, said: quote },
      );
    }
    return new DeviceError(
      'not_found',
      `${this.id} closed the connection during the RFC 2217 handshake${quote ? `, saying "${quote}"` : ''}`,
      { port: this.id, ...(quote ? { said: quote } : {}) },
    );
  }
}
