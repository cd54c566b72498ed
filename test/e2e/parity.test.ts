/**
 * Parity (DESIGN.md §3, dispatch notes §5): the same calls made directly through runTool, over the
 * native socket, over Streamable HTTP and over stdio give byte-identical result JSON. The socket
 * and HTTP legs are one real CLI process serving both from one registry; stdio (with a socket
 * beside it) is another; the direct leg is the same server built in-process. Cases: a success with empty and with omitted
 * arguments, a tool failure, nested arguments, a hidden tool; then the same again behind a
 * federation, where tool names carry the child's prefix.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/cli/app.js';
import { DEFAULT_CONFIG } from '../../src/cli/config.js';
import { CAPABILITIES } from '../../src/core/capabilities.js';
import { runTool } from '../../src/core/runTool.js';
import { FrameClient } from '../../src/device/frameClient.js';
import { conformanceExtras } from '../fixtures/conformance/fixtures.js';
import { serveHttpCli } from '../support/cliHttp.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const MAIN = 'src/cli/main.ts';
/** The CLI with the conformance fixtures beside the board's tools (the single-board cases call them). */
const FIXTURES_CLI = 'test/fixtures/conformance/cli.ts';
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
const MAX_VOLTS = '3.3';

interface Case {
  label: string;
  name: string;
  /** Omitted: the request carries no `arguments` at all. */
  args?: Record<string, unknown>;
  isError: boolean;
}

/** What each leg saw: the result JSON text and whether it was a tool failure. */
interface Seen {
  text: string;
  isError: boolean;
}

const PIXELS = {
  pixels: [
    { x_col: 3, y_row: 2, color: '#ff0000' },
    { x_col: 4, y_row: 2, color: '#00ff00' },
  ],
};

const single: Case[] = [
  { label: 'success, empty arguments', name: 'test_simple_text', args: {}, isError: false },
  { label: 'success, arguments omitted', name: 'test_simple_text', isError: false },
  { label: 'tool failure', name: 'test_error_handling', args: {}, isError: true },
  {
    label: 'tool failure on the board (over the operator limit)',
    name: 'dac_set',
    args: { channel: 'TOP_RAIL', volts: 5 },
    isError: true,
  },
  { label: 'nested arguments on the board', name: 'overlay_set_pixels', args: PIXELS, isError: false },
  { label: 'a hidden tool', name: 'tools_describe', args: { names: ['dac_set', 'no_such'] }, isError: false },
];

const federated: Case[] = [
  { label: 'federated name, nested arguments', name: 'lab_overlay_set_pixels', args: PIXELS, isError: false },
  { label: 'federated name, arguments omitted', name: 'lab_power_get', isError: false },
  {
    label: 'federated name, tool failure',
    name: 'lab_dac_set',
    args: { channel: 'TOP_RAIL', volts: 5 },
    isError: true,
  },
  {
    label: 'a hidden tool of the federation',
    name: 'tools_describe',
    args: { names: ['lab_dac_set'] },
    isError: false,
  },
];

/** A CLI child serving HTTP and the socket, with the URL it printed. */
const startServing = (entry: string, args: string[], socket: string) =>
  serveHttpCli([...args, '--socket', socket], ENV, entry);

async function stdioClient(entry: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'parity-stdio', version: '0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', entry, ...args],
      cwd: ROOT,
      env: ENV,
      stderr: 'ignore',
    }),
  );
  return client;
}

/** The socket names tools by their internal dotted names (`lab.dac_set`), as DESIGN.md decided. */
async function overSocket(client: FrameClient, c: Case, internal: (wire: string) => string): Promise<Seen> {
  const reply = (await client.request({
    type: 'run_tool',
    tool_id: internal(c.name),
    ...(c.args === undefined ? {} : { args: c.args }),
  })) as { type: string; success?: boolean; result?: unknown };
  expect(reply.type).toBe('tool_result');
  return { text: JSON.stringify(reply.result), isError: reply.success === false };
}

function seenOverMcp(result: unknown): Seen {
  const { content, isError } = result as { content: { type: string; text: string }[]; isError?: boolean };
  expect(content[0]?.type).toBe('text');
  return { text: content[0]?.text ?? '', isError: isError === true };
}

