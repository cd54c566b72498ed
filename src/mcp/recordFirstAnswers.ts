/**
 * Records the first answers (firstAnswers.ts) from the real server: one process per protocol
 * version, each asked `initialize` and then `tools/list` over stdio exactly as a client asks,
 * with the first answers off. Run by the build (scripts/firstAnswers.mjs) and by the tests.
 */
import { spawn } from 'node:child_process';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { FirstAnswers } from './firstAnswers.js';

export interface ServerCommand {
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export async function recordFirstAnswers(
  server: ServerCommand,
  versions: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS,
): Promise<FirstAnswers> {
  const recorded = await Promise.all(versions.map((version) => askFirst(server, version)));
  const initialize: FirstAnswers['initialize'] = {};
  recorded.forEach(([answer], at) => {
    initialize[versions[at] as string] = answer;
  });
  const lists = new Set(recorded.map(([, list]) => JSON.stringify(list)));
  if (lists.size !== 1) throw new Error('tools/list differed between protocol versions: not recordable');
  return { initialize, toolsList: (recorded[0] as [unknown, Record<string, unknown>])[1] };
}

const TIMEOUT_MS = 60_000;

/** The two replies of one server, as written (their ids are the ones we sent, 1 and 2). */
function askFirst(
  server: ServerCommand,
  protocolVersion: string,
): Promise<[Record<string, unknown>, Record<string, unknown>]> {
  const child = spawn(server.command, server.args, {
    cwd: server.cwd,
    env: { ...(server.env ?? process.env), JUMPERLESS_MCP_FIRST_ANSWERS: 'off' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const line = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  line({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'jumperless-mcp-build', version: '0' } },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`no answers within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    const replies = new Map<unknown, Record<string, unknown>>();
    const end = () => {
      clearTimeout(timer);
      child.stdin.end();
      child.kill();
    };
    const fail = (error: Error) => {
      end();
      reject(new Error(`recording the first answers (${protocolVersion}): ${error.message}\n${stderr}`));
    };
    child.once('error', fail);
    child.once('exit', (code) => {
      if (replies.size < 2) fail(new Error(`the server exited (${code}) before answering`));
    });
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
        const message = JSON.parse(pending.slice(0, at)) as Record<string, unknown>;
        pending = pending.slice(at + 1);
        if ('method' in message || (message.id !== 1 && message.id !== 2)) continue;
        if ('error' in message) return fail(new Error(JSON.stringify(message.error)));
        replies.set(message.id, message);
        if (message.id === 1) {
          line({ jsonrpc: '2.0', method: 'notifications/initialized' });
          line({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
        }
        if (replies.size === 2) {
          end();
          resolve([replies.get(1) as Record<string, unknown>, replies.get(2) as Record<string, unknown>]);
        }
      }
    });
  });
}
