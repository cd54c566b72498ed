import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, parseHttp, parsePort, resolveConfig } from './config.js';

describe('resolveConfig', () => {
  it('starts from the defaults', () => {
    expect(resolveConfig({}, {})).toEqual(DEFAULT_CONFIG);
  });
  it('lets env override defaults and flags override env', () => {
    const env = {
      JUMPERLESS_MCP_DEVICE: 'tcp://127.0.0.1:7000',
      JUMPERLESS_MCP_MAX_VOLTS: '5',
      JUMPERLESS_MCP_HTTP: '9000',
    };
    expect(resolveConfig({}, env)).toMatchObject({
      device: 'tcp://127.0.0.1:7000',
      maxVolts: 5,
      http: { host: '127.0.0.1', port: 9000 },
    });
    expect(resolveConfig({ sim: 'parts.json', maxVolts: '3.3' }, env)).toMatchObject({
      device: 'sim:parts.json',
      maxVolts: 3.3,
    });
    expect(resolveConfig({ sim: true }, env).device).toBe('sim');
    expect(resolveConfig({ http: true }, {}).http).toEqual({ host: '127.0.0.1', port: 8931 });
  });
  it('reads where outside leases come from and the board it binds, from flags over env', () => {
    const env = { JUMPERLESS_MCP_OUTSIDE_LEASE: 'header:X-Lease', JUMPERLESS_MCP_LEASE_NAME: 'jumperless-3' };
    expect(resolveConfig({}, env)).toMatchObject({
      outsideLease: { from: 'header', name: 'X-Lease' },
      leaseName: 'jumperless-3',
    });
    expect(resolveConfig({ outsideLease: 'claim:labgrid_place' }, env).outsideLease).toEqual({
      from: 'claim',
      name: 'labgrid_place',
    });
    expect(() => resolveConfig({ outsideLease: 'place' }, {})).toThrow(
      /^--outside-lease: "place" is not claim:<name>/,
    );
    expect(() => resolveConfig({ leaseName: 'a/b' }, {})).toThrow(
      /^--lease-name: "a\/b" is not a lease name/,
    );
    expect(() => resolveConfig({ config: 'bench.json', leaseName: 'jumperless-3' }, {})).toThrow(
      /give each board its "leaseName"/,
    );
  });

  it('refuses limits the board cannot keep, and ports that are not ports, in one line naming the setting', () => {
    expect(() => resolveConfig({ maxVolts: '12' }, {})).toThrow(
      "--max-volts: 12 V is outside what the board's supplies can do (-8 to +8 V)",
    );
    expect(() => resolveConfig({ minVolts: '-9' }, {})).toThrow(/--min-volts: -9 V is outside/);
    expect(() => resolveConfig({}, { JUMPERLESS_MCP_MAX_VOLTS: '8.5' })).toThrow(
      /JUMPERLESS_MCP_MAX_VOLTS: 8.5 V/,
    );
    expect(resolveConfig({ maxVolts: '8', minVolts: '-8' }, {})).toMatchObject({ maxVolts: 8, minVolts: -8 });
    expect(parsePort('8931', '--port')).toBe(8931);
    for (const bad of ['abc', '-1', '65536', '1.5', '']) {
      expect(() => parsePort(bad, '--port'), bad).toThrow(/--port: ".*" is not a TCP port/);
    }
  });
  it('chooses the catalog: toolsets, single tools, exclusions, read-only and output schemas, env or flag', () => {
    const env = {
      JUMPERLESS_MCP_TOOLSETS: 'wiring, measure',
      JUMPERLESS_MCP_TOOLS: 'dac_set',
      JUMPERLESS_MCP_EXCLUDE_TOOLS: 'nodes_clear,file_delete',
      JUMPERLESS_MCP_READ_ONLY: '1',
      JUMPERLESS_MCP_OUTPUT_SCHEMAS: 'true',
    };
    expect(resolveConfig({}, env)).toMatchObject({
      toolsets: ['wiring', 'measure'],
      tools: ['dac_set'],
      excludeTools: ['nodes_clear', 'file_delete'],
      readOnly: true,
      outputSchemas: true,
    });
    expect(resolveConfig({ toolsets: 'power', tools: 'state_get', excludeTools: '' }, env)).toMatchObject({
      toolsets: ['power'],
      tools: ['state_get'],
      excludeTools: [],
    });
    expect(resolveConfig({ readOnly: true, outputSchemas: true }, {})).toMatchObject({
      readOnly: true,
      outputSchemas: true,
    });
    expect(() => resolveConfig({ toolsets: 'wiring,wirng' }, {})).toThrow(
      /--toolsets: unknown toolset wirng/,
    );
    expect(() => resolveConfig({}, { JUMPERLESS_MCP_TOOLSETS: 'nope' })).toThrow(/JUMPERLESS_MCP_TOOLSETS/);
  });

  it('refuses nonsense with the setting named', () => {
    expect(() => resolveConfig({ maxVolts: 'lots' }, {})).toThrow(/--max-volts/);
    expect(() => resolveConfig({}, { JUMPERLESS_MCP_MIN_VOLTS: 'x' })).toThrow(/JUMPERLESS_MCP_MIN_VOLTS/);
    expect(() => resolveConfig({ minVolts: '5', maxVolts: '3' }, {})).toThrow(/above the maximum/);
  });
});

