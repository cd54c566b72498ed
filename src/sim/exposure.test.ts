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
  expect(await wire.until('\r\n')).toBe(':5.7.11.0\r\n');
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

describe('the pty bridge', () => {
  const python = ptyBridge({ PATH: process.env.PATH, JUMPERLESS_PTY_BRIDGE: 'python3' });

  it.skipIf('missing' in python)(
    'makes ptys with Python alone when asked (as on a machine without socat)',
    async () => {
      const before = process.env.JUMPERLESS_PTY_BRIDGE;
      process.env.JUMPERLESS_PTY_BRIDGE = 'python3';
      try {
        const paths = await board.servePty(mkdtempSync(join(tmpdir(), 'jl-pty-py-')));
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

  it('takes socat when it is on PATH, else python3, else says in one line that neither is there', () => {
    const empty = mkdtempSync(join(tmpdir(), 'jl-path-'));
    expect(ptyBridge({ PATH: empty })).toEqual({
      missing: 'virtual ptys need socat or python3 on PATH, and neither is there',
    });
    expect(ptyBridge({ PATH: empty, JUMPERLESS_PTY_BRIDGE: 'tcp' })).toEqual({
      missing: 'JUMPERLESS_PTY_BRIDGE=tcp: use socat or python3',
    });
    const found = ptyBridge({ PATH: process.env.PATH });
    if (!('missing' in found)) expect(['socat', 'python3']).toContain(found.name);
  });
});
