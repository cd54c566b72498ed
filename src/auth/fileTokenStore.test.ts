import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrokerLookupError, checkBearer } from './broker.js';
import { FileLockTimeoutError, withFileLock } from './fileLock.js';
import { FileTokenStore, TokenStoreError } from './fileTokenStore.js';
import { mintToken } from './token.js';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jl-tokens-'));
  path = join(dir, 'nested', 'tokens.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const READ_WIRE = ['jumperless.wire', 'jumperless.read'];

describe('FileTokenStore', () => {
  it('stores only a hash, in a 0600 file, and resolves the token it printed', async () => {
    const store = new FileTokenStore(path);
    const { token, summary } = await store.create({ capabilities: READ_WIRE, name: 'bench-laptop' });
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.slice(6));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(summary).toMatchObject({
      name: 'bench-laptop',
      capabilities: ['jumperless.read', 'jumperless.wire'],
      expiresAt: null,
      state: 'active',
    });
    // A second instance (the server, while the CLI wrote) sees the token.
    expect(await checkBearer(new FileTokenStore(path), token)).toEqual({
      kind: 'ok',
      identity: {
        callerId: `token:${summary.id}`,
        capabilities: ['jumperless.read', 'jumperless.wire'],
        name: 'bench-laptop',
      },
    });
  });

  it('goes valid -> revoked when another instance revokes, with the reason', async () => {
    const server = new FileTokenStore(path);
    const cli = new FileTokenStore(path);
    const { token, summary } = await cli.create({ capabilities: ['jumperless.read'] });
    expect((await checkBearer(server, token)).kind).toBe('ok');
    await cli.revoke(summary.id, 'left the lab');
    expect(await checkBearer(server, token)).toEqual({ kind: 'revoked', detail: 'left the lab' });
    // Revoking again keeps the first reason; the list shows the state and never a hash.
    await cli.revoke(summary.id, 'second thoughts');
    const [listed] = await server.list();
    expect(listed).toMatchObject({ id: summary.id, state: 'revoked', revokedReason: 'left the lab' });
    expect(JSON.stringify(listed)).not.toMatch(/[0-9a-f]{64}/);
  });

  it('goes valid -> expired as the clock passes expiresAt, which the identity carries', async () => {
    let now = Date.parse('2026-03-01T12:00:00Z');
    const store = new FileTokenStore(path, { now: () => now });
    const expiresAt = new Date('2026-03-31T12:00:00Z');
    const { token } = await store.create({ capabilities: ['jumperless.read'], expiresAt });
    const valid = await checkBearer(store, token);
    expect(valid.kind === 'ok' && valid.identity.expiresAt).toEqual(expiresAt);
    now = expiresAt.getTime();
    expect(await checkBearer(store, token)).toEqual({
      kind: 'expired',
      detail: 'expired at 2026-03-31T12:00:00.000Z',
    });
    expect((await store.list())[0]?.state).toBe('expired');
    await expect(store.create({ capabilities: [], expiresAt: new Date(now - 1) })).rejects.toThrow(
      TokenStoreError,
    );
  });

  it('keeps every token when many writers create at once', async () => {
    const writers = Array.from({ length: 8 }, () => new FileTokenStore(path));
    const created = await Promise.all(
      writers.flatMap((store, w) =>
        Array.from({ length: 5 }, (_, i) =>
          store.create({ capabilities: ['jumperless.read'], name: `w${w}-${i}` }),
        ),
      ),
    );
    const reader = new FileTokenStore(path);
    expect((await reader.list()).length).toBe(40);
    for (const { token } of created) expect((await checkBearer(reader, token)).kind).toBe('ok');
    expect(new Set(created.map((c) => c.summary.id)).size).toBe(40);
    // No lock or temp file left behind.
    expect(readdirSync(join(dir, 'nested'))).toEqual(['tokens.json']);
    expect(statSync(join(dir, 'nested')).mode & 0o777).toBe(0o700);
  });

  it('treats a damaged file as a lookup failure with a clear message, refuses to write over it, and recovers', async () => {
    const store = new FileTokenStore(path);
    const { token } = await store.create({ capabilities: ['jumperless.read'] });
    const good = readFileSync(path, 'utf8');
    const damaged = `${good.slice(0, 40)}\n  "secret-looking text`;
    writeFileSync(path, damaged);
    const failure = await store.resolveBearer(token).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BrokerLookupError);
    expect((failure as Error).message).toMatch(/^token store .*tokens\.json is damaged: not valid JSON/);
    expect((failure as Error).message).not.toContain('secret-looking');
    await expect(store.create({ capabilities: [] })).rejects.toThrow(/is damaged/);
    expect(readFileSync(path, 'utf8')).toBe(damaged);
    writeFileSync(path, '{"version": 2, "tokens": []}');
    expect(await checkBearer(store, token)).toMatchObject({
      kind: 'lookup_failed',
      message: expect.stringMatching(/another version of jumperless-mcp/),
    });
    writeFileSync(path, '{"version": 1, "tokens": [{"id": "tok_zz"}]}');
    expect(await checkBearer(store, token)).toMatchObject({ kind: 'lookup_failed', message: /tokens\[0\]/ });
    writeFileSync(path, good);
    expect((await checkBearer(store, token)).kind).toBe('ok');
  });

  it('reports an unreadable store as a lookup failure', async () => {
    mkdirSync(path, { recursive: true });
    expect(await checkBearer(new FileTokenStore(path), mintToken())).toEqual({
      kind: 'lookup_failed',
      message: `cannot read token store ${path} (EISDIR)`,
    });
  });

  it('treats a missing file as an empty store and picks the file up once written', async () => {
    const server = new FileTokenStore(path);
    const token = mintToken();
    expect(await checkBearer(server, token)).toEqual({ kind: 'unknown' });
    const { token: real } = await new FileTokenStore(path).create({ capabilities: ['jumperless.io'] });
    expect((await checkBearer(server, real)).kind).toBe('ok');
    await expect(server.revoke('tok_00000000')).rejects.toThrow(/no token with id tok_00000000/);
  });

  it('answers thousands of bad tokens with unknown, never echoing them', async () => {
    const store = new FileTokenStore(path);
    const { token } = await store.create({ capabilities: ['jumperless.read'] });
    const bad: string[] = [
      '',
      ' ',
      'Bearer',
      token.slice(0, -1),
      `${token} `,
      token.toUpperCase(),
      '\u0000'.repeat(50),
    ];
    for (let i = 0; i < 1000; i++) bad.push(mintToken());
    for (let i = 0; i < 1000; i++) {
      // One character changed, so the shape check passes and the hash comparison decides.
      const at = 6 + (i % 43);
      const swapped = token[at] === 'A' ? 'B' : 'A';
      bad.push(token.slice(0, at) + swapped + token.slice(at + 1));
    }
    for (let i = 0; i < 1000; i++) bad.push(randomBytes(i % 300).toString(i % 2 ? 'latin1' : 'base64'));
    for (const candidate of bad) {
      const outcome = await checkBearer(store, candidate);
      expect(outcome).toEqual({ kind: 'unknown' });
    }
    expect((await checkBearer(store, token)).kind).toBe('ok');
  });
});

describe('withFileLock', () => {
  it('takes over a lock left by a dead process', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const lock = join(dir, 'x.lock');
    writeFileSync(lock, `${dead.stdout}\n${(await import('node:os')).hostname()}\n0\n`);
    expect(await withFileLock(lock, async () => 'ran', { timeoutMs: 2000 })).toBe('ran');
  });

  it('times out on a lock held by a live process, with a message naming the file', async () => {
    const lock = join(dir, 'y.lock');
    writeFileSync(lock, `${process.pid}\n${(await import('node:os')).hostname()}\n0\n`);
    const failure = await withFileLock(lock, async () => 'ran', { timeoutMs: 50 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(FileLockTimeoutError);
    expect((failure as Error).message).toContain('y.lock');
  });
});
