/** What the board-free commands print: progress on a terminal and on a pipe, the tool table, client setups. */
import { describe, expect, it } from 'vitest';
import { runConfig } from './configCommand.js';
import { progressOn } from './progress.js';
import { runTools, toolRows } from './toolsCommand.js';

function sink(isTTY = false) {
  let text = '';
  return {
    stream: {
      isTTY,
      columns: 80,
      write(chunk: string) {
        text += chunk;
        return true;
      },
    },
    text: () => text,
  };
}

function io() {
  const out = sink();
  const err = sink();
  return {
    stdout: out.stream as unknown as NodeJS.WritableStream,
    stderr: err.stream as unknown as NodeJS.WritableStream,
    out: out.text,
    err: err.text,
  };
}

describe('progress', () => {
  it('redraws one bar in place on a terminal, then clears it', () => {
    const tty = sink(true);
    const bar = progressOn(tty.stream, 'dump /');
    for (let done = 0; done <= 100; done += 25) bar.update(done, 100, 'a.txt');
    bar.done('5 files');
    const text = tty.text();
    expect(text.split('\r').length - 1).toBeGreaterThanOrEqual(5);
    expect(text).toContain('\r\x1b[K');
    expect(text).toContain('dump / [############............] 50% a.txt');
    expect(text.split('\n')).toHaveLength(2); // one line, ended only by done()
    expect(text.endsWith('dump / 5 files\n')).toBe(true);
    const spinner = sink(true);
    const spin = progressOn(spinner.stream, 'listing');
    spin.update(1);
    spin.update(2);
    expect(spinner.text()).toBe('\rlisting | 1\x1b[K\rlisting / 2\x1b[K');
  });

  it('writes plain lines on a pipe, one per tenth, without control characters', () => {
    const pipe = sink(false);
    const bar = progressOn(pipe.stream, 'get /f');
    for (let done = 0; done <= 1000; done += 10) bar.update(done, 1000);
    bar.done();
    const lines = pipe.text().trimEnd().split('\n');
    expect(lines).toHaveLength(11);
    expect(lines[0]).toBe('get /f: 0/1000 (0%)');
    expect(lines.at(-1)).toBe('get /f: 1000/1000 (100%)');
    expect(pipe.text()).not.toMatch(/[\r\x1b]/);
  });
});

