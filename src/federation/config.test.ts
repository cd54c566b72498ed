import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFederationConfig, parseFederationConfig } from './config.js';
import { FederationError } from './errors.js';

const parse = (value: unknown, env: NodeJS.ProcessEnv = {}) =>
  parseFederationConfig(value, 'bench.json', '/benches', env);
const refusal = (value: unknown, env: NodeJS.ProcessEnv = {}): string => {
  try {
    parse(value, env);
  } catch (error) {
    expect(error).toBeInstanceOf(FederationError);
    return (error as Error).message;
  }
  throw new Error('accepted');
};

const bench = {
  name: 'bench',
  children: [
    { name: 'jumperless-a', type: 'jumperless', device: 'sim' },
    { name: 'jumperless-b', type: 'jumperless', device: 'sim:parts/led.json' },
    { name: 'esp32-p4', type: 'stdio', command: 'node', args: ['esp.js'], env: { PORT: '/dev/ttyUSB0' } },
    {
      name: 'scope',
      type: 'http',
      url: 'http://127.0.0.1:9000/mcp',
      bearerEnv: 'SCOPE_TOKEN',
      capability: 'jumperless.io',
    },
    { name: 'lab', type: 'socket', path: 'lab.sock', timeoutMs: 5000 },
    {
      name: 'shelf',
      type: 'federation',
      children: [{ name: 'jumperless', type: 'jumperless', device: 'tcp://10.0.0.9:5000' }],
    },
  ],
};