describe('access settings', () => {
  it('defaults: no explicit store, no bearer required, anonymous all but exec/admin, allow-list all', () => {
    const config = resolveConfig({}, {});
    expect(config).toMatchObject({ tokens: undefined, requireToken: false, socket: undefined });
    expect(config.anonymousCaps).not.toContain('jumperless.exec');
    expect(config.anonymousCaps).not.toContain('jumperless.admin');
    expect(config.grant).toContain('jumperless.exec');
  });

  it('reads env, then flags; lists accept commas, repeats, * and none', () => {
    const env = {
      JUMPERLESS_MCP_TOKENS: '/env/tokens.json',
      JUMPERLESS_MCP_REQUIRE_TOKEN: '1',
      JUMPERLESS_MCP_ANONYMOUS_CAPS: 'none',
      JUMPERLESS_MCP_GRANT: 'jumperless.read,jumperless.wire',
      JUMPERLESS_MCP_SOCKET: '/run/x.sock',
    };
    expect(resolveConfig({}, env)).toMatchObject({
      tokens: '/env/tokens.json',
      requireToken: true,
      anonymousCaps: [],
      grant: ['jumperless.read', 'jumperless.wire'],
      socket: '/run/x.sock',
    });
    const flags = resolveConfig(
      {
        tokens: '/flag/tokens.json',
        anonymousCaps: 'jumperless.read',
        grantCapability: ['jumperless.wire,jumperless.read', 'jumperless.exec'],
        socket: '/tmp/s.sock',
      },
      env,
    );
    expect(flags).toMatchObject({
      tokens: '/flag/tokens.json',
      anonymousCaps: ['jumperless.read'],
      grant: ['jumperless.exec', 'jumperless.read', 'jumperless.wire'],
      socket: '/tmp/s.sock',
    });
    expect(resolveConfig({ grantCapability: ['*'] }, {}).grant).toHaveLength(7);
  });

  it('a bare --socket means the runtime dir', () => {
    expect(resolveConfig({ socket: true }, { XDG_RUNTIME_DIR: '/run/user/1000' }).socket).toBe(
      '/run/user/1000/jumperless-mcp.sock',
    );
  });

  it('refuses unknown capabilities, naming the setting', () => {
    expect(() => resolveConfig({ grantCapability: ['jumperless.rea'] }, {})).toThrow(
      /--grant-capability.*jumperless\.rea/,
    );
    expect(() => resolveConfig({}, { JUMPERLESS_MCP_ANONYMOUS_CAPS: 'root' })).toThrow(
      /JUMPERLESS_MCP_ANONYMOUS_CAPS/,
    );
  });
});

describe('parseHttp', () => {
  it('reads [host:]port', () => {
    expect(parseHttp('8931')).toEqual({ host: '127.0.0.1', port: 8931 });
    expect(parseHttp('0.0.0.0:80')).toEqual({ host: '0.0.0.0', port: 80 });
    expect(parseHttp('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(() => parseHttp('host:99999')).toThrow(/\[host:\]port/);
    expect(() => parseHttp('http://x')).toThrow();
  });
});
