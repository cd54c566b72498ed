import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type AnsweringOptions,
  answerFirst,
  type FirstAnswers,
  servesRecordedCatalog,
  startAnswering,
} from './firstAnswers.js';

const RECORDED: FirstAnswers = {
  initialize: {
    '2025-06-18': {
      result: { protocolVersion: '2025-06-18', serverInfo: { name: 'x' } },
      jsonrpc: '2.0',
      id: 1,
    },
  },
  toolsList: { result: { tools: [{ name: 'power_get' }] }, jsonrpc: '2.0', id: 2 },
  modern: {
    '2026-07-28': {
      discover: { result: { supportedVersions: ['2026-07-28'], ttlMs: 60000 }, jsonrpc: '2.0', id: 1 },
      toolsList: {
        result: { tools: [{ name: 'power_get' }], ttlMs: 60000, cacheScope: 'private' },
        jsonrpc: '2.0',
        id: 2,
      },
    },
  },
};

const initialize = (id: number | string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'c', version: '1' },
    ...extra,
  },
});
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const list = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
const line = (message: unknown) => `${JSON.stringify(message)}\n`;

/** The 2026-07-28 envelope the v2 SDK client puts on every request. */
const envelope = (extra: Record<string, unknown> = {}) => ({
  _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  },
});
const discover = (id: number | string, params: unknown = envelope()) => ({
  jsonrpc: '2.0',
  id,
  method: 'server/discover',
  params,
});
const modernList = (id: number | string, params: unknown = envelope()) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/list',
  params,
});
const MODERN = RECORDED.modern?.['2026-07-28'] as NonNullable<FirstAnswers['modern']>[string];

/** A stdin/stdout pair around the answerer, and what reached stdout and the server's side. */
function harness(options: AnsweringOptions = {}) {
  const stdin = new PassThrough();
  const written: string[] = [];
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      written.push(chunk.toString());
      done();
    },
  });
  const answering = startAnswering(RECORDED, stdin, stdout, options);
  const forwarded: string[] = [];
  answering.input.on('data', (chunk: Buffer) => forwarded.push(chunk.toString()));
  const lines = () => written.join('').split('\n').filter(Boolean);
  return { stdin, answering, forwarded, lines };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => vi.restoreAllMocks());