describe('federation config', () => {
  it('reads a whole bench, with defaults, paths anchored at the file and the bearer from the environment', () => {
    const config = parse(bench, { SCOPE_TOKEN: 'sesame' });
    expect(config).toEqual({
      name: 'bench',
      wireFormat: 'underscore',
      listMode: undefined,
      children: [
        { name: 'jumperless-a', type: 'jumperless', device: 'sim' },
        { name: 'jumperless-b', type: 'jumperless', device: 'sim:/benches/parts/led.json' },
        {
          name: 'esp32-p4',
          type: 'stdio',
          command: 'node',
          args: ['esp.js'],
          env: { PORT: '/dev/ttyUSB0' },
          cwd: '/benches',
        },
        {
          name: 'scope',
          type: 'http',
          url: 'http://127.0.0.1:9000/mcp',
          bearer: 'sesame',
          capability: 'jumperless.io',
        },
        { name: 'lab', type: 'socket', path: '/benches/lab.sock', timeoutMs: 5000 },
        {
          name: 'shelf',
          type: 'federation',
          children: [{ name: 'jumperless', type: 'jumperless', device: 'tcp://10.0.0.9:5000' }],
        },
      ],
    });
    expect(
      parse({ ...bench, wireFormat: { separator: '__' }, listMode: 'discovery' }, { SCOPE_TOKEN: 'x' }),
    ).toMatchObject({
      wireFormat: { separator: '__' },
      listMode: 'discovery',
    });
  });

  it('names the file and the path of each bad field', () => {
    const message = refusal({
      name: 'bench',
      wireFormat: 'slash',
      children: [
        { name: 'jumperless-a', type: 'jumperless', devcie: 'sim' },
        { name: 'scope', type: 'http', url: 'ftp://x' },
        { name: 'esp32_p4', type: 'stdio', command: '' },
        { name: 'lab', type: 'serial' },
      ],
    });
    expect(message).toMatch(/^bench\.json: wireFormat: use "underscore", "dot" or \{"separator": "__"\}/m);
    expect(message).toMatch(/^bench\.json: children\[0\]\.device: /m);
    expect(message).toMatch(/^bench\.json: children\[0\]: Unrecognized key: "devcie"/m);
    expect(message).toMatch(
      /^bench\.json: children\[1\]\.url: use an http:\/\/ or https:\/\/ URL, not ftp:/m,
    );
    expect(message).toMatch(
      /^bench\.json: children\[2\]\.name: subsystem name "esp32_p4" is not kebab-case: use "esp32-p4"\. .*ambiguous/m,
    );
    expect(message).toMatch(/^bench\.json: children\[2\]\.command: /m);
    expect(message).toMatch(/^bench\.json: children\[3\]\.type: /m);
  });

  it('refuses twin names, empty federations, bad devices, and bearers it cannot find', () => {
    expect(
      refusal({
        name: 'bench',
        children: [
          { name: 'a', type: 'socket', path: 'x' },
          { name: 'a', type: 'socket', path: 'y' },
        ],
      }),
    ).toBe('bench.json: children[1].name: a second child named "a"');
    expect(refusal({ name: 'bench', children: [] })).toBe(
      'bench.json: children: a federation needs at least one child',
    );
    expect(refusal({ name: 'bench', children: [{ name: 'x', type: 'federation', children: [] }] })).toBe(
      'bench.json: children[0].children: a federation needs at least one child',
    );
    expect(
      refusal({ name: 'bench', children: [{ name: 'a', type: 'jumperless', device: 'ftp://x' }] }),
    ).toMatch(/^bench\.json: children\[0\]\.device: .*use a serial path, auto/);
    expect(
      refusal({ name: 'bench', children: [{ name: 'a', type: 'http', url: 'http://x', bearerEnv: 'NOPE' }] }),
    ).toBe('bench.json: children[0].bearerEnv: the environment variable NOPE is not set');
    expect(
      refusal({
        name: 'bench',
        children: [{ name: 'a', type: 'http', url: 'http://x', bearer: 'b', bearerEnv: 'B' }],
      }),
    ).toBe('bench.json: children[0].bearerEnv: give bearer or bearerEnv, not both');
    expect(refusal({ name: 'Bench', children: [{ name: 'a', type: 'socket', path: 'x' }] })).toMatch(
      /^bench\.json: name: federation name "Bench"/,
    );
    expect(
      refusal({
        name: 'bench',
        children: [{ name: 'x', type: 'federation', children: [{ name: 'y_z', type: 'socket', path: 'p' }] }],
      }),
    ).toMatch(/^bench\.json: children\[0\]\.children\[0\]\.name: subsystem name "y_z"/);
  });

  it("reads where outside leases come from and each board's lease name, and refuses bad ones naming the field", () => {
    const read = parse({
      name: 'lab',
      outsideLease: 'claim:labgrid_place',
      children: [{ name: 'board-1', type: 'jumperless', device: 'sim', leaseName: 'jumperless-3' }],
    });
    expect(read.outsideLease).toEqual({ from: 'claim', name: 'labgrid_place' });
    expect(read.children[0]).toMatchObject({ leaseName: 'jumperless-3' });
    expect(
      parse({ name: 'lab', children: [{ name: 'a', type: 'jumperless', device: 'sim' }] }),
    ).not.toHaveProperty('outsideLease');
    const message = refusal({
      name: 'lab',
      outsideLease: 'labgrid_place',
      children: [{ name: 'board-1', type: 'jumperless', device: 'sim', leaseName: 'bench 3/x' }],
    });
    expect(message).toMatch(/^bench\.json: outsideLease: "labgrid_place" is not claim:<name>/m);
    expect(message).toMatch(/^bench\.json: children\[0\]\.leaseName: "bench 3\/x" is not a lease name/m);
  });

  it('refuses what is not a config at all', () => {
    for (const value of [null, 42, 'bench', [], {}]) expect(refusal(value)).toMatch(/^bench\.json: /);
  });

  it('reads files, and says which file is unreadable or not JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'federation-config-'));
    const good = join(dir, 'good.json');
    writeFileSync(
      good,
      JSON.stringify({ name: 'bench', children: [{ name: 'lab', type: 'socket', path: 'lab.sock' }] }),
    );
    expect(loadFederationConfig(good).children[0]).toMatchObject({ path: join(dir, 'lab.sock') });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"name": "bench",');
    expect(() => loadFederationConfig(bad)).toThrow(new RegExp(`^${bad}: not valid JSON`));
    expect(() => loadFederationConfig(join(dir, 'none.json'))).toThrow(
      /none\.json: cannot read the federation config \(ENOENT\)/,
    );
  });
});