describe('tools', () => {
  it('lists the catalog with capabilities, python_exec with them (it is listed, to exec holders)', () => {
    const rows = toolRows();
    expect(rows).toContainEqual(
      expect.objectContaining({ name: 'state_get', capability: 'jumperless.read', hidden: false }),
    );
    expect(rows).toContainEqual(expect.objectContaining({ name: 'dac_set', capability: 'jumperless.power' }));
    expect(rows).toContainEqual(
      expect.objectContaining({ name: 'python_exec', hidden: false, capability: 'jumperless.exec' }),
    );
    expect(toolRows({ all: true }).map((r) => r.name)).toEqual(rows.map((r) => r.name));
    const table = io();
    expect(runTools({}, table)).toBe(0);
    const lines = table.out().split('\n');
    expect(lines[0]).toMatch(/^TOOL +CAPABILITY +DESCRIPTION$/);
    expect(table.out()).toMatch(/^state_get +jumperless\.read +\S/m);
    // The table fits the terminal (rows cut with ...); the summary line after it may wrap.
    expect(lines.slice(0, -2).every((line) => line.length <= 80)).toBe(true);
    expect(lines.slice(0, -2).some((line) => line.endsWith('...'))).toBe(true);
    const json = io();
    runTools({ json: true, all: true }, json);
    expect(JSON.parse(json.out()).tools.length).toBe(rows.length);
  });

  it('gives each tool its input schema in JSON, as tools/list does (issue 24: a user guessed the names)', () => {
    const json = io();
    expect(runTools({ json: true }, json)).toBe(0);
    const dacSet = JSON.parse(json.out()).tools.find((tool: { name: string }) => tool.name === 'dac_set');
    expect(dacSet.inputSchema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['volts']),
      properties: { volts: { type: 'number', minimum: -8, maximum: 8 } },
    });
    const one = io();
    expect(runTools({ json: true, tool: 'dac_set' }, one)).toBe(0);
    expect(JSON.parse(one.out())).toEqual(dacSet);
  });

  it("shows one tool's arguments with their types, ranges, defaults and descriptions", () => {
    const dac = io();
    expect(runTools({ tool: 'dac_set' }, dac)).toBe(0);
    const schema = toolRows().find((row) => row.name === 'dac_set')?.inputSchema as {
      properties: Record<string, unknown>;
    };
    // Every argument the schema has, by the name the tool takes, with its range.
    for (const name of Object.keys(schema.properties))
      expect(dac.out()).toMatch(new RegExp(`^  \\* ${name} `, 'm'));
    expect(dac.out()).toMatch(/^ {2}\* volts +number, -8 to 8/m);
    expect(dac.out()).toMatch(/one of DAC0, DAC1, TOP_RAIL, BOTTOM_RAIL/);
    expect(dac.out()).toMatch(
      /^Call it: jumperless-mcp call dac_set --args '\{"\w+": \.\.\., "\w+": \.\.\.\}'$/m,
    );
    const exec = io();
    runTools({ tool: 'python_exec' }, exec);
    expect(exec.out()).toMatch(/^ {4}timeout_seconds +number, 0\.1 to 60; default 10; Then Ctrl-C$/m);
    const connect = io();
    runTools({ tool: 'connect' }, connect);
    expect(connect.out()).toMatch(
      /pairs +list \(1 to 128 items\) of: list \(2 to 2 items\) of: integer or string/,
    );
    const none = io();
    expect(runTools({ tool: 'power_get' }, none)).toBe(0);
    expect(none.out()).toMatch(/^Arguments: none\.$/m);
    const unknown = io();
    expect(runTools({ tool: 'dac' }, unknown)).toBe(2);
    expect(unknown.err()).toMatch(
      /^jumperless-mcp tools: no tool named dac \(near: dac_set\); jumperless-mcp tools lists them\n$/,
    );
  });
});

describe('config', () => {
  it('prints each client its stdio setup with this installation, or its HTTP one', () => {
    for (const client of ['claude-desktop', 'cursor', 'vscode']) {
      const out = io();
      expect(runConfig(client, { device: 'sim' }, out)).toBe(0);
      const parsed = JSON.parse(out.out());
      const server = (parsed.mcpServers ?? parsed.servers).jumperless;
      expect(server.command).toBe(process.execPath);
      expect(server.args.slice(-2)).toEqual(['--device', 'sim']);
      expect(server.args.some((arg: string) => /src\/cli\/main\.ts$/.test(arg))).toBe(true);
    }
    const claude = io();
    expect(runConfig('claude', {}, claude)).toBe(0);
    expect(claude.out()).toMatch(new RegExp(`^claude mcp add jumperless -- ${process.execPath} `));
    const http = io();
    expect(runConfig('vscode', { http: 'http://127.0.0.1:8931/mcp' }, http)).toBe(0);
    expect(JSON.parse(http.out())).toEqual({
      servers: { jumperless: { type: 'http', url: 'http://127.0.0.1:8931/mcp' } },
    });
    const desktop = io();
    runConfig('claude-desktop', { http: 'http://127.0.0.1:8931/mcp' }, desktop);
    expect(JSON.parse(desktop.out()).mcpServers.jumperless.args).toEqual([
      '-y',
      'mcp-remote',
      'http://127.0.0.1:8931/mcp',
    ]);
  });

  it('refuses an unknown client, a URL that is not one, and --device with --http', () => {
    const unknown = io();
    expect(runConfig('emacs', {}, unknown)).toBe(2);
    expect(unknown.err()).toMatch(/claude, claude-desktop, cursor, vscode/);
    expect(runConfig('cursor', { http: 'localhost:8931' }, io())).toBe(2);
    expect(runConfig('cursor', { http: 'ftp://x/mcp' }, io())).toBe(2);
    expect(runConfig('cursor', { http: 'http://127.0.0.1:1/mcp', device: 'sim' }, io())).toBe(2);
  });
});
