import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileTokenStore } from '../auth/index.js';
import { httpAccess } from './access.js';
import { DEFAULT_CONFIG } from './config.js';

const dir = mkdtempSync(join(tmpdir(), 'jlmcp-access-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const quiet = () => {};

describe('httpAccess', () => {
  it('on loopback: the default store (even missing), bearers optional', async () => {
    const access = await httpAccess(DEFAULT_CONFIG, '127.0.0.1', { XDG_CONFIG_HOME: dir }, quiet);
    expect(access.broker.path).toBe(join(dir, 'jumperless-mcp', 'tokens.json'));
    expect(access.requireBearer).toBe(false);
    expect(access.anonymous).toEqual(DEFAULT_CONFIG.anonymousCaps);
    expect(access.allowList).toEqual(DEFAULT_CONFIG.grant);
    const required = await httpAccess({ ...DEFAULT_CONFIG, requireToken: true }, '::1', {}, quiet);
    expect(required.requireBearer).toBe(true);
  });

  it('off loopback without an active token: refuses, saying how to create one', async () => {
    const path = join(dir, 'none.json');
    await expect(httpAccess({ ...DEFAULT_CONFIG, tokens: path }, '0.0.0.0', {}, quiet)).rejects.toThrow(
      /refusing to listen on 0\.0\.0\.0.*has no active token.*jumperless-mcp tokens create/,
    );
    const store = new FileTokenStore(path);
    const { summary } = await store.create({ capabilities: ['jumperless.read'] });
    await store.revoke(summary.id, 'gone');
    await expect(httpAccess({ ...DEFAULT_CONFIG, tokens: path }, '192.168.1.5', {}, quiet)).rejects.toThrow(
      /no active token/,
    );
  });

  it('off loopback with a token: starts, and every caller needs a bearer', async () => {
    const path = join(dir, 'one.json');
    await new FileTokenStore(path).create({ capabilities: ['jumperless.read'] });
    const access = await httpAccess({ ...DEFAULT_CONFIG, tokens: path }, '0.0.0.0', {}, quiet);
    expect(access.requireBearer).toBe(true);
  });

  it('a damaged store: refused off loopback, a warning on loopback', async () => {
    const path = join(dir, 'bad.json');
    writeFileSync(path, '{ nope');
    await expect(httpAccess({ ...DEFAULT_CONFIG, tokens: path }, '0.0.0.0', {}, quiet)).rejects.toThrow(
      /damaged/,
    );
    const lines: string[] = [];
    await httpAccess({ ...DEFAULT_CONFIG, tokens: path }, '127.0.0.1', {}, (line) => lines.push(line));
    expect(lines.join('\n')).toMatch(/damaged.*503/);
  });
});
