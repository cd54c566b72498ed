/**
 * docs/lab.md as a user follows it: the ser2net config it gives, run by Debian's ser2net in front of
 * the virtual board's pty (only the device path and a free loopback address put in), and the real
 * CLI over stdio opening the board with `--device rfc2217://...` and calling tools. The labgrid and
 * Jumpstarter configs cannot run here (Python packages from PyPI, out of reach): they are checked
 * for naming the same port and protocol as the ser2net config.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimBoard } from '../../src/sim/index.js';
import { PTY_MISSING } from '../support/ptyAvailable.js';
import { freePort, SER2NET_MISSING, type Ser2net, startSer2netConfig } from '../support/ser2net.js';

function text(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return first?.text ?? '';
}

const ROOT = resolve(import.meta.dirname, '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'lab.md'), 'utf8');
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };

/** The fenced block right after `<!-- tested: NAME -->` or `<!-- checked: NAME -->`, unindented. */
function block(name: string): string {
  const match = new RegExp(
    `<!-- (?:tested|checked): ${name} -->\\n( *)\`\`\`\\w*\\n([\\s\\S]*?)\\n\\1\`\`\``,
  ).exec(DOC);
  if (match?.[2] === undefined) throw new Error(`docs/lab.md has no block ${name}`);
  const indent = new RegExp(`^${match[1] ?? ''}`, 'gm');
  return match[2].replace(indent, '');
}

const SER2NET_YAML = block('ser2net.yaml');
const ACCEPTER = /accepter: telnet\(rfc2217\),tcp\(nodelay\),(\d+)/;
const DEVICE = /connector: serialdev,(\S+?),115200n81,local/;
const DOC_PORT = Number(ACCEPTER.exec(SER2NET_YAML)?.[1]);

describe('docs/lab.md configs agree with each other', () => {
  it('exports the REPL over RFC 2217 for one client, Nagle and chardelay off', () => {
    expect(SER2NET_YAML).toMatch(ACCEPTER);
    expect(SER2NET_YAML).toMatch(DEVICE);
    expect(SER2NET_YAML).toMatch(/max-connections: 1\n/);
    expect(SER2NET_YAML).toMatch(/kickolduser: false\n/);
    expect(SER2NET_YAML).toMatch(/chardelay: false\n/);
    // The REPL is interface 4 (CDC2), found by USB path: every V5 has the same serial number.
    expect(DEVICE.exec(SER2NET_YAML)?.[1]).toMatch(/^\/dev\/serial\/by-path\/.*:1\.4$/);
    expect(DOC).toContain(`--device rfc2217://bench-3.lab.example:${DOC_PORT}`);
  });

  it("the README's short ser2net config is the same, line for line", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## A board on another machine'));
    const short = /```yaml\n([\s\S]*?)\n```/.exec(section)?.[1] ?? '';
    expect(short).toContain('connection:');
    for (const line of short.split('\n')) expect(SER2NET_YAML.split('\n')).toContain(line);
  });

  it('points the labgrid resource and environment at that port over RFC 2217', () => {
    for (const name of ['labgrid-exporter.yaml', 'labgrid-env.yaml']) {
      const yaml = block(name);
      expect(yaml, name).toContain('NetworkSerialPort:');
      expect(yaml, name).toMatch(new RegExp(`port: ${DOC_PORT}\\n`));
      expect(yaml, name).toContain("protocol: 'rfc2217'");
      expect(yaml, name).toContain("host: 'bench-3.lab.example'");
    }
  });

  it("points Jumpstarter's TcpNetwork at that port on the exporter host", () => {
    const yaml = block('jumpstarter-exporter.yaml');
    expect(yaml).toContain('kind: ExporterConfig');
    expect(yaml).toContain('type: jumpstarter_driver_network.driver.TcpNetwork');
    expect(yaml).toMatch(new RegExp(`host: 127\\.0\\.0\\.1\\n\\s+port: ${DOC_PORT}`));
    expect(DOC).toContain(`forward-tcp ${DOC_PORT}`);
    expect(DOC).toContain(`--device rfc2217://127.0.0.1:${DOC_PORT}`);
  });
});

describe.skipIf(SER2NET_MISSING !== undefined || PTY_MISSING !== undefined)(
  "docs/lab.md's ser2net config, run",
  () => {
    let dir: string;
    let board: SimBoard;
    let ser2net: Ser2net;
    let port: number;
    let client: Client;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'jl-lab-doc-'));
      board = await SimBoard.start();
      const { repl } = await board.servePty(dir);
      port = await freePort();
      // The doc's text, with the board's pty for the USB path and loopback for "every interface".
      const config = SER2NET_YAML.replace(DEVICE, (line, path: string) => line.replace(path, repl)).replace(
        ACCEPTER,
        (line) => line.replace(/,\d+$/, `,127.0.0.1,${port}`),
      );
      expect(config).not.toBe(SER2NET_YAML);
      ser2net = await startSer2netConfig(config, [port]);
      client = new Client({ name: 'lab-doc', version: '0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ['--import', 'tsx', 'src/cli/main.ts', '--device', `rfc2217://127.0.0.1:${port}`],
          cwd: ROOT,
          env: ENV,
          stderr: 'pipe',
        }),
      );
    }, 60_000);

    afterAll(async () => {
      await client?.close();
      await ser2net?.stop();
      await board?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('serves the board to an MCP client through ser2net: set a DAC, read it back', async () => {
      const set = await client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 1.25 } });
      expect(set.isError).toBeFalsy();
      expect(set.structuredContent).toMatchObject({ channel: 'DAC1', volts: 1.25 });
      const get = await client.callTool({ name: 'power_get', arguments: {} });
      expect(get.structuredContent).toMatchObject({ dac1_volts: 1.25 });
    });

    it('is the one client ser2net lets in: another RFC 2217 client is refused', async () => {
      const { rfc2217Link } = await import('../../src/device/rfc2217Link.js');
      const intruder = rfc2217Link('127.0.0.1', port);
      await expect(intruder.open()).rejects.toMatchObject({ code: 'busy' });
      const again = await client.callTool({ name: 'power_get', arguments: {} });
      expect(again.structuredContent).toMatchObject({ dac1_volts: 1.25 });
    });

    it('ser2net killed in the middle of a tool call: the call may have run (not retryable, read back first); while it is away, calls point at ser2net; then the board is back', async () => {
      const running = client.callTool({
        name: 'python_exec',
        arguments: { code: 'import time\nruns = globals().get("runs", 0) + 1\ntime.sleep(3)' },
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      await ser2net.kill();
      const cut = await running;
      expect(cut.isError).toBe(true);
      expect(JSON.parse(text(cut))).toMatchObject({
        code: 'disconnected',
        retryable: false,
        mayHaveRun: true,
      });
      expect(text(cut)).toContain('may have run');
      expect(text(cut)).toContain('read back what it changes');
      const away = await client.callTool({ name: 'power_get', arguments: {} });
      expect(JSON.parse(text(away))).toMatchObject({ code: 'disconnected', retryable: true });
      expect(text(away)).toContain('check that ser2net runs on that host');
      await ser2net.start();
      // The server reconnects by itself with backoff; calls meanwhile still fail fast.
      let back = await client.callTool({ name: 'python_exec', arguments: { code: 'print(runs)' } });
      for (let tries = 0; back.isError && tries < 60; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        back = await client.callTool({ name: 'python_exec', arguments: { code: 'print(runs)' } });
      }
      // A retry is the client's to decide: the board ran the cut call once, and nothing ran it again.
      expect(back.structuredContent).toMatchObject({ ok: true, stdout: '1\n' });
    });
  },
);
