/**
 * The recorded first answers (src/mcp/firstAnswers.ts) against the real server over real stdio,
 * for a 2025 client and a 2026-07-28 one: recorded from this tree's server, they are the bytes the
 * server itself writes, the SDK client works through them as through the server, and a stale
 * recording is corrected by tools/list_changed (2025) or not used (2026-07-28).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FirstAnswers } from '../../src/mcp/firstAnswers.js';
import { recordFirstAnswers } from '../../src/mcp/recordFirstAnswers.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', 'src/cli/main.ts', '--sim'];
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
const MODERN = '2026-07-28';

const initialize = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '0' } },
};
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const list = { jsonrpc: '2.0', id: 'list', method: 'tools/list' };
const call = {
  jsonrpc: '2.0',
  id: 'call',
  method: 'tools/call',
  params: { name: 'power_get', arguments: {} },
};

/** The same opening by a 2026-07-28 client: every request carries the envelope. */
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'e2e', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const modernOpening = [
  { jsonrpc: '2.0', id: 'init', method: 'server/discover', params: { _meta: ENVELOPE } },
  { jsonrpc: '2.0', id: 'list', method: 'tools/list', params: { _meta: ENVELOPE } },
  { ...call, params: { ...call.params, _meta: ENVELOPE } },
];

/**
 * One stdio session as a client runs it: initialize (2026-07-28: server/discover), then the list
 * and a call once that is answered. Returns stdout's lines, in order, once the call is answered,
 * and everything it said on stderr.
 */
