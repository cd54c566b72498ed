/**
 * `auto` end to end: a fake sysfs names the ports (no physical board can be plugged in here),
 * but the device nodes are the virtual board's real ptys, so the raw-REPL probe, the serial
 * open and the session are all real.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBoard as fakeSysfsBoard } from '../../test/support/fakeSysfs.js';
import { PTY_MISSING } from '../../test/support/ptyAvailable.js';
import { SimBoard } from '../sim/index.js';
import { resolveAutoPort } from './autoPort.js';
import { type DeviceSession, openDevice } from './index.js';

let board: SimBoard;
let root: string;
let ptys: Record<string, string>;
const sessions: DeviceSession[] = [];

/** A board at USB `location` whose interfaces point at the given device nodes. */
const fakeBoard = (name: string, location: string, interfaces: Array<[number, string]>) =>
  fakeSysfsBoard(root, name, location, interfaces);

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
