/**
 * Records the first answers (firstAnswers.ts) from the real server: one process per protocol
 * version, each asked its two first requests over stdio exactly as a client asks (2025:
 * `initialize`, then `tools/list`; 2026-07-28: `server/discover`, then `tools/list`, each with its
 * `_meta` envelope), with the first answers off. Run by the build (scripts/firstAnswers.mjs) and by
 * the tests.
 */
import { spawn } from 'node:child_process';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { MODERN_PROTOCOL } from '../contract/json.js';
import type { FirstAnswers, ModernAnswers } from './firstAnswers.js';
import { sdkVersion } from './recordingCurrent.js';

export interface ServerCommand {
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

type Message = Record<string, unknown>;

const CLIENT_INFO = { name: 'jumperless-mcp-build', version: '0' };

export async function recordFirstAnswers(
  server: ServerCommand,
  versions: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS,
  modernVersions: readonly string[] = [MODERN_PROTOCOL],
): Promise<FirstAnswers> {
  const [legacy, modern] = await Promise.all([
    Promise.all(versions.map((version) => askFirst(server, version, legacyOpening(version)))),
    Promise.all(modernVersions.map((version) => askFirst(server, version, modernOpening(version)))),
  ]);
  const initialize: FirstAnswers['initialize'] = {};
  legacy.forEach(([answer], at) => {
    initialize[versions[at] as string] = answer;
  });
  const lists = new Set(legacy.map(([, list]) => JSON.stringify(list)));
  if (lists.size !== 1) throw new Error('tools/list differed between protocol versions: not recordable');
  const answers: FirstAnswers = { initialize, toolsList: (legacy[0] as [Message, Message])[1] };
  if (modern.length > 0) {
    const byVersion: Record<string, ModernAnswers> = {};
    modern.forEach(([discover, toolsList], at) => {
      byVersion[modernVersions[at] as string] = { discover, toolsList };
    });
    answers.modern = byVersion;
  }
  const sdk = sdkVersion();
  return sdk === undefined ? answers : { ...answers, sdk };
}

/** A client's two first requests (ids 1 and 2), and what it sends between them. */
interface Opening {
  first: Message;
  between: Message[];
  second: Message;
}

function legacyOpening(protocolVersion: string): Opening {
  return {
    first: {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: CLIENT_INFO },
    },
    between: [{ jsonrpc: '2.0', method: 'notifications/initialized' }],
    second: { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
  };
}

function modernOpening(protocolVersion: string): Opening {
  const params = {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': protocolVersion,
      'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  };
  return {
    first: { jsonrpc: '2.0', id: 1, method: 'server/discover', params },
    between: [],
    second: { jsonrpc: '2.0', id: 2, method: 'tools/list', params },
  };
}

const TIMEOUT_MS = 60_000;

/** The two replies of one server, as written (their ids are the ones we sent, 1 and 2). */
function askFirst(
  server: ServerCommand,
  protocolVersion: string,
  opening: Opening,
): Promise<[Message, Message]> {
  const child = spawn(server.command, server.args, {
    cwd: server.cwd,
    env: { ...(server.env ?? process.env), JUMPERLESS_MCP_FIRST_ANSWERS: 'off' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const line = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  line(opening.first);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`no answers within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    const replies = new Map<unknown, Message>();
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
        const message = JSON.parse(pending.slice(0, at)) as Message;
        pending = pending.slice(at + 1);
        if ('method' in message || (message.id !== 1 && message.id !== 2)) continue;
        if ('error' in message) return fail(new Error(JSON.stringify(message.error)));
        replies.set(message.id, message);
        if (message.id === 1) {
          for (const between of opening.between) line(between);
          line(opening.second);
        }
        if (replies.size === 2) {
          end();
          resolve([replies.get(1) as Message, replies.get(2) as Message]);
        }
      }
    });
  });
}
