/**
 * The files under deploy/ (docs/lab.md "Running a lab"): the udev rule, the systemd unit, the
 * Dockerfile and the example bench. None can be installed or built here (no udev, no systemd as
 * init, no Docker Hub): they are checked against the code they name — the USB ids and the REPL
 * interface discovery matches, the bench file the gateway loads, the CLI flags they pass — and the
 * unit by `systemd-analyze verify` when the machine has it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseHttp } from '../../src/cli/config.js';
import { JUMPERLESS_PID, JUMPERLESS_VID, REPL_INTERFACE } from '../../src/device/discovery.js';
import { loadFederationConfig } from '../../src/federation/config.js';

const DEPLOY = resolve(import.meta.dirname, '..', '..', 'deploy');
const read = (name: string) => readFileSync(join(DEPLOY, name), 'utf8');
const PROGRAM = readFileSync(resolve(DEPLOY, '..', 'src', 'cli', 'program.ts'), 'utf8');

/** The server's arguments as the unit's ExecStart and the image's CMD give them. */
const unitArgs = () => (/^ExecStart=\S+ (.*)$/m.exec(read('jumperless-mcp.service'))?.[1] ?? '').split(' ');
const imageArgs = () => JSON.parse(/^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1] ?? '[]') as string[];

describe('deploy/', () => {
  it('the udev rule matches the USB ids and the REPL interface discovery matches', () => {
    const rules = read('99-jumperless.rules')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'));
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      expect(rule).toContain(`ENV{ID_VENDOR_ID}=="${JUMPERLESS_VID}"`);
      expect(rule).toContain(`ENV{ID_MODEL_ID}=="${JUMPERLESS_PID}"`);
    }
    const repl = rules.find((rule) => rule.includes('SYMLINK'));
    expect(repl).toContain(`ENV{ID_USB_INTERFACE_NUM}=="${String(REPL_INTERFACE).padStart(2, '0')}"`);
    // By USB path, never by serial number: every V5 reports JLV5port.
    expect(repl).toContain('$env{ID_PATH}');
    expect(rules.join('\n')).toContain('GROUP="dialout"');
    expect(rules.join('\n')).toContain('ENV{ID_MM_DEVICE_IGNORE}="1"');
  });

  it('the example bench is one the gateway loads: boards over RFC 2217', () => {
    const bench = loadFederationConfig(join(DEPLOY, 'bench.json'));
    expect(bench.children.length).toBeGreaterThan(1);
    for (const child of bench.children)
      expect(child).toMatchObject({ type: 'jumperless', device: /^rfc2217:\/\// });
  });

  it('the unit and the image run the same server as a non-root user, with flags the CLI has', () => {
    const unit = read('jumperless-mcp.service');
    expect(unit).toMatch(/^User=jumperless$/m);
    expect(unit).toMatch(/^SupplementaryGroups=dialout$/m);
    expect(read('Dockerfile')).toMatch(/^USER node$/m);
    for (const args of [unitArgs(), imageArgs()]) {
      expect(args).toEqual(imageArgs());
      for (const flag of args.filter((arg) => arg.startsWith('--'))) expect(PROGRAM).toContain(`'${flag} <`);
      const at = (flag: string) => args[args.indexOf(flag) + 1] ?? '';
      expect(at('--config')).toBe('/etc/jumperless-mcp/bench.json');
      // Off loopback the server needs a token store with an active token (docs/lab.md says how).
      expect(parseHttp(at('--http'))).toEqual({ host: '0.0.0.0', port: 8931 });
      expect(at('--tokens')).toBe('/var/lib/jumperless-mcp/tokens.json');
    }
    expect(unit).toMatch(/^StateDirectory=jumperless-mcp$/m);
  });

  it.skipIf(!existsSync('/usr/bin/systemd-analyze'))(
    'systemd-analyze finds nothing wrong in the unit but the absent binary',
    () => {
      const run = spawnSync('systemd-analyze', ['verify', join(DEPLOY, 'jumperless-mcp.service')], {
        encoding: 'utf8',
      });
      const complaints = `${run.stdout}${run.stderr}`
        .split('\n')
        .filter((line) => line.trim() && !/Command \/usr\/bin\/jumperless-mcp is not executable/.test(line));
      expect(complaints).toEqual([]);
    },
  );
});
