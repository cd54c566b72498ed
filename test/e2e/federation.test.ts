/**
 * A real federation behind one HTTP endpoint, driven by the SDK Client: two virtual boards, the
 * stdio MCP fixture server, a nested group with a third board, and a single-board jumperless-mcp
 * over HTTP, all from a config file as `jumperless-mcp --config` reads it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/cli/app.js';
import { DEFAULT_CONFIG, resolveConfig } from '../../src/cli/config.js';
import { ANONYMOUS_CAPABILITIES } from '../../src/core/capabilities.js';
import { type RunningHttpServer, startHttpServer } from '../../src/http/app.js';
import { rpcError } from '../support/rpcError.js';
import { type HttpFixture, MODERN, startHttpFixture } from './serverFixture.js';

/** What an anonymous HTTP caller holds by default. */
const ANONYMOUS = new Set(ANONYMOUS_CAPABILITIES);

const ROOT = resolve(import.meta.dirname, '..', '..');
const FIXTURE = join(ROOT, 'test/fixtures/mcpChild/server.ts');
const dir = mkdtempSync(join(tmpdir(), 'federation-e2e-'));
const downFile = join(dir, 'esp32-down');
const pidFile = join(dir, 'esp32.pid');

let remote: HttpFixture;
let app: App;
let http: RunningHttpServer;
const clients: Client[] = [];

