/**
 * serialLink on real pseudo-terminals: two ptys, each made by the pty bridge (socat or python3,
 * src/sim/ptyBridge.ts) and joined through a TCP relay here, so bytes written to one come out of
 * the other. Bytes, ownership and disconnects.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PTY_MISSING } from '../../test/support/ptyAvailable.js';
import { ptyBridge } from '../sim/ptyBridge.js';
import type { DeviceError } from './errors.js';
import type { DeviceLink } from './link.js';
import { serialLink } from './serialLink.js';

let dir: string;
let bridges: ChildProcess[];
let relay: Server;
let children: ChildProcess[];
let links: DeviceLink[];

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (check()) return;
    await delay(10);
  }
  throw new Error(`timed out waiting for ${what}`);
}

function link(path: string): DeviceLink {
  const made = serialLink(path);
  links.push(made);
  return made;
}

/** Two ptys, `a` and `b`, joined: a relay pairs the bridges' two TCP connections. */
async function joinedPtys(): Promise<void> {
  const bridge = ptyBridge();
  if ('missing' in bridge) throw new Error(bridge.missing);
  const sockets: Socket[] = [];
  relay = createServer((socket) => {
    sockets.push(socket);
    const [first, second] = sockets;
    if (first && second) {
      first.pipe(second);
      second.pipe(first);
    }
  });
  await new Promise<void>((listening) => relay.listen(0, '127.0.0.1', listening));
  const { port } = relay.address() as AddressInfo;
  bridges = ['a', 'b'].map((name) =>
    spawn(bridge.command, bridge.args(join(dir, name), port), { stdio: 'ignore' }),
  );
  children.push(...bridges);
  await waitFor(() => existsSync(join(dir, 'a')) && existsSync(join(dir, 'b')), 'the ptys');
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'jl-serial-'));
  children = [];
  links = [];
  await joinedPtys();
});

afterEach(async () => {
  for (const made of links) await made.close();
  for (const child of children) if (child.exitCode === null) child.kill();
  await new Promise((closed) => relay.close(closed));
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(PTY_MISSING !== undefined)('serialLink', () => {
  it('carries bytes both ways', async () => {
    const a = link(join(dir, 'a'));
    const b = link(join(dir, 'b'));
    await a.open();
    await b.open();
    const received: Buffer[] = [];
    b.onData((chunk) => received.push(chunk));
    a.write(Buffer.from('hello \x00\x03\xff'));
    await waitFor(() => Buffer.concat(received).length === 10, 'bytes');
    expect(Buffer.concat(received)).toEqual(Buffer.from('hello \x00\x03\xff'));
  });

  it('refuses a second owner in this process', async () => {
    await link(join(dir, 'a')).open();
    const error = (await link(join(dir, 'a'))
      .open()
      .catch((e) => e)) as DeviceError;
    expect(error).toMatchObject({
      code: 'busy',
      message: expect.stringContaining(`this process (pid ${process.pid})`),
    });
  });

  it('names another process that holds the port', async () => {
    // Another program with the port open and locked, as serialport and pyserial (exclusive) do.
    const script = `import('serialport').then(({ SerialPort }) => { new SerialPort({ path: process.argv[1], baudRate: 115200 }, (e) => process.stdout.write(e ? 'error' : 'open')); setInterval(() => {}, 1000); })`;
    const holder = spawn(process.execPath, ['-e', script, join(dir, 'a')], {
      cwd: process.cwd(),
      stdio: 'pipe',
    });
    children.push(holder);
    let said = '';
    holder.stdout?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
    });
    await waitFor(() => said !== '', 'the holder to open the pty');
    expect(said).toBe('open');
    const error = (await link(join(dir, 'a'))
      .open()
      .catch((e) => e)) as DeviceError;
    expect(error.code).toBe('busy');
    expect(error.details.holders).toContainEqual({
      pid: holder.pid,
      command: expect.stringContaining('serialport'),
    });
    expect(error.message).toContain(`pid ${holder.pid} (`);
  });

  it('reports a missing port as not found', async () => {
    await expect(link(join(dir, 'nothing')).open()).rejects.toMatchObject({ code: 'not_found' });
  });

  it('signals a disconnect when the other side goes away, and can reopen', async () => {
    const a = link(join(dir, 'a'));
    await a.open();
    const lost: DeviceError[] = [];
    a.onClose((reason) => lost.push(reason));
    for (const bridge of bridges) bridge.kill();
    await delay(100);
    // A pty may report its hangup only on the next write (a USB port reports it on read too).
    if (a.isOpen) a.write(Buffer.from('anyone there?'));
    await waitFor(() => lost.length === 1, 'the disconnect');
    expect(lost[0]).toMatchObject({ code: 'disconnected' });
    expect(a.isOpen).toBe(false);
    expect(() => a.write(Buffer.from('x'))).toThrow(/not open/);
    await expect(a.open()).rejects.toMatchObject({ code: 'not_found' });
  });
});
