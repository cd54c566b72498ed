/**
 * The recorded first answers (src/mcp/firstAnswers.ts) against the real server over real stdio:
 * recorded from this tree's server, they are the bytes the server itself writes, the SDK client
 * works through them as through the server, and a stale recording is corrected by
 * tools/list_changed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
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

/**
 * One stdio session as a client runs it: initialize, then the list and a call once initialize is
 * answered. Returns stdout's lines, in order, once the call is answered.
 */
function session(firstAnswers: string): Promise<string[]> {
  const child = spawn(process.execPath, CLI, {
    cwd: ROOT,
    env: { ...ENV, JUMPERLESS_MCP_FIRST_ANSWERS: firstAnswers },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send(initialize);
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
        if (id === 'init') {
          send(initialized);
          send(list);
          send(call);
        }
        if (id === 'call') {
          child.removeAllListeners('exit');
          child.kill();
          done(lines);
        }
      }
    });
  });
}

/** The replies to our requests (the board's "connected" notice comes whenever the board is up). */
const replies = (lines: string[]) => lines.filter((text) => 'id' in JSON.parse(text));

describe('first answers recorded from the server', () => {
  let recorded: FirstAnswers;
  let file: string;
  beforeAll(async () => {
    recorded = await recordFirstAnswers({ command: process.execPath, args: CLI, cwd: ROOT, env: ENV });
    file = join(mkdtempSync(join(tmpdir(), 'first-answers-')), 'firstAnswers.json');
    writeFileSync(file, JSON.stringify(recorded));
  }, 120_000);

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

  it('give a client the same bytes as the server, for the first answers and after them', async () => {
    const [answered, served] = await Promise.all([session(file), session('off')]);
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

  it('are corrected when stale: the client gets tools/list_changed and the real list on asking again', async () => {
    const stale = structuredClone(recorded);
    const tools = (stale.toolsList.result as { tools: Array<{ name: string }> }).tools;
    tools.splice(0, tools.length, { ...tools[0], name: 'a_tool_since_removed' } as { name: string });
    const staleFile = join(mkdtempSync(join(tmpdir(), 'first-answers-')), 'stale.json');
    writeFileSync(staleFile, JSON.stringify(stale));
    const lines = await session(staleFile);
    const messages = lines.map((text) => JSON.parse(text));
    const listed = messages.find((message) => message.id === 'list');
    expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['a_tool_since_removed']);
    const changed = messages.findIndex((message) => message.method === 'notifications/tools/list_changed');
    expect(changed).toBeGreaterThan(messages.indexOf(listed));
  }, 60_000);
});