async function connect(
  experimental?: Record<string, Record<string, never>>,
): Promise<{ client: Client; changes: () => number }> {
  const client = new Client(
    { name: 'federation-e2e', version: '0' },
    { capabilities: experimental ? { experimental } : {} },
  );
  let changes = 0;
  client.setNotificationHandler('notifications/tools/list_changed', async () => {
    changes++;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  clients.push(client);
  return { client, changes: () => changes };
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? '';

beforeAll(async () => {
  remote = await startHttpFixture();
  const file = join(dir, 'bench.json');
  writeFileSync(
    file,
    JSON.stringify({
      name: 'bench',
      reconnect: { initialMs: 50, maxMs: 200 },
      children: [
        { name: 'jumperless-a', type: 'jumperless', device: 'sim' },
        { name: 'jumperless-b', type: 'jumperless', device: 'sim' },
        {
          name: 'esp32-p4',
          type: 'stdio',
          command: process.execPath,
          args: ['--import', 'tsx', FIXTURE],
          env: { MCP_CHILD_DOWN_FILE: downFile, MCP_CHILD_PID_FILE: pidFile },
          cwd: ROOT,
        },
        {
          name: 'shelf',
          type: 'federation',
          children: [{ name: 'jumperless', type: 'jumperless', device: 'sim' }],
        },
        { name: 'remote', type: 'http', url: remote.url },
      ],
    }),
  );
  app = await buildApp({ ...DEFAULT_CONFIG, federation: file });
  await app.ready();
  http = await startHttpServer({
    port: 0,
    createServer: (_, era) =>
      app.createServer((sessionId) => ({ id: `http:${sessionId}`, granted: ANONYMOUS }), {
        era,
        perRequest: era === 'modern',
      }),
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await http?.close();
  await app?.close();
  await remote?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a federation over HTTP', () => {
  it('lists every child tool under a prefixed wire name, hidden tools and meta-tools left out', async () => {
    const { client } = await connect();
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'jumperless-a_dac_set',
        'jumperless-b_dac_set',
        'jumperless-a_power_get',
        'esp32-p4_echo',
        'esp32-p4_wait',
        'shelf_jumperless_dac_set',
        'remote_power_get',
      ]),
    );
    for (const name of names)
      expect(name).toMatch(/^(jumperless-a|jumperless-b|esp32-p4|shelf_jumperless|remote)_[a-z_]+$/);
    expect(names.filter((n) => n.endsWith('python_exec'))).toEqual([]);
    expect(names).not.toContain('dac_set');
    expect(names).not.toContain('tools_search');
    const dacSet = (await client.listTools()).tools.find((t) => t.name === 'jumperless-a_dac_set');
    // Lists send only hints that differ from MCP's defaults, and no title or output schema.
    expect(dacSet).toMatchObject({
      inputSchema: { type: 'object', required: ['channel', 'volts'] },
      annotations: { destructiveHint: false },
    });
    expect(dacSet).not.toHaveProperty('outputSchema');
  });

  it('calls a tool on each board, each its own board, and on the stdio child and the nested and remote ones', async () => {
    const { client } = await connect();
    const set = await client.callTool({
      name: 'jumperless-a_dac_set',
      arguments: { channel: 'TOP_RAIL', volts: 5 },
    });
    expect(set.isError).toBeUndefined();
    expect(set.structuredContent).toMatchObject({ channel: 'TOP_RAIL', volts: 5 });
    expect(textOf(set)).toBe(JSON.stringify(set.structuredContent));
    const a = await client.callTool({ name: 'jumperless-a_power_get', arguments: {} });
    const b = await client.callTool({ name: 'jumperless-b_power_get', arguments: {} });
    expect(a.structuredContent).toMatchObject({ top_rail_volts: 5 });
    expect(b.structuredContent).toMatchObject({ top_rail_volts: 0 });
    const echo = await client.callTool({ name: 'esp32-p4_echo', arguments: { text: 'from the bench' } });
    expect(echo.structuredContent).toMatchObject({ text: 'from the bench' });
    const plain = await client.callTool({ name: 'esp32-p4_plain', arguments: {} });
    expect(plain).toMatchObject({ content: [{ type: 'text', text: 'just text' }] });
    const nested = await client.callTool({
      name: 'shelf_jumperless_dac_set',
      arguments: { channel: 'DAC1', volts: 1.5 },
    });
    expect(nested.structuredContent).toMatchObject({ channel: 'DAC1', volts: 1.5 });
    const far = await client.callTool({
      name: 'remote_dac_set',
      arguments: { channel: 'BOTTOM_RAIL', volts: -2 },
    });
    expect(far.structuredContent).toMatchObject({ channel: 'BOTTOM_RAIL', volts: -2 });
    const board = remote.app.board?.session;
    expect(board?.health().jobs.done).toBeGreaterThan(0);
  });

  it.each([
    ['a 2025 client', false],
    ['a 2026-07-28 client', true],
  ])(
    "puts a 2026-07-28 child's question (ask_user) to the person at %s, and passes the answer back",
    async (_who, modern) => {
      const asking = new Client(
        { name: 'federation-e2e', version: '0' },
        {
          capabilities: { elicitation: {} },
          ...(modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
        },
      );
      await asking.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      clients.push(asking);
      const questions: string[] = [];
      asking.setRequestHandler('elicitation/create', async (request) => {
        questions.push(String(request.params.message));
        return { action: questions.length === 1 ? 'accept' : 'decline' };
      });
      const yes = await asking.callTool({
        name: 'remote_ask_user',
        arguments: { instruction: 'Is the far LED lit?', timeout_seconds: 20 },
      });
      expect(yes.structuredContent).toMatchObject({ answer: 'confirmed', answered_by: 'client' });
      const no = await asking.callTool({
        name: 'remote_ask_user',
        arguments: { instruction: 'Any smoke?', timeout_seconds: 20 },
      });
      expect(no.structuredContent).toMatchObject({ answer: 'declined', answered_by: 'client' });
      expect(questions).toEqual([
        expect.stringContaining('Is the far LED lit?'),
        expect.stringContaining('Any smoke?'),
      ]);
      // The federation reached that child in 2026-07-28 (stateless): it holds no 2025 session there.
      expect(remote.http.sessions.size).toBe(0);
    },
  );

  it('answers names not in the table as unknown tools (-32602), and keeps the pipeline gates', async () => {
    const { client } = await connect();
    for (const name of [
      'jumperless-a_',
      'esp32-p4.echo',
      'dac_set',
      'esp32-p4_',
      'jumperless_a_dac_set',
      'bench_jumperless-a_dac_set',
    ]) {
      const error = await rpcError(client.callTool({ name, arguments: {} }));
      expect(error.code, name).toBe(-32602);
      expect(error.message).toContain(`Unknown tool: ${name}`);
    }
    const invalid = await rpcError(
      client.callTool({ name: 'jumperless-b_dac_set', arguments: { channel: 'TOP_RAIL', volts: 99 } }),
    );
    expect(invalid.code).toBe(-32602);
    expect(invalid.message).toMatch(/volts/);
    // The remote single-board server refuses bad arguments itself; its -32602 comes through.
    const remoteInvalid = await rpcError(
      client.callTool({ name: 'remote_dac_set', arguments: { channel: 'NOPE' } }),
    );
    expect(remoteInvalid.code).toBe(-32602);
    // Hidden but callable by name, and gated: anonymous HTTP has no exec capability.
    const denied = await rpcError(
      client.callTool({ name: 'jumperless-a_python_exec', arguments: { code: 'print(1)' } }),
    );
    expect(denied.code).toBe(-32603);
    expect(denied.data).toMatchObject({ code: 1001, missing: ['jumperless.exec'] });
  });

  it('finds dac_set in discovery mode when asked to "set a voltage"', async () => {
    const { client } = await connect({ 'x-deferred-tools': {} });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['tools_search', 'tools_describe']);
    const search = await client.callTool({
      name: 'tools_search',
      arguments: { query: 'set a voltage', limit: 5 },
    });
    const hits = (search.structuredContent as { tools: { name: string; score: number }[] }).tools;
    expect(hits[0]?.name).toMatch(/_dac_set$/);
    expect(hits[0]?.score).toBeGreaterThan(0.9);
    expect(hits.every((hit) => hit.score > 0 && hit.score <= 1)).toBe(true);
    const described = await client.callTool({
      name: 'tools_describe',
      arguments: { names: [hits[0]?.name, 'jumperless-a_python_exec'] },
    });
    expect(described.structuredContent).toMatchObject({
      tools: [{ name: hits[0]?.name, inputSchema: { required: ['channel', 'volts'] } }],
      unknown: ['jumperless-a_python_exec'],
    });
    const called = await client.callTool({
      name: hits[0]?.name ?? '',
      arguments: { channel: 'DAC0', volts: 1 },
    });
    expect(called.structuredContent).toMatchObject({ channel: 'DAC0', volts: 1 });
  });

  it('reports health per child and overall', async () => {
    const { client } = await connect();
    const { contents } = await client.readResource({ uri: 'federation://health' });
    const health = JSON.parse((contents[0] as { text: string }).text);
    expect(health).toMatchObject({ name: 'bench', status: 'ok' });
    expect(health.children.map((c: { name: string; status: string }) => [c.name, c.status])).toEqual([
      ['jumperless-a', 'ok'],
      ['jumperless-b', 'ok'],
      ['esp32-p4', 'ok'],
      ['shelf', 'ok'],
      ['remote', 'ok'],
    ]);
    expect(health.children[0]).toMatchObject({ device: 'sim', session: { state: 'ready' } });
  });

  it('survives a child killed mid-session: list_changed, unavailable at once, then back after a restart', async () => {
    const { client, changes } = await connect();
    const firstPid = Number(readFileSync(pidFile, 'utf8'));
    writeFileSync(downFile, ''); // restarts fail until the "device" is back
    process.kill(firstPid, 'SIGKILL');
    await waitFor(() => changes() >= 1, 'list_changed after the drop');
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed.some((n) => n.startsWith('esp32-p4_'))).toBe(false);
    expect(listed).toContain('jumperless-a_dac_set');
    const down = await client.callTool({ name: 'esp32-p4_echo', arguments: { text: 'anyone?' } });
    expect(down.isError).toBe(true);
    expect(JSON.parse(textOf(down))).toMatchObject({
      code: 'unavailable',
      retryable: true,
      subsystem: 'esp32-p4',
    });
    const { contents } = await client.readResource({ uri: 'federation://health' });
    expect(JSON.parse((contents[0] as { text: string }).text)).toMatchObject({
      status: 'down',
      children: expect.arrayContaining([expect.objectContaining({ name: 'esp32-p4', status: 'down' })]),
    });
    // The other children carry on.
    expect(
      (await client.callTool({ name: 'jumperless-b_power_get', arguments: {} })).isError,
    ).toBeUndefined();

    const before = changes();
    rmSync(downFile);
    await waitFor(() => changes() > before, 'list_changed after the restart');
    await waitFor(
      async () => (await client.listTools()).tools.some((t) => t.name === 'esp32-p4_echo'),
      'echo listed',
    );
    const back = await client.callTool({ name: 'esp32-p4_echo', arguments: { text: 'back' } });
    expect(back.structuredContent).toMatchObject({ text: 'back' });
    expect((back.structuredContent as { pid: number }).pid).not.toBe(firstPid);
  });

  it('passes a child catalog change on as list_changed', async () => {
    const { client, changes } = await connect();
    await client.callTool({ name: 'esp32-p4_grow', arguments: {} });
    await waitFor(() => changes() > 0, 'list_changed');
    const extra = await client.callTool({ name: 'esp32-p4_extra', arguments: {} });
    expect(extra.content).toEqual([{ type: 'text', text: 'extra' }]);
  });
});

describe('list modes and the CLI options', () => {
  let single: HttpFixture;
  beforeAll(async () => {
    single = await startHttpFixture({ listMode: 'names' });
  });
  afterAll(async () => {
    await single?.close();
  });

  it('keeps the single-board names, and lists names and titles in names mode, with the meta-tools', async () => {
    const { client } = await single.connect();
    const { tools } = await client.listTools();
    const dacSet = tools.find((t) => t.name === 'dac_set');
    expect(dacSet).toEqual({
      name: 'dac_set',
      description: 'Set a supply voltage',
      inputSchema: { type: 'object' },
    });
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['power_get', 'tools_search', 'tools_describe']),
    );
    expect(tools.map((t) => t.name)).not.toContain('python_exec');
    // One board or a bench, the same server: the catalog may change (toolsets, children) and says so.
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    const search = await client.callTool({ name: 'tools_search', arguments: { query: 'set a voltage' } });
    expect((search.structuredContent as { tools: { name: string }[] }).tools[0]?.name).toBe('dac_set');
  });

  it('reads --config and --list-mode, and refuses --config with --device', () => {
    expect(resolveConfig({ config: 'bench.json', listMode: 'discovery' }, {})).toMatchObject({
      federation: 'bench.json',
      listMode: 'discovery',
    });
    expect(
      resolveConfig({}, { JUMPERLESS_MCP_CONFIG: 'b.json', JUMPERLESS_MCP_LIST_MODE: 'names' }),
    ).toMatchObject({
      federation: 'b.json',
      listMode: 'names',
    });
    expect(() => resolveConfig({ listMode: 'all' }, {})).toThrow(/--list-mode: "all" is not a list mode/);
    expect(() => resolveConfig({ config: 'b.json', sim: true }, {})).toThrow(/leave out --device and --sim/);
  });

  it('refuses to start a federation whose config is bad, naming the field', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({ name: 'bench', children: [{ name: 'esp32_p4', type: 'socket', path: 'x' }] }),
    );
    await expect(buildApp({ ...DEFAULT_CONFIG, federation: file })).rejects.toThrow(
      /bad\.json: children\[0\]\.name: subsystem name "esp32_p4" is not kebab-case/,
    );
  });
});