describe.each([
  { server: 'one board', cases: single, file: undefined as string | undefined },
  { server: 'a federation', cases: federated, file: 'federation.json' },
])('parity on $server', ({ cases, file }) => {
  const dir = mkdtempSync(join(tmpdir(), 'jlmcp-parity-'));
  const socketPath = join(dir, 'p.sock');
  const stdioSocketPath = join(dir, 's.sock');
  let args: string[];
  let direct: App;
  let serving: { child: ChildProcess; url: string };
  let socket: FrameClient;
  let stdioSocket: FrameClient;
  let http: Client;
  let stdio: Client;

  beforeAll(async () => {
    if (file) {
      writeFileSync(
        join(dir, file),
        JSON.stringify({ name: 'bench', children: [{ name: 'lab', type: 'jumperless', device: 'sim' }] }),
      );
      args = ['--config', join(dir, file), '--max-volts', MAX_VOLTS];
    } else {
      args = ['--sim', '--max-volts', MAX_VOLTS];
    }
    const config = file
      ? { ...DEFAULT_CONFIG, federation: join(dir, file), maxVolts: Number(MAX_VOLTS) }
      : { ...DEFAULT_CONFIG, device: 'sim', maxVolts: Number(MAX_VOLTS) };
    [direct, serving, stdio] = await Promise.all([
      buildApp(config, file ? {} : { extras: conformanceExtras }),
      startServing(file ? MAIN : FIXTURES_CLI, args, socketPath),
      stdioClient(file ? MAIN : FIXTURES_CLI, [...args, '--socket', stdioSocketPath]),
    ]);
    await direct.ready();
    [socket, stdioSocket] = await Promise.all([
      FrameClient.connect(socketPath),
      FrameClient.connect(stdioSocketPath),
    ]);
    for (const client of [socket, stdioSocket]) {
      const hello = await client.request({
        type: 'hello',
        client_id: 'parity',
        requested_capabilities: [...CAPABILITIES],
      });
      expect(hello).toMatchObject({ type: 'hello_ack' });
    }
    http = new Client({ name: 'parity-http', version: '0' });
    await http.connect(new StreamableHTTPClientTransport(new URL(serving.url)));
  }, 90_000);

  afterAll(async () => {
    socket?.close();
    stdioSocket?.close();
    await http?.close().catch(() => {});
    await stdio?.close().catch(() => {});
    if (serving?.child.exitCode === null) {
      const exited = new Promise((done) => serving.child.once('exit', done));
      serving.child.kill('SIGTERM');
      await exited;
    }
    await direct?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const internalOf = (wire: string) => direct.dispatcher.registry.get(wire)?.internal ?? wire;
  const legs: Record<string, (c: Case) => Promise<Seen>> = {
    direct: async (c) =>
      seenOverMcp(
        await runTool(direct.dispatcher, {
          name: c.name,
          ...(c.args === undefined ? {} : { arguments: c.args }),
          caller: { id: 'parity', granted: new Set(CAPABILITIES) },
        }),
      ),
    socket: (c) => overSocket(socket, c, internalOf),
    'socket beside stdio': (c) => overSocket(stdioSocket, c, internalOf),
    http: async (c) =>
      seenOverMcp(
        await http.callTool({ name: c.name, ...(c.args === undefined ? {} : { arguments: c.args }) }),
      ),
    stdio: async (c) =>
      seenOverMcp(
        await stdio.callTool({ name: c.name, ...(c.args === undefined ? {} : { arguments: c.args }) }),
      ),
  };

  it('serves the socket next to HTTP and next to stdio, private to this user (0600)', () => {
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    expect(statSync(stdioSocketPath).mode & 0o777).toBe(0o600);
  });

  it.each(cases)('$label ($name): byte-identical on every transport', async (c) => {
    const seen: Record<string, Seen> = {};
    for (const [leg, call] of Object.entries(legs)) seen[leg] = await call(c);
    const reference = seen.direct as Seen;
    expect(reference.isError).toBe(c.isError);
    // Something worth comparing: an object with content, never two identical empties.
    const parsed = JSON.parse(reference.text) as Record<string, unknown>;
    expect(Object.keys(parsed).length).toBeGreaterThan(0);
    for (const [leg, other] of Object.entries(seen)) {
      expect(other.isError, leg).toBe(reference.isError);
      expect(other.text, leg).toBe(reference.text);
    }
  });
});
