/**
 * Who may stand behind a socket path: the folder and the socket are checked before they are
 * trusted, on both sides (listening and connecting), wherever they live. A folder another user
 * owns or can write, or a socket another user owns, is refused with a message that says what is
 * wrong and what to do. Owners are changed with chown, which needs root: those cases say so and
 * do not run elsewhere.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeHandler } from '../../test/support/fakeSocketHandler.js';
import { startSocketServer } from '../socket/server.js';
import { FrameClient } from './frameClient.js';
import { defaultSocketPath } from './socketPath.js';

const ROOT = process.getuid?.() === 0;
/** A uid that is not ours, for chown (root only). */
const OTHER = 4242;

let dir: string;
const servers: Server[] = [];
const savedTmp = process.env.TMPDIR;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jl-trust-'));
});
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(dir, { recursive: true, force: true });
});

function listen(path: string): Promise<Server> {
  const server = createServer((socket) => socket.on('error', () => undefined));
  servers.push(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve(server));
  });
}

const serve = (path: string) =>
  startSocketServer({
    path,
    handler: fakeHandler(),
    allowedCapabilities: [],
    serverVersion: 'test',
    log: () => undefined,
  });

describe('the socket folder', () => {
  it('refuses a folder other users can write, to listen in and to connect into', async () => {
    const open = join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    await expect(serve(join(open, 'jl.sock'))).rejects.toThrow(/can be written by other users.*chmod go-w/s);
    // A socket someone else put there is never spoken to.
    chmodSync(open, 0o700);
    await listen(join(open, 'planted.sock'));
    chmodSync(open, 0o777);
    await expect(FrameClient.connect(join(open, 'planted.sock'))).rejects.toThrow(
      /can be written by other users/,
    );
  });

  it('refuses the private temp folder when another user made it first, with the wrong mode', async () => {
    process.env.TMPDIR = dir;
    const path = defaultSocketPath({});
    const folder = join(dir, `jumperless-mcp-${process.getuid?.()}`);
    expect(path.startsWith(folder)).toBe(true);
    mkdirSync(folder, { mode: 0o700 });
    await listen(path);
    chmodSync(folder, 0o777);
    await expect(serve(join(folder, 'mine.sock'))).rejects.toThrow(/can be written by other users/);
    await expect(FrameClient.connect(path)).rejects.toThrow(/can be written by other users/);
  });

  it.skipIf(!ROOT)('refuses a folder another user owns (needs root for chown)', async () => {
    process.env.TMPDIR = dir;
    const path = defaultSocketPath({});
    const folder = join(dir, `jumperless-mcp-${process.getuid?.()}`);
    mkdirSync(folder, { mode: 0o700 });
    // The squatter listens at the name the victim's processes will look for.
    await listen(path);
    chownSync(folder, OTHER, OTHER);
    await expect(FrameClient.connect(path)).rejects.toThrow(
      new RegExp(`belongs to uid ${OTHER}, not to you`),
    );
    await expect(serve(join(folder, 'other.sock'))).rejects.toThrow(/belongs to uid 4242/);
  });

  it.skipIf(!ROOT)(
    'refuses a socket another user owns in our own folder (needs root for chown)',
    async () => {
      const path = join(dir, 'jl.sock');
      await listen(path);
      chownSync(path, OTHER, OTHER);
      expect(statSync(path).uid).toBe(OTHER);
      await expect(FrameClient.connect(path)).rejects.toThrow(/jl\.sock belongs to uid 4242.*[Rr]emove it/s);
      // Nor is it probed or replaced when we listen.
      await expect(serve(path)).rejects.toThrow(/belongs to uid 4242/);
      expect(statSync(path).uid).toBe(OTHER);
    },
  );

  it('trusts our own folder and socket, as before', async () => {
    const server = await serve(join(dir, 'jl.sock'));
    const client = await FrameClient.connect(server.path);
    client.close();
    await server.close();
  });
});
