import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerFirst, type FirstAnswers, servesRecordedCatalog, startAnswering } from './firstAnswers.js';

const RECORDED: FirstAnswers = {
  initialize: {
    '2025-06-18': {
      result: { protocolVersion: '2025-06-18', serverInfo: { name: 'x' } },
      jsonrpc: '2.0',
      id: 1,
    },
  },
  toolsList: { result: { tools: [{ name: 'power_get' }] }, jsonrpc: '2.0', id: 2 },
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

/** A stdin/stdout pair around the answerer, and what reached stdout and the server's side. */
function harness() {
  const stdin = new PassThrough();
  const written: string[] = [];
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      written.push(chunk.toString());
      done();
    },
  });
  const answering = startAnswering(RECORDED, stdin, stdout);
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