describe('first answers', () => {
  it('answers initialize and tools/list with the client ids, forwards every byte, then lets the server load', async () => {
    const { stdin, answering, forwarded, lines } = harness();
    stdin.write(line(initialize('a')));
    await tick();
    stdin.write(line(initialized) + line(list(7)));
    await answering.ready;
    expect(lines()).toEqual([
      JSON.stringify({
        result: { protocolVersion: '2025-06-18', serverInfo: { name: 'x' } },
        jsonrpc: '2.0',
        id: 'a',
      }),
      JSON.stringify({ result: { tools: [{ name: 'power_get' }] }, jsonrpc: '2.0', id: 7 }),
    ]);
    expect(forwarded.join('')).toBe(line(initialize('a')) + line(initialized) + line(list(7)));
  });

  it("drops the server's own replies to those two, and passes everything else", async () => {
    const { stdin, answering, lines } = harness();
    stdin.write(line(initialize(1)) + line(initialized) + line(list(2)));
    await answering.ready;
    const { output } = answering;
    const write = (message: unknown) =>
      new Promise<void>((done) => output.write(line(message), () => done()));
    await write({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'connected' } });
    await write({ ...RECORDED.initialize['2025-06-18'], id: 1 });
    await write({ ...RECORDED.toolsList, id: 2 });
    await write({ result: { content: [] }, jsonrpc: '2.0', id: 3 });
    // An id answered here is dropped once: a later reply with it is not ours to drop.
    await write({ result: {}, jsonrpc: '2.0', id: 2 });
    expect(lines().slice(2)).toEqual([
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'connected' } }),
      JSON.stringify({ result: { content: [] }, jsonrpc: '2.0', id: 3 }),
      JSON.stringify({ result: {}, jsonrpc: '2.0', id: 2 }),
    ]);
  });

  it('tells the client to list again when the server lists otherwise than the recording', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { stdin, answering, lines } = harness();
    stdin.write(line(initialize(1)) + line(initialized) + line(list(2)));
    await answering.ready;
    await new Promise<void>((done) =>
      answering.output.write(line({ result: { tools: [] }, jsonrpc: '2.0', id: 2 }), () => done()),
    );
    expect(lines().slice(2)).toEqual([
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }),
    ]);
    expect(String(stderr.mock.calls[0]?.[0])).toMatch(/recorded tools\/list answer differs/);
  });

  it.each([
    ['a first request that is not initialize', [list(1)]],
    ['a version not recorded', [initialize(1, { protocolVersion: '2099-01-01' })]],
    [
      'an initialize without clientInfo',
      [{ ...initialize(1), params: { protocolVersion: '2025-06-18', capabilities: {} } }],
    ],
    ['a line that is not JSON', ['{"jsonrpc":"2.0",']],
    // The SDK refuses these, or may answer them otherwise: its answer, not a recorded success.
    [
      'an initialize whose roots capability is not an object',
      [initialize(1, { capabilities: { roots: 5 } })],
    ],
    [
      'an initialize whose elicitation capability the SDK refuses',
      [initialize(1, { capabilities: { elicitation: { form: { applyDefaults: 'yes' } } } })],
    ],
    ['an initialize with a capability not known here', [initialize(1, { capabilities: { tasks: {} } })]],
    [
      'an initialize with more params',
      [{ ...initialize(1), params: { ...initialize(1).params, _meta: {} } }],
    ],
    [
      'an initialize whose client info has a number',
      [initialize(1, { clientInfo: { name: 'c', version: '1', title: 2 } })],
    ],
  ])('answers nothing after %s, and loads the server at once', async (_what, messages) => {
    const { stdin, answering, forwarded, lines } = harness();
    const text = messages.map((m) => (typeof m === 'string' ? `${m}\n` : line(m))).join('');
    stdin.write(text);
    await answering.ready;
    expect(lines()).toEqual([]);
    expect(forwarded.join('')).toBe(text);
  });

  it('leaves the list to the server for a client that asks for experimental features (discovery mode)', async () => {
    const { stdin, answering, lines } = harness();
    stdin.write(line(initialize(1, { capabilities: { experimental: { 'x-deferred-tools': {} } } })));
    await answering.ready;
    stdin.write(line(initialized) + line(list(2)));
    await tick();
    expect(lines().map((text) => JSON.parse(text).id)).toEqual([1]);
  });

  it('leaves a paged or filtered list to the server', async () => {
    const { stdin, answering, lines } = harness();
    stdin.write(line(initialize(1)) + line(initialized));
    stdin.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 'x' } }));
    await answering.ready;
    expect(lines().map((text) => JSON.parse(text).id)).toEqual([1]);
  });

  it('ends the input for the server when stdin ends', async () => {
    const { stdin, answering } = harness();
    const ended = new Promise((done) => answering.input.once('end', done));
    answering.input.resume();
    stdin.end(line(initialize(1)));
    await answering.ready;
    await ended;
  });
});

