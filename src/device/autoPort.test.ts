/**
 * `auto` end to end: a fake sysfs names the ports (no physical board can be plugged in here),
 * but the device nodes are the virtual board's real ptys, so the raw-REPL probe, the serial
 * open and the session are all real.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeBoardOptions, fakeBoard as fakeSysfsBoard } from '../../test/support/fakeSysfs.js';
import { PTY_MISSING } from '../../test/support/ptyAvailable.js';
import { SimBoard } from '../sim/index.js';
import { resolveAutoPort } from './autoPort.js';
import { type DeviceSession, openDevice } from './index.js';

let board: SimBoard;
let root: string;
let ptys: Record<string, string>;
const sessions: DeviceSession[] = [];

/** A board at USB `location` whose interfaces point at the given device nodes. */
const fakeBoard = (
  name: string,
  location: string,
  interfaces: Array<[number, string]>,
  options?: FakeBoardOptions,
) => fakeSysfsBoard(root, name, location, interfaces, options);

beforeAll(async () => {
  board = await SimBoard.start();
  root = mkdtempSync(join(tmpdir(), 'jl-auto-'));
  if (!PTY_MISSING) ptys = await board.servePty(join(root, 'pty'));
});

afterAll(async () => {
  for (const session of sessions) await session.close();
  await board.stop();
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(PTY_MISSING)('auto over a fake sysfs and real ptys', () => {
  it('confirms the REPL interface with a raw-REPL probe and opens a session on it', async () => {
    const roots = fakeBoard('one', '1-2', [
      [0, ptys.main as string],
      [4, ptys.repl as string],
      [6, ptys.backchannel as string],
    ]);
    const port = await resolveAutoPort({ platform: 'linux', ...roots });
    expect(port).toMatchObject({ path: join(roots.devRoot, 'ttyACM2'), location: '1-2', role: 'repl' });
    const session = await openDevice('auto', { platform: 'linux', ...roots });
    sessions.push(session);
    expect(await session.call('"found by auto"')).toBe('found by auto');
    expect(session.health().port).toBe(join(roots.devRoot, 'ttyACM2'));
    await session.close();
  });

  it('goes by the interface, not the tty order: the four ports can come up in any order', async () => {
    const roots = fakeBoard(
      'shuffled',
      '1-1.2',
      [
        [0, ptys.main as string],
        [2, ptys.uart as string],
        [4, ptys.repl as string],
        [6, ptys.backchannel as string],
      ],
      { ttyNames: ['ttyACM2', 'ttyACM3', 'ttyACM0', 'ttyACM1'] },
    );
    const port = await resolveAutoPort({ platform: 'linux', ...roots });
    expect(port).toMatchObject({
      path: join(roots.devRoot, 'ttyACM0'),
      location: '1-1.2',
      interfaceNumber: 4,
    });
  });

  it('finds the REPL by its answer when the OS does not give interface numbers', async () => {
    const roots = fakeBoard(
      'unnamed',
      '1-1.4',
      [
        [0, ptys.backchannel as string],
        [2, ptys.repl as string],
        [4, ptys.uart as string],
      ],
      { ttyNames: ['ttyACM0', 'ttyACM1', 'ttyACM2'], interfaceNumbers: false },
    );
    const port = await resolveAutoPort({ platform: 'linux', ...roots });
    expect(port).toEqual({ path: join(roots.devRoot, 'ttyACM1'), location: '1-1.4', role: 'repl' });
  });

  it('tells two boards with the same USB serial apart by where they are plugged in (auto:<usb-path>)', async () => {
    const here: Array<[number, string]> = [[4, ptys.repl as string]];
    fakeBoard('two', '1-1.2', [[4, ptys.backchannel as string]], { ttyNames: ['ttyACM2'] });
    const roots = fakeBoard('two', '1-1.3', here, { ttyNames: ['ttyACM6'] });
    const session = await openDevice('auto:1-1.3', { platform: 'linux', ...roots });
    sessions.push(session);
    expect(await session.call('"the board at 1-1.3"')).toBe('the board at 1-1.3');
    expect(session.health().port).toBe(join(roots.devRoot, 'ttyACM6'));
    await session.close();
    await expect(resolveAutoPort({ platform: 'linux', ...roots, location: '1-1.2' })).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('no raw-REPL answer'),
    });
  });

  it('says so when the port on interface 4 does not answer like a raw REPL', async () => {
    const roots = fakeBoard('wrong', '1-3', [[4, ptys.backchannel as string]]);
    await expect(resolveAutoPort({ platform: 'linux', ...roots })).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('no raw-REPL answer'),
    });
  });
});

describe('openDevice', () => {
  it('opens the in-process board through the injected simulator factory', async () => {
    const session = await openDevice('sim', {
      simFactory: () => ({ connect: () => board.port('repl'), release: () => {} }),
    });
    sessions.push(session);
    expect(await session.call('1 + 1')).toBe(2);
    await session.close();
  });

  it('opens the board over TCP', async () => {
    const tcp = await board.serveTcp();
    const session = await openDevice(`tcp://127.0.0.1:${tcp.repl}`);
    sessions.push(session);
    expect(await session.call('"tcp"')).toBe('tcp');
    await session.close();
  });
});