function session(
  firstAnswers: string,
  era: 'legacy' | 'modern' = 'legacy',
): Promise<{ lines: string[]; stderr: string }> {
  const child = spawn(process.execPath, CLI, {
    cwd: ROOT,
    env: { ...ENV, JUMPERLESS_MCP_FIRST_ANSWERS: firstAnswers },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const [opening, ...rest] = era === 'legacy' ? [initialize, initialized, list, call] : modernOpening;
  send(opening);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((done, fail) => {
    const lines: string[] = [];
    let pending = '';
    child.once('exit', (code) => fail(new Error(`exited ${code}: ${lines.join('\n')}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
        const text = pending.slice(0, at);
        pending = pending.slice(at + 1);
        lines.push(text);
        const { id } = JSON.parse(text);
        if (id === 'init') for (const message of rest) send(message);
        if (id === 'call') {
          child.removeAllListeners('exit');
          // Once its pipes have closed: everything it wrote on stderr has been read.
          child.once('close', () => done({ lines, stderr }));
          child.kill();
        }
      }
    });
  });
}

/** The replies to our requests (the board's "connected" notice comes whenever the board is up). */
const replies = (lines: string[]) => lines.filter((text) => 'id' in JSON.parse(text));

/** Runs a command with the arguments after the log's path, and writes what it prints to the log too. */
const TEE = `
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
const [log, ...args] = process.argv.slice(2);
const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.on('data', (chunk) => {
  appendFileSync(log, chunk);
  process.stdout.write(chunk);
});
child.on('exit', (code) => process.exit(code ?? 0));
`;
const work = mkdtempSync(join(tmpdir(), 'first-answers-sdk-'));
const tee = join(work, 'tee.mjs');
writeFileSync(tee, TEE);
let sessions = 0;

/**
 * The v2 SDK client pinned to 2026-07-28 over real stdio, listing and calling power_get: its
 * results, and the replies it read, as the server's stdout carried them.
 */
async function pinnedSession(firstAnswers: string) {
  const log = join(work, `stdout-${sessions++}.jsonl`);
  const client = new Client(
    { name: 'e2e-first-modern', version: '0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [tee, log, ...CLI],
      cwd: ROOT,
      env: { ...ENV, JUMPERLESS_MCP_FIRST_ANSWERS: firstAnswers },
      stderr: 'pipe',
    }),
  );
  try {
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const { tools } = await client.listTools();
    await client.listTools();
    const power = await client.callTool({ name: 'power_get', arguments: {} });
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    return { names: tools.map((tool) => tool.name), power, replies: replies(lines) };
  } finally {
    await client.close();
  }
}

describe('first answers recorded from the server', () => {
  let recorded: FirstAnswers;
  let file: string;
  beforeAll(async () => {
    recorded = await recordFirstAnswers({ command: process.execPath, args: CLI, cwd: ROOT, env: ENV });
    file = join(mkdtempSync(join(tmpdir(), 'first-answers-')), 'firstAnswers.json');
    writeFileSync(file, JSON.stringify(recorded));
  }, 120_000);

  /** The recording with one tool in each list, named as no tool of this server is; written now. */
  const staleRecording = () => {
    const stale = structuredClone(recorded);
    for (const answer of [stale.toolsList, stale.modern?.[MODERN]?.toolsList]) {
      const tools = (answer?.result as { tools: Array<{ name: string }> } | undefined)?.tools ?? [];
      tools.splice(0, tools.length, { ...tools[0], name: 'a_tool_since_removed' } as { name: string });
    }
    const staleFile = join(mkdtempSync(join(tmpdir(), 'first-answers-')), 'stale.json');
    writeFileSync(staleFile, JSON.stringify(stale));
    return staleFile;
  };

  it('are recorded for every 2025 protocol version, each naming its own', () => {
    expect(Object.keys(recorded.initialize).sort()).toEqual([
      '2024-10-07',
      '2024-11-05',
      '2025-03-26',
      '2025-06-18',
      '2025-11-25',
    ]);
    for (const [version, answer] of Object.entries(recorded.initialize)) {
      expect(answer).toMatchObject({
        result: { protocolVersion: version, serverInfo: { name: 'jumperless-mcp' } },
      });
    }
    expect((recorded.toolsList.result as { tools: unknown[] }).tools.length).toBeGreaterThan(40);
  });

  it('are recorded for 2026-07-28 too: the discover answer, and the list with its cache hint and _meta', () => {
    expect(Object.keys(recorded.modern ?? {})).toEqual([MODERN]);
    const modern = recorded.modern?.[MODERN];
    expect(modern?.discover).toMatchObject({ result: { supportedVersions: [MODERN] } });
    expect(modern?.toolsList).toMatchObject({
      result: {
        ttlMs: 60_000,
        cacheScope: 'private',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'jumperless-mcp' } },
      },
    });
    const names = (answer: Record<string, unknown> | undefined) =>
      (answer?.result as { tools: Array<{ name: string }> } | undefined)?.tools.map((tool) => tool.name);
    expect(names(modern?.toolsList)).toEqual(names(recorded.toolsList));
    const installed = JSON.parse(
      readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/server/package.json'), 'utf8'),
    );
    expect(recorded.sdk).toBe(installed.version);
  });

  it('give a client the same bytes as the server, for the first answers and after them', async () => {
    const [{ lines: answered }, { lines: served }] = await Promise.all([session(file), session('off')]);
    expect(replies(answered)).toEqual(replies(served));
    expect(replies(answered).map((text) => JSON.parse(text).id)).toEqual(['init', 'list', 'call']);
  }, 60_000);

  it('serve the SDK client, which lists and calls through them', async () => {
    const client = new Client({ name: 'e2e-first', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: CLI,
        cwd: ROOT,
        env: { ...ENV, JUMPERLESS_MCP_FIRST_ANSWERS: file },
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('power_get');
      const set = await client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 1.5 } });
      expect(set.structuredContent).toMatchObject({ channel: 'DAC1', volts: 1.5 });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('give a 2026-07-28 client the same bytes as the server, for the first answers and after them', async () => {
    const [answered, served] = await Promise.all([session(file, 'modern'), session('off', 'modern')]);
    expect(replies(answered.lines)).toEqual(replies(served.lines));
    expect(replies(answered.lines).map((text) => JSON.parse(text).id)).toEqual(['init', 'list', 'call']);
    expect(answered.stderr).not.toMatch(/differs/);
  }, 60_000);

  it('give the v2 SDK client pinned to 2026-07-28 the same bytes, with the recording and without', async () => {
    const [answered, served] = await Promise.all([pinnedSession(file), pinnedSession('off')]);
    expect(answered.replies).toEqual(served.replies);
    // discover, the list and the call: the client kept the list (its cache hint) and asked once.
    expect(answered.replies.map((text) => JSON.parse(text).id)).toEqual(['server-discover-probe-1', 0, 1]);
    expect(answered.names).toContain('power_get');
    expect(answered.power).toEqual(served.power);
    // And it is the recording that answered: one with another list gives the client that list.
    expect((await pinnedSession(staleRecording())).names).toEqual(['a_tool_since_removed']);
  }, 60_000);

  it('are not used for a 2026-07-28 client when older than the code (it could not be told the list changed)', async () => {
    const staleFile = staleRecording();
    const past = new Date('2001-01-01T00:00:00Z');
    utimesSync(staleFile, past, past);
    const [answered, served] = await Promise.all([session(staleFile, 'modern'), session('off', 'modern')]);
    expect(replies(answered.lines)).toEqual(replies(served.lines));
    expect(answered.stderr).not.toMatch(/differs/);
    // The 2025 client still gets them, and the correction.
    const legacy = await session(staleFile);
    expect(legacy.lines.some((text) => text.includes('a_tool_since_removed'))).toBe(true);
  }, 60_000);

  it('say on stderr when one that passed the check still differs, and send no list change unasked', async () => {
    const { lines, stderr } = await session(staleRecording(), 'modern');
    const messages = lines.map((text) => JSON.parse(text));
    const listed = messages.find((message) => message.id === 'list');
    expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['a_tool_since_removed']);
    expect(messages.filter((message) => message.method === 'notifications/tools/list_changed')).toEqual([]);
    expect(stderr).toMatch(/recorded tools\/list \(2026-07-28\) answer differs.*cannot be told/);
  }, 60_000);

  it('are corrected when stale: the client gets tools/list_changed and the real list on asking again', async () => {
    const { lines } = await session(staleRecording());
    const messages = lines.map((text) => JSON.parse(text));
    const listed = messages.find((message) => message.id === 'list');
    expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['a_tool_since_removed']);
    const changed = messages.findIndex((message) => message.method === 'notifications/tools/list_changed');
    expect(changed).toBeGreaterThan(messages.indexOf(listed));
  }, 60_000);
});