describe('first answers to a 2026-07-28 client', () => {
  it('answers server/discover and tools/list with the client ids, forwards every byte, then lets the server load', async () => {
    const { stdin, answering, forwarded, lines } = harness();
    stdin.write(line(discover('server-discover-probe-1')));
    await tick();
    stdin.write(line(modernList(0)));
    await answering.ready;
    expect(lines()).toEqual([
      JSON.stringify({ ...MODERN.discover, id: 'server-discover-probe-1' }),
      JSON.stringify({ ...MODERN.toolsList, id: 0 }),
    ]);
    expect(forwarded.join('')).toBe(line(discover('server-discover-probe-1')) + line(modernList(0)));
  });

  it('answers a client with plain capabilities and a log level as any other', async () => {
    const { stdin, answering, lines } = harness();
    const meta = {
      'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1', title: 'C' },
      'io.modelcontextprotocol/clientCapabilities': {
        elicitation: { form: { applyDefaults: true }, url: {} },
        sampling: { tools: {} },
        roots: { listChanged: true },
      },
      'io.modelcontextprotocol/logLevel': 'debug',
    };
    stdin.write(line(discover(1, envelope(meta))) + line(modernList(2, envelope(meta))));
    await answering.ready;
    expect(lines().map((text) => JSON.parse(text).id)).toEqual([1, 2]);
  });

  it("drops the server's own replies to those two, and passes everything else", async () => {
    const { stdin, answering, lines } = harness();
    stdin.write(line(discover('d')) + line(modernList(0)));
    await answering.ready;
    const write = (message: unknown) =>
      new Promise<void>((done) => answering.output.write(line(message), () => done()));
    await write({ ...MODERN.discover, id: 'd' });
    await write({ ...MODERN.toolsList, id: 0 });
    await write({ result: { content: [] }, jsonrpc: '2.0', id: 1 });
    expect(lines().slice(2)).toEqual([JSON.stringify({ result: { content: [] }, jsonrpc: '2.0', id: 1 })]);
  });

  it('says a list that differs on stderr, and sends no list change the client did not ask for', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { stdin, answering, lines } = harness();
    stdin.write(line(discover('d')) + line(modernList(0)));
    await answering.ready;
    await new Promise<void>((done) =>
      answering.output.write(line({ result: { tools: [] }, jsonrpc: '2.0', id: 0 }), () => done()),
    );
    expect(lines().slice(2)).toEqual([]);
    expect(String(stderr.mock.calls[0]?.[0])).toMatch(
      /recorded tools\/list \(2026-07-28\) answer differs.*cannot be told/,
    );
  });

  it('answers nothing when the recording is not current, and asks that once, only for such a client', async () => {
    const modernCurrent = vi.fn(() => false);
    const stale = harness({ modernCurrent });
    const text = line(discover(1)) + line(modernList(2));
    stale.stdin.write(text);
    await stale.answering.ready;
    expect(stale.lines()).toEqual([]);
    expect(stale.forwarded.join('')).toBe(text);
    expect(modernCurrent).toHaveBeenCalledTimes(1);
    const legacy = harness({ modernCurrent });
    legacy.stdin.write(line(initialize(1)) + line(initialized) + line(list(2)));
    await legacy.answering.ready;
    expect(legacy.lines().map((t) => JSON.parse(t).id)).toEqual([1, 2]);
    expect(modernCurrent).toHaveBeenCalledTimes(1);
  });

  const caps = (capabilities: unknown) =>
    envelope({ 'io.modelcontextprotocol/clientCapabilities': capabilities });
  it.each([
    ['a version not recorded', envelope({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' })],
    ['no envelope', {}],
    ['no params', undefined],
    ['another member of params', { ...envelope(), cursor: 'x' }],
    ['a progress token', envelope({ progressToken: 1 })],
    ['a _meta key we do not know', envelope({ 'example.com/trace': 'x' })],
    ['no client info', envelope({ 'io.modelcontextprotocol/clientInfo': undefined })],
    [
      'client info with icons',
      envelope({ 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1', icons: [] } }),
    ],
    ['experimental capabilities', caps({ experimental: { 'x-deferred-tools': {} } })],
    ['extensions', caps({ extensions: { 'io.example/x': {} } })],
    ['a capability we do not know', caps({ constructor: {} })],
    ['a capability the SDK would refuse', caps({ elicitation: 5 })],
    ['a capability member the SDK would refuse', caps({ roots: { listChanged: 'yes' } })],
    ['a form capability the SDK would refuse', caps({ elicitation: { form: { applyDefaults: 1 } } })],
    ['a log level that is not one', envelope({ 'io.modelcontextprotocol/logLevel': 'loud' })],
  ])('answers nothing to a server/discover with %s, and loads the server at once', async (_what, params) => {
    const { stdin, answering, forwarded, lines } = harness();
    // Through JSON, as on the wire: an undefined member is not there.
    const text = line({ ...discover(1), params });
    stdin.write(text);
    await answering.ready;
    expect(lines()).toEqual([]);
    expect(forwarded.join('')).toBe(text);
  });

  it.each([
    ['a cursor', { ...envelope(), cursor: 'x' }],
    ['experimental capabilities (discovery mode)', caps({ experimental: { 'x-deferred-tools': {} } })],
    ['another protocol version', envelope({ 'io.modelcontextprotocol/protocolVersion': '2025-11-25' })],
    ['no envelope', {}],
  ])('leaves a tools/list with %s to the server', async (_what, params) => {
    const { stdin, answering, lines } = harness();
    stdin.write(line(discover(1)) + line(modernList(2, params)));
    await answering.ready;
    expect(lines().map((text) => JSON.parse(text).id)).toEqual([1]);
  });

  it('answers a tools/list that opens the connection (the SDK discovers on a process of its own)', async () => {
    const { stdin, answering, forwarded, lines } = harness();
    stdin.write(line(modernList(0)));
    await answering.ready;
    expect(lines()).toEqual([JSON.stringify({ ...MODERN.toolsList, id: 0 })]);
    expect(forwarded.join('')).toBe(line(modernList(0)));
  });

  it.each([
    ['a cursor', { ...envelope(), cursor: 'x' }],
    ['experimental capabilities (discovery mode)', caps({ experimental: { 'x-deferred-tools': {} } })],
    ['a version not recorded', envelope({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' })],
    ['a progress token', envelope({ progressToken: 't' })],
  ])('leaves an opening tools/list with %s to the server', async (_what, params) => {
    const { stdin, answering, lines } = harness();
    stdin.write(line(modernList(1, params)));
    await answering.ready;
    expect(lines()).toEqual([]);
  });

  it('leaves to the server a tools/list after a notification, and a stale recording asked once', async () => {
    const after = harness();
    after.stdin.write(line(discover(1)) + line(initialized) + line(modernList(2)));
    await after.answering.ready;
    expect(after.lines().map((text) => JSON.parse(text).id)).toEqual([1]);
    const modernCurrent = vi.fn(() => false);
    const stale = harness({ modernCurrent });
    stale.stdin.write(line(modernList(1)));
    await stale.answering.ready;
    expect(stale.lines()).toEqual([]);
    expect(modernCurrent).toHaveBeenCalledTimes(1);
  });

  it('leaves a tools/list with the id of the discover to the server (its replies could not be told apart)', async () => {
    const { stdin, answering, lines } = harness();
    stdin.write(line(discover(1)) + line(modernList(1)));
    await answering.ready;
    expect(lines().map((text) => JSON.parse(text).id)).toEqual([1]);
  });
});

describe('which processes answer first', () => {
  it.each([
    [[], true],
    [['--sim'], true],
    [['--sim', 'parts.json'], true],
    [['--device', 'tcp://127.0.0.1:1'], true],
    [['--device=sim', '--audit', '/tmp/a'], true],
    [['--socket'], true],
    [['--http'], false],
    [['--read-only'], false],
    [['--toolsets', 'power'], false],
    [['--max-volts', '5'], false],
    [['--config', 'bench.json'], false],
    [['--device'], false],
    [['sim'], false],
    [['--help'], false],
  ] as const)('%j: %s', (args, expected) => {
    expect(servesRecordedCatalog(args, {})).toBe(expected);
  });

  it('not when an environment variable changes the catalog', () => {
    expect(servesRecordedCatalog(['--sim'], { JUMPERLESS_MCP_DEVICE: 'sim' })).toBe(true);
    expect(servesRecordedCatalog(['--sim'], { JUMPERLESS_MCP_TOOLSETS: 'power' })).toBe(false);
    expect(servesRecordedCatalog(['--sim'], { JUMPERLESS_MCP_GRANT: 'jumperless.read' })).toBe(false);
  });
});

describe('a serial device that is not there', () => {
  it('is left to the server, which says so before anything is answered', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'first-')), 'answers.json');
    writeFileSync(file, JSON.stringify(RECORDED));
    const env = { JUMPERLESS_MCP_FIRST_ANSWERS: file };
    const streams = () => ({ input: new PassThrough(), output: new PassThrough() });
    expect(answerFirst(['--device', '/dev/no-such-board'], env, streams())).toBeUndefined();
    expect(answerFirst(['--device=/dev/no-such-board'], env, streams())).toBeUndefined();
    expect(
      answerFirst([], { ...env, JUMPERLESS_MCP_DEVICE: '/dev/no-such-board' }, streams()),
    ).toBeUndefined();
    expect(answerFirst(['--device', tmpdir()], env, streams())).toBeDefined();
    expect(answerFirst(['--sim'], env, streams())).toBeDefined();
  });
});

describe('the recorded file', () => {
  const fileOf = (answers: unknown) => {
    const file = join(mkdtempSync(join(tmpdir(), 'first-')), 'answers.json');
    writeFileSync(file, JSON.stringify(answers));
    return { JUMPERLESS_MCP_FIRST_ANSWERS: file };
  };
  const streams = () => ({ input: new PassThrough(), output: new PassThrough() });

  it('is read without 2026-07-28 answers (a build from before them)', () => {
    const { modern: _, ...legacy } = RECORDED;
    expect(answerFirst(['--sim'], fileOf(legacy), streams())).toBeDefined();
  });

  it('is not used when its 2026-07-28 answers are not whole', () => {
    const broken = { ...RECORDED, modern: { '2026-07-28': { discover: MODERN.discover } } };
    expect(answerFirst(['--sim'], fileOf(broken), streams())).toBeUndefined();
    expect(answerFirst(['--sim'], fileOf({ ...RECORDED, modern: [] }), streams())).toBeUndefined();
  });
});
