/**
 * The network links against Debian's ser2net on loopback, exporting a real pseudo-terminal: RFC
 * 2217 (`rfc2217://`, ser2net's telnet(rfc2217) accepter) and raw TCP (`socket://`, its tcp
 * accepter). Behind the pty is the far end a board would be (a TCP socket here, through the pty
 * bridge), so each test sees exactly the bytes a board would get. Only a physical board's modem
 * lines cannot be seen here: a pty has no DTR.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDelayProxy } from '../../test/support/delayProxy.js';
import { PTY_MISSING } from '../../test/support/ptyAvailable.js';
import { type PtyToPort, ptyToPort } from '../../test/support/ptyToPort.js';
import { SER2NET_MISSING, type Ser2net, startSer2net } from '../../test/support/ser2net.js';
import { createLink } from './deviceUrl.js';
import type { DeviceError } from './errors.js';
import type { DeviceLink } from './link.js';
import { rfc2217Link } from './rfc2217Link.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean, what: string, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (check()) return;
    await delay(10);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Where the board would be: the far side of the pty that ser2net exports. The bridge connects here
 * while ser2net has the pty open, so each client of ser2net makes a new connection.
 */
class FarEnd {
  received: Buffer = Buffer.alloc(0);
  socket: Socket | undefined;
  private readonly server: Server;
  private pty: PtyToPort | undefined;

  private constructor() {
    this.server = createServer((socket) => {
      this.socket = socket;
      socket.on('data', (chunk) => {
        this.received = Buffer.concat([this.received, chunk]);
      });
      socket.on('error', () => {});
    });
  }

  static async start(path: string): Promise<FarEnd> {
    const far = new FarEnd();
    await new Promise<void>((listening) => far.server.listen(0, '127.0.0.1', listening));
    const { port } = far.server.address() as AddressInfo;
    far.pty = await ptyToPort(path, port);
    return far;
  }

  /** Writes once the bridge is connected (it connects when ser2net has opened the pty). */
  async send(bytes: Uint8Array): Promise<void> {
    await waitFor(() => this.socket !== undefined && !this.socket.destroyed, 'the bridge to connect');
    this.socket?.write(bytes);
  }

  async stop(): Promise<void> {
    this.pty?.stop();
    this.socket?.destroy();
    await new Promise((closed) => this.server.close(closed));
  }
}

/** Collects what a link delivers. */
function reader(link: DeviceLink): { bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  link.onData((chunk) => chunks.push(Buffer.from(chunk)));
  return { bytes: () => Buffer.concat(chunks) };
}

const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

function randomBytes(length: number, seed: number): Buffer {
  let state = seed;
  return Buffer.from(
    Array.from({ length }, () => {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      return state % 7 === 0 ? 0xff : state & 0xff;
    }),
  );
}

