import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { SerialPort } from 'serialport';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PTY_MISSING } from '../../test/support/ptyAvailable.js';
import { Wire } from '../../test/support/simWire.js';
import { ptyBridge } from './ptyBridge.js';
import { SimBoard } from './simBoard.js';

let board: SimBoard;
beforeEach(async () => {
  board = await SimBoard.start();
});
afterEach(async () => board.stop());

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !condition(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(condition()).toBe(true);
}

async function rawExec(wire: Wire): Promise<void> {
  wire.write('\r\x03\x03\x01');
  await wire.until('raw REPL; CTRL-B to exit\r\n>');
  expect(await wire.exec('print(sum(range(10)))')).toEqual(['45\n', '']);
}

it('serves each port over TCP', async () => {
  const ports = await board.serveTcp();
  const socket = createConnection(ports.repl, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  await rawExec(new Wire(socket));
  const back = createConnection(ports.backchannel, '127.0.0.1');
  await new Promise((resolve) => back.once('connect', resolve));
  const wire = new Wire(back);
  wire.write(':ver\r');
  // The verb line comes back echoed, then the answer (Ser3Backchannel.cpp usbSer3_readLine).
  expect(await wire.until('5.7.11.0\r\n')).toBe(':ver\r\n5.7.11.0\r\n');
  socket.destroy();
  back.destroy();
});

it.skipIf(PTY_MISSING)('gives each port a pty that serialport opens, across unplug and replug', async () => {
  const paths = await board.servePty(mkdtempSync(join(tmpdir(), 'jl-pty-')));
  const open = async () => {
    const port = new SerialPort({ path: paths.repl, baudRate: 115200 });
    await new Promise((resolve, reject) => {
      port.once('open', resolve);
      port.once('error', reject);
    });
    return port;
  };
  let serial = await open();
  await rawExec(new Wire(serial as unknown as Duplex));
  await new Promise((resolve) => serial.close(resolve));

  // The device node goes away shortly after the cable, as on a real host, and comes back.
  await board.faults.unplug();
  await until(() => !existsSync(paths.repl));
  await expect(open()).rejects.toThrow();
  await board.faults.replug();
  await until(() => existsSync(paths.repl));
  serial = await open();
  await rawExec(new Wire(serial as unknown as Duplex));
  await new Promise((resolve) => serial.close(resolve));
});

/** Connects to a TCP port and resolves with the socket and what it hears. */
async function dial(port: number): Promise<{ wire: Wire; closed: Promise<void> }> {
  const socket = createConnection(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  return { wire: new Wire(socket), closed: new Promise((resolve) => socket.once('close', () => resolve())) };
}

describe('one host at a time per port', () => {
  it('refuses a second TCP client in one line naming the holder, and lets the next one in once it left', async () => {
    const ports = await board.serveTcp();
    const refusals: unknown[] = [];
    board.on('refused', (refusal) => refusals.push(refusal));
    const first = await dial(ports.repl);
    await rawExec(first.wire);
    const second = await dial(ports.repl);
    await second.closed;
    expect(second.wire.text).toMatch(
      /^\r\njumperless-mcp sim: CDC2 MicroPython REPL is in use by a TCP client \(127\.0\.0\.1:\d+\); a port takes one host at a time, as a USB serial port does: close that one first\r\n$/,
    );
    expect(refusals).toEqual([
      {
        port: 'repl',
        refused: expect.stringMatching(/^a TCP client/),
        holder: expect.stringMatching(/^a TCP client/),
      },
    ]);
    // The first host never noticed.
    expect(await first.wire.exec('print(7)')).toEqual(['7\n', '']);
    first.wire.stream.destroy();
    await first.closed;
    const third = await dial(ports.repl);
    await rawExec(third.wire);
    third.wire.stream.destroy();
  });

  it('lets a host that reconnects at once in (its old connection may end after the new one arrives)', async () => {
    const ports = await board.serveTcp();
    for (let i = 0; i < 5; i++) {
      const socket = createConnection(ports.repl, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      const wire = new Wire(socket);
      await rawExec(wire);
      socket.destroy();
    }
  });

  it.skipIf(PTY_MISSING)(
    'with ptys: the TCP URL works every time while no program has the pty open, and the two take turns',
    async () => {
      const ports = await board.serveTcp();
      const paths = await board.servePty(mkdtempSync(join(tmpdir(), 'jl-pty-turns-')));
      // What `sim --pty` then one CLI call after another over its printed URL did (issue 24): each
      // call must find the port free.
      for (let i = 0; i < 6; i++) {
        const { wire, closed } = await dial(ports.repl);
        await rawExec(wire);
        wire.stream.destroy();
        await closed;
      }
      // A program opens the pty: the port is its until it closes it; a TCP client meanwhile is refused.
      const serial = new SerialPort({ path: paths.repl, baudRate: 115200 });
      await new Promise((resolve, reject) => {
        serial.once('open', resolve);
        serial.once('error', reject);
      });
      await rawExec(new Wire(serial as unknown as Duplex));
      const refused = await dial(ports.repl);
      await refused.closed;
      expect(refused.wire.text).toContain(`is in use by the pty ${paths.repl}`);
      await new Promise((resolve) => serial.close(resolve));
      // Closed: the TCP URL has the port again (once the bridge has let go).
      await expect
        .poll(
          async () => {
            const { wire, closed } = await dial(ports.repl);
            wire.write('\r\x03\x03\x01');
            const got = await wire.until('raw REPL; CTRL-B to exit\r\n>', 1000).catch(() => 'refused');
            wire.stream.destroy();
            await closed;
            return got === 'refused' ? 'refused' : 'served';
          },
          { timeout: 5000, interval: 100 },
        )
        .toBe('served');
      // And the pty is there for the next program.
      await until(() => existsSync(paths.repl));
      const again = new SerialPort({ path: paths.repl, baudRate: 115200 });
      await new Promise((resolve, reject) => {
        again.once('open', resolve);
        again.once('error', reject);
      });
      await rawExec(new Wire(again as unknown as Duplex));
      await new Promise((resolve) => again.close(resolve));
    },
  );
});

describe('the pty bridge', () => {
  const socat = ptyBridge({ PATH: process.env.PATH, JUMPERLESS_PTY_BRIDGE: 'socat' });

  it.skipIf('missing' in socat)(
    'makes ptys with socat when asked (as on a machine without python3)',
    async () => {
      const before = process.env.JUMPERLESS_PTY_BRIDGE;
      process.env.JUMPERLESS_PTY_BRIDGE = 'socat';
      try {
        const paths = await board.servePty(mkdtempSync(join(tmpdir(), 'jl-pty-socat-')));
        const serial = new SerialPort({ path: paths.repl, baudRate: 115200 });
        await new Promise((resolve, reject) => {
          serial.once('open', resolve);
          serial.once('error', reject);
        });
        await rawExec(new Wire(serial as unknown as Duplex));
        await new Promise((resolve) => serial.close(resolve));
        await board.faults.unplug();
        await until(() => !existsSync(paths.repl));
      } finally {
        if (before === undefined) delete process.env.JUMPERLESS_PTY_BRIDGE;
        else process.env.JUMPERLESS_PTY_BRIDGE = before;
      }
    },
  );

  it('fails in one line, with what the helper said, when the helper on PATH cannot run', async () => {
    // A python3 that starts and dies at once, as a pyenv shim does where bash is missing.
    const bin = mkdtempSync(join(tmpdir(), 'jl-badpy-'));
    writeFileSync(join(bin, 'python3'), '#!/bin/sh\necho "python3: cannot start here" >&2\nexit 3\n', {
      mode: 0o755,
    });
    const saved = { PATH: process.env.PATH, JUMPERLESS_PTY_BRIDGE: process.env.JUMPERLESS_PTY_BRIDGE };
    process.env.PATH = bin;
    process.env.JUMPERLESS_PTY_BRIDGE = 'python3';
    const started = Date.now();
    try {
      await expect(board.servePty(mkdtempSync(join(tmpdir(), 'jl-pty-bad-')))).rejects.toThrow(
        'python3 could not make the ptys: python3: cannot start here',
      );
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      process.env.PATH = saved.PATH;
      if (saved.JUMPERLESS_PTY_BRIDGE === undefined) delete process.env.JUMPERLESS_PTY_BRIDGE;
      else process.env.JUMPERLESS_PTY_BRIDGE = saved.JUMPERLESS_PTY_BRIDGE;
    }
  });

  it('takes python3 when it is on PATH, else socat, else says in one line that neither is there', () => {
    const empty = mkdtempSync(join(tmpdir(), 'jl-path-'));
    expect(ptyBridge({ PATH: empty })).toEqual({
      missing: 'virtual ptys need socat or python3 on PATH, and neither is there',
    });
    expect(ptyBridge({ PATH: empty, JUMPERLESS_PTY_BRIDGE: 'tcp' })).toEqual({
      missing: 'JUMPERLESS_PTY_BRIDGE=tcp: use socat or python3',
    });
    // Python first: it sees a program open and close the pty (socat only the first open).
    const both = mkdtempSync(join(tmpdir(), 'jl-path-'));
    for (const name of ['socat', 'python3']) writeFileSync(join(both, name), '', { mode: 0o755 });
    expect(ptyBridge({ PATH: both })).toMatchObject({ name: 'python3' });
    const socatOnly = mkdtempSync(join(tmpdir(), 'jl-path-'));
    writeFileSync(join(socatOnly, 'socat'), '', { mode: 0o755 });
    expect(ptyBridge({ PATH: socatOnly })).toMatchObject({ name: 'socat' });
  });
});
