import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkBearer } from '../auth/broker.js';
import { FileTokenStore } from '../auth/fileTokenStore.js';
import { parseExpiry, tokensCommand } from './tokensCommand.js';

const NOW = Date.parse('2026-05-01T08:00:00Z');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jl-tokens-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `tokens ...args` in-process and returns what went to stdout and stderr. */
async function run(args: string[], env: NodeJS.ProcessEnv = { JUMPERLESS_MCP_TOKENS: join(dir, 't.json') }) {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks = { out: '', err: '' };
  out.on('data', (c) => (chunks.out += c));
  err.on('data', (c) => (chunks.err += c));
  const command = tokensCommand({ out, err, env, now: () => NOW });
  for (const sub of command.commands)
    sub.exitOverride().configureOutput({ writeErr: (s) => (chunks.err += s) });
  await command.parseAsync(args, { from: 'user' });
  return chunks;
}

describe('parseExpiry', () => {
  it('reads durations, dates and never', () => {
    expect(parseExpiry('30d', NOW)?.toISOString()).toBe('2026-05-31T08:00:00.000Z');
    expect(parseExpiry('12h', NOW)?.toISOString()).toBe('2026-05-01T20:00:00.000Z');
    expect(parseExpiry('90m', NOW)?.toISOString()).toBe('2026-05-01T09:30:00.000Z');
    expect(parseExpiry('2w', NOW)?.toISOString()).toBe('2026-05-15T08:00:00.000Z');
    expect(parseExpiry('2026-12-31', NOW)?.toISOString()).toBe('2026-12-31T00:00:00.000Z');
    expect(parseExpiry('2026-12-31T10:30:00Z', NOW)?.toISOString()).toBe('2026-12-31T10:30:00.000Z');
    expect(parseExpiry('never', NOW)).toBeUndefined();
  });

  it('refuses the past, impossible dates, zero and other text', () => {
    expect(() => parseExpiry('2025-01-01', NOW)).toThrow(/in the past/);
    expect(() => parseExpiry('2026-02-30', NOW)).toThrow(/not a real date/);
    expect(() => parseExpiry('0d', NOW)).toThrow(/future/);
    expect(() => parseExpiry('30 days', NOW)).toThrow(/use a duration \(45s, 90m, 12h, 30d, 2w\)/);
    expect(() => parseExpiry('1y', NOW)).toThrow(/use a duration/);
  });
});

describe('jumperless-mcp tokens', () => {
  it('creates a token, prints it once on stdout with a note on stderr, and the store resolves it', async () => {
    const created = await run([
      'create',
      '--caps',
      'jumperless.wire,jumperless.read',
      '--expires',
      '30d',
      '--name',
      'bench-laptop',
    ]);
    const token = created.out.trim();
    expect(token).toMatch(/^jlmcp_[A-Za-z0-9_-]{43}$/);
    expect(created.err).toMatch(/only time the token is shown/);
    expect(created.err).toContain('jumperless.read, jumperless.wire');
    expect(created.err).toContain('2026-05-31T08:00:00.000Z');
    expect(created.err).not.toContain(token);
    const store = new FileTokenStore(join(dir, 't.json'), { now: () => NOW });
    expect(await checkBearer(store, token)).toMatchObject({
      kind: 'ok',
      identity: { capabilities: ['jumperless.read', 'jumperless.wire'] },
    });
  });

  it('vouches for claims the broker hands on with the caller, and refuses malformed ones', async () => {
    const created = await run([
      'create',
      '--caps',
      'jumperless.read',
      '--claim',
      'labgrid_place=jumperless-3',
    ]);
    expect(created.err).toContain('claim:        labgrid_place=jumperless-3');
    const store = new FileTokenStore(join(dir, 't.json'), { now: () => NOW });
    expect(await checkBearer(store, created.out.trim())).toMatchObject({
      kind: 'ok',
      identity: { claims: { labgrid_place: 'jumperless-3' } },
    });
    await expect(run(['create', '--caps', 'jumperless.read', '--claim', 'place'])).rejects.toThrow(
      /--claim place/,
    );
    await expect(
      run(['create', '--caps', 'jumperless.read', '--claim', 'a=1', '--claim', 'a=2']),
    ).rejects.toThrow(/--claim a is given twice/);
  });

  it('lists tokens without the token or its hash, then revokes one with a reason', async () => {
    const first = (await run(['create', '--caps', 'jumperless.read', '--name', 'ci'])).out.trim();
    await run(['create', '--caps', '*', '--expires', 'never']);
    const table = (await run(['list'])).out;
    const lines = table.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+CAPABILITIES\s+CREATED\s+EXPIRES\s+STATE$/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(
      /^tok_[0-9a-f]{8}\s+ci\s+jumperless\.read\s+2026-05-01 08:00Z\s+2026-05-31 08:00Z\s+active$/,
    );
    expect(lines[2]).toMatch(/never\s+active$/);
    expect(table).not.toContain(first);
    const json = JSON.parse((await run(['list', '--json'])).out) as { id: string; name?: string }[];
    const id = json.find((t) => t.name === 'ci')?.id ?? '';
    expect(JSON.stringify(json)).not.toMatch(/[0-9a-f]{64}/);

    const revoked = await run(['revoke', id, '--reason', 'rotated']);
    expect(revoked.out).toBe(`Revoked ${id} at 2026-05-01T08:00:00.000Z (rotated)\n`);
    expect((await run(['list'])).out).toMatch(/revoked 2026-05-01 08:00Z: rotated/);
    const store = new FileTokenStore(join(dir, 't.json'));
    expect(await checkBearer(store, first)).toEqual({ kind: 'revoked', detail: 'rotated' });
  });

  it('honours --store over the environment and XDG_CONFIG_HOME without either', async () => {
    const explicit = join(dir, 'explicit.json');
    await run(['create', '--caps', 'jumperless.read', '--store', explicit]);
    expect(JSON.parse(readFileSync(explicit, 'utf8')).tokens).toHaveLength(1);
    await run(['create', '--caps', 'jumperless.read'], { XDG_CONFIG_HOME: dir });
    expect(JSON.parse(readFileSync(join(dir, 'jumperless-mcp', 'tokens.json'), 'utf8')).tokens).toHaveLength(
      1,
    );
  });

  it('says what is wrong with bad capabilities, expiries and ids', async () => {
    await expect(run(['create', '--caps', 'jumperless.red'])).rejects.toThrow(
      /--caps: unknown capability jumperless\.red \(known: /,
    );
    await expect(run(['create', '--caps', 'jumperless.read', '--expires', 'soon'])).rejects.toThrow(
      /--expires soon/,
    );
    await expect(run(['revoke', 'tok_deadbeef'])).rejects.toThrow(/no token with id tok_deadbeef/);
    await expect(run(['create'])).rejects.toThrow(/required option '--caps <list>' not specified/);
    expect((await run(['list'])).err).toMatch(/No tokens in .*t\.json/);
  });

  it('keeps every token when separate CLI processes create at once', async () => {
    const store = join(dir, 'shared.json');
    const outputs = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        runCli(['tokens', 'create', '--caps', 'jumperless.read', '--name', `p${i}`, '--store', store]),
      ),
    );
    const tokens = outputs.map((o) => o.trim());
    const reader = new FileTokenStore(store);
    expect((await reader.list()).map((t) => t.name).sort()).toEqual(['p0', 'p1', 'p2', 'p3']);
    for (const token of tokens) expect((await checkBearer(reader, token)).kind).toBe('ok');
  });
});

/** The real `jumperless-mcp` entry point in a child process; resolves with stdout. */
function runCli(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stderr}`)),
    );
  });
}