describe.skipIf(SER2NET_MISSING !== undefined || PTY_MISSING !== undefined)(
  'network links through ser2net',
  () => {
    let dir: string;
    let far: FarEnd;
    let ser2net: Ser2net;
    let rfcPort: number;
    let rawPort: number;
    let missingPort: number;
    const links: DeviceLink[] = [];

    const open = async (url: string): Promise<DeviceLink> => {
      const link = await createLink(url);
      links.push(link);
      return link;
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'jl-ser2net-link-'));
      const device = join(dir, 'ttyBoard');
      far = await FarEnd.start(device);
      ser2net = await startSer2net([
        { protocol: 'rfc2217', device },
        { protocol: 'raw', device },
        { protocol: 'rfc2217', device: join(dir, 'no-such-tty') },
      ]);
      [rfcPort = 0, rawPort = 0, missingPort = 0] = ser2net.ports;
    });

    afterEach(async () => {
      for (const link of links.splice(0)) await link.close();
      // ser2net lets go of the pty after the client leaves; the next test starts clean.
      await delay(50);
      far.received = Buffer.alloc(0);
    });

    afterAll(async () => {
      await ser2net?.stop();
      await far?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('opens over RFC 2217 and the board gets only what the link was given', async () => {
      const link = await open(`rfc2217://127.0.0.1:${rfcPort}`);
      await link.open();
      // ser2net has taken every negotiation byte by now (it confirmed the line settings).
      link.write(Buffer.from('first'));
      await waitFor(() => far.received.length >= 5, 'the first bytes');
      expect(far.received.toString('latin1')).toBe('first');
    });

    it.each(['rfc2217', 'socket'])('carries all 256 byte values both ways over %s://', async (scheme) => {
      const link = await open(`${scheme}://127.0.0.1:${scheme === 'rfc2217' ? rfcPort : rawPort}`);
      const got = reader(link);
      await link.open();
      link.write(ALL_BYTES);
      await waitFor(() => far.received.length >= 256, 'the bytes at the board');
      expect(far.received).toEqual(ALL_BYTES);
      await far.send(ALL_BYTES);
      await waitFor(() => got.bytes().length >= 256, 'the bytes from the board');
      expect(got.bytes()).toEqual(ALL_BYTES);
    });

    it('carries 64 KiB with many 0xFF both ways over RFC 2217, whole and in order', async () => {
      const link = await open(`rfc2217://127.0.0.1:${rfcPort}`);
      const got = reader(link);
      await link.open();
      const out = randomBytes(64 * 1024, 1);
      for (let at = 0; at < out.length; at += 1000) link.write(out.subarray(at, at + 1000));
      await waitFor(() => far.received.length >= out.length, 'the upload', 15_000);
      expect(far.received.equals(out)).toBe(true);
      const back = randomBytes(64 * 1024, 2);
      await far.send(back);
      await waitFor(() => got.bytes().length >= back.length, 'the download', 15_000);
      expect(got.bytes().equals(back)).toBe(true);
      // The link acknowledged each piece of the download with a telnet NOP: ser2net dropped them.
      await delay(100);
      expect(far.received.equals(out)).toBe(true);
    });

    it('refuses a second client with max-connections 1: busy over RFC 2217, a quoted hang-up over a raw port', async () => {
      const first = await open(`rfc2217://127.0.0.1:${rfcPort}`);
      await first.open();
      const second = await open(`rfc2217://127.0.0.1:${rfcPort}`);
      await expect(second.open()).rejects.toMatchObject({
        code: 'busy',
        message: expect.stringMatching(/the server said "Port('s device)? already in use"/),
      });
      await first.close();
      // ser2net frees the device a few milliseconds after its client leaves; until then its other
      // accepters on the same device answer "Port's device already in use".
      await delay(100);

      const rawFirst = await open(`socket://127.0.0.1:${rawPort}`);
      await rawFirst.open();
      const rawSecond = await open(`socket://127.0.0.1:${rawPort}`);
      const closed = new Promise<DeviceError>((resolve) => rawSecond.onClose(resolve));
      const said = reader(rawSecond);
      // A raw port cannot tell a refusal from data: it opens, hears one line, and hangs up.
      await rawSecond.open();
      const reason = await closed;
      expect(reason).toMatchObject({ code: 'disconnected' });
      // ser2net 4.3 words it "Port already in use", or "Port's device already in use" when the
      // device behind the port is open through another of its connections.
      expect(reason.message).toMatch(
        new RegExp(
          `^tcp://127\\.0\\.0\\.1:${rawPort} disconnected: the server closed the connection, saying "Port('s device)? already in use"$`,
        ),
      );
      expect(said.bytes().toString()).toMatch(/^Port('s device)? already in use\r\n$/);
      // The first client's board saw none of it.
      rawFirst.write(Buffer.from('still mine'));
      await waitFor(() => far.received.length >= 10, 'the first client bytes');
      expect(far.received.toString()).toBe('still mine');
    });

    it('measures the round trip through the exporter when it opens', async () => {
      const near = await open(`rfc2217://127.0.0.1:${rfcPort}`);
      expect(near.roundTripMs).toBeUndefined();
      await near.open();
      expect(near.roundTripMs).toBeGreaterThanOrEqual(0);
      await near.close();
      await delay(50);
      // 40 ms each way: the settings and their confirmations cross it once each.
      const hop = await startDelayProxy(rfcPort, 40);
      try {
        const far = await open(`rfc2217://127.0.0.1:${hop.port}`);
        await far.open();
        expect(far.roundTripMs).toBeGreaterThanOrEqual(80);
        await far.close();
      } finally {
        await hop.close();
      }
      const raw = await open(`socket://127.0.0.1:${rawPort}`);
      await raw.open();
      expect(raw.roundTripMs).toBeGreaterThanOrEqual(0);
    });

    it('says what the exporter said when it cannot open the device', async () => {
      const link = await open(`rfc2217://127.0.0.1:${missingPort}`);
      await expect(link.open()).rejects.toMatchObject({
        code: 'not_found',
        message: expect.stringMatching(
          /closed the connection during the RFC 2217 handshake, saying "Device open failure/,
        ),
      });
    });

    it('never writes telnet into a raw port: rfc2217:// at a raw port fails and sends nothing', async () => {
      const link = rfc2217Link('127.0.0.1', rawPort, { handshakeTimeoutMs: 300 });
      links.push(link);
      await expect(link.open()).rejects.toMatchObject({
        code: 'not_found',
        message: expect.stringContaining('sent no telnet negotiation within 300 ms'),
      });
      await delay(100);
      expect(far.received.length).toBe(0);
    });

    it('reports the exporter dying as a disconnect, and opens again once it is back', async () => {
      const link = await open(`rfc2217://127.0.0.1:${rfcPort}`);
      const got = reader(link);
      await link.open();
      const lost = new Promise<DeviceError>((resolve) => link.onClose(resolve));
      await ser2net.kill();
      let restarted = false;
      try {
        // SIGKILL closes ser2net's socket with a FIN ("the server closed the connection"), or with a
        // reset when bytes were still unread there (seen on a busy machine): a disconnect either way.
        expect(await lost).toMatchObject({
          code: 'disconnected',
          message: expect.stringMatching(new RegExp(`^rfc2217://127\\.0\\.0\\.1:${rfcPort} disconnected`)),
        });
        expect(link.isOpen).toBe(false);
        await expect(link.open()).rejects.toMatchObject({ code: 'not_found' });
        await ser2net.start();
        restarted = true;
      } finally {
        // Whatever failed, the exporter is back for the next test (and a retry of this one).
        if (!restarted) await ser2net.start();
      }
      await link.open();
      await far.send(Buffer.from('back'));
      await waitFor(() => got.bytes().includes('back'), 'bytes after the restart');
      link.write(Buffer.from('again'));
      await waitFor(() => far.received.includes('again'), 'bytes to the board after the restart');
    });
  },
);