describe('jumperless-mcp --config over stdio', () => {
  let client: Client;
  let stderr = '';
  beforeAll(async () => {
    const file = join(dir, 'stdio-bench.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'desk',
        listMode: 'full',
        children: [
          { name: 'jumperless', type: 'jumperless', device: 'sim' },
          {
            name: 'esp32-p4',
            type: 'stdio',
            command: process.execPath,
            args: ['--import', 'tsx', FIXTURE],
            cwd: ROOT,
          },
        ],
      }),
    );
    client = new Client({ name: 'federation-stdio', version: '0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli/main.ts', '--config', file],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await client.connect(transport);
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });

  it('serves the federation on stdio: the operator reaches every tool, hidden ones included', async () => {
    // The bench answers before its children are up; the board's catalog is listed from the start,
    // the stdio child's once it has connected (tools/list_changed).
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('jumperless_dac_set');
    await expect
      .poll(async () => (await client.listTools()).tools.map((t) => t.name), { timeout: 20_000 })
      .toContain('esp32-p4_echo');
    expect(client.getInstructions()).toMatch(/bench "desk".*jumperless \(a Jumperless V5 breadboard\)/);
    const set = await client.callTool({
      name: 'jumperless_dac_set',
      arguments: { channel: 'DAC0', volts: 3.3 },
    });
    expect(set.structuredContent).toMatchObject({ channel: 'DAC0', volts: 3.3 });
    const exec = await client.callTool({
      name: 'jumperless_python_exec',
      arguments: { code: 'print(6 * 7)' },
    });
    expect(JSON.stringify(exec.structuredContent)).toMatch(/42/);
    const echo = await client.callTool({ name: 'esp32-p4_echo', arguments: { text: 'stdio' } });
    expect(echo.structuredContent).toMatchObject({ text: 'stdio' });
    expect(stderr).not.toMatch(/error/i);
  });
});
