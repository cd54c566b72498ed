/**
 * doctor on a fake machine: a fake /sys and /dev (no board can be plugged in here), a fake /etc
 * and /proc, an identity of our choosing; a real process holding the port (real /proc); and the
 * live REPL check against the virtual board's ports over TCP.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBoard } from '../../test/support/fakeSysfs.js';
import { PTY_MISSING } from '../../test/support/ptyAvailable.js';
import { SimBoard } from '../sim/index.js';
import { type DoctorRoots, type Finding, machineFindings, UDEV_RULE } from './doctor.js';
import { doctorFindings, runDoctor } from './doctorCommand.js';
import { runSelftest } from './selftest.js';

const root = mkdtempSync(join(tmpdir(), 'jl-doctor-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A machine with one board at USB 1-2 whose four tty nodes are plain files we own. */
function machine(name: string, options: { group?: string; modemManager?: boolean; rule?: string } = {}) {
  const nodes = [0, 2, 4, 6].map((itf) => {
    const path = join(root, `${name}-node${itf}`);
    writeFileSync(path, '');
    chmodSync(path, 0o660);
    return [itf, path] as [number, string];
  });
  const { sysRoot, devRoot } = fakeBoard(root, name, '1-2', nodes);
  const etc = join(root, name, 'etc');
  const proc = join(root, name, 'proc');
  mkdirSync(join(etc, 'udev', 'rules.d'), { recursive: true });
  mkdirSync(proc, { recursive: true });
  const gid = statSync(nodes[2]?.[1] as string).gid;
  writeFileSync(join(etc, 'group'), `dialout:x:${gid}:${options.group ?? ''}\nplugdev:x:${gid + 1}:\n`);
  if (options.modemManager) {
    mkdirSync(join(proc, '4242'), { recursive: true });
    writeFileSync(join(proc, '4242', 'comm'), 'ModemManager\n');
  }
  if (options.rule) writeFileSync(join(etc, 'udev', 'rules.d', '99-jumperless.rules'), `${options.rule}\n`);
  const roots: DoctorRoots = { sys: sysRoot, dev: devRoot, proc, etc, udevRuleDirs: [] };
  return { roots, devRoot, gid, repl: join(devRoot, 'ttyACM2'), menu: join(devRoot, 'ttyACM0') };
}

const someoneElse = (gids: number[] = []) => ({ uid: 54321, gids, user: 'ada' });
const byCheck = (findings: Finding[], check: string) => findings.filter((f) => f.check === check);

describe('doctor on a fake machine', () => {
  it('names the wrong one of the four ports and the REPL to use instead', async () => {
    const m = machine('wrong');
    const { findings } = await machineFindings({
      device: m.menu,
      roots: m.roots,
      identity: someoneElse([m.gid]),
      platform: 'linux',
    });
    expect(byCheck(findings, 'wrong_port')).toEqual([
      expect.objectContaining({
        severity: 'fail',
        message: expect.stringMatching(
          /ttyACM0 is CDC0, the menu port of the board at USB 1-2, not its REPL \(interface 4, CDC2\)/,
        ),
        fix: `use --device ${m.repl} (or --device auto:1-2)`,
      }),
    ]);
    const right = await machineFindings({
      device: m.repl,
      roots: m.roots,
      identity: someoneElse([m.gid]),
      platform: 'linux',
    });
    expect(byCheck(right.findings, 'wrong_port')[0]?.severity).toBe('ok');
  });

  it('says when the user may not open the port, and the group to join (or to log in again)', async () => {
    const m = machine('perm');
    const denied = await machineFindings({
      device: 'auto',
      roots: m.roots,
      identity: someoneElse(),
      platform: 'linux',
    });
    expect(byCheck(denied.findings, 'permissions')).toEqual([
      expect.objectContaining({
        severity: 'fail',
        fix: 'sudo usermod -aG dialout ada, then log out and back in',
      }),
    ]);
    const listed = machine('perm-listed', { group: 'bob,ada' });
    const stale = await machineFindings({
      device: 'auto',
      roots: listed.roots,
      identity: someoneElse(),
      platform: 'linux',
    });
    expect(byCheck(stale.findings, 'permissions')[0]).toMatchObject({
      severity: 'fail',
      message: expect.stringMatching(/ada is in dialout, but not in this login session/),
      fix: expect.stringMatching(/newgrp dialout/),
    });
    const member = await machineFindings({
      device: 'auto',
      roots: m.roots,
      identity: someoneElse([m.gid]),
      platform: 'linux',
    });
    expect(byCheck(member.findings, 'permissions')[0]?.severity).toBe('ok');
  });

  it('warns of ModemManager and a missing udev rule, and is content with the rule in place', async () => {
    const bare = machine('mm', { modemManager: true });
    const { findings } = await machineFindings({
      device: 'auto',
      roots: bare.roots,
      identity: someoneElse([bare.gid]),
      platform: 'linux',
    });
    expect(byCheck(findings, 'modemmanager')[0]).toMatchObject({
      severity: 'warn',
      message: expect.stringMatching(/ModemManager runs \(pid 4242\)/),
      fix: expect.stringContaining('ENV{ID_MM_DEVICE_IGNORE}="1"'),
    });
    expect(byCheck(findings, 'udev_rule')[0]).toMatchObject({
      severity: 'warn',
      fix: expect.stringContaining(UDEV_RULE),
    });
    const ruled = machine('mm-rule', { modemManager: true, rule: UDEV_RULE });
    const fixed = await machineFindings({
      device: 'auto',
      roots: ruled.roots,
      identity: someoneElse([ruled.gid]),
      platform: 'linux',
    });
    expect(byCheck(fixed.findings, 'modemmanager')[0]?.severity).toBe('ok');
    expect(byCheck(fixed.findings, 'udev_rule')[0]).toMatchObject({
      severity: 'ok',
      message: expect.stringContaining('99-jumperless.rules'),
    });
  });

  it('says when no board is there, and when neither pty helper is on PATH', async () => {
    const empty = mkdtempSync(join(root, 'empty-'));
    const roots: DoctorRoots = { sys: empty, dev: empty, proc: empty, etc: empty, udevRuleDirs: [] };
    const { findings } = await machineFindings({
      device: 'auto',
      roots,
      platform: 'linux',
      env: { PATH: empty },
    });
    expect(byCheck(findings, 'board')[0]).toMatchObject({
      severity: 'fail',
      message: 'no Jumperless V5 on USB (1D50:ACAB)',
    });
    expect(byCheck(findings, 'pty_helpers')[0]).toMatchObject({
      severity: 'info',
      message: expect.stringMatching(/neither socat nor python3/),
    });
    const out = {
      text: '',
      write(chunk: string) {
        this.text += chunk;
        return true;
      },
    };
    expect(
      await runDoctor(
        { device: 'auto', probe: true },
        { stdout: out as unknown as NodeJS.WritableStream },
        { roots, platform: 'linux', env: { PATH: empty } },
      ),
    ).toBe(1);
    expect(out.text).toMatch(/^FAIL {2}no Jumperless V5 on USB/m);
    expect(out.text).toMatch(/the REPL was not tried: fix the above first/);
  });
});

describe('doctor and a port held by another process', () => {
  let holder: ChildProcess;
  const m = machine('held');
  beforeAll(async () => {
    // A real process with the port open (its stdin), seen through the real /proc.
    holder = spawn('sh', ['-c', `exec sleep 60 < ${JSON.stringify(m.repl)}`], { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 300));
  });
  afterAll(() => {
    holder.kill();
  });

  it('names the process and how to free the port, and does not try the REPL', async () => {
    const roots = { ...m.roots, proc: '/proc' };
    const findings = await doctorFindings(
      { device: 'auto' },
      { roots, identity: someoneElse([m.gid]), platform: 'linux' },
    );
    expect(byCheck(findings, 'port_held')[0]).toMatchObject({
      severity: 'fail',
      message: expect.stringMatching(new RegExp(`held by pid ${holder.pid} \\(sleep 60\\)`)),
      fix: expect.stringContaining(`kill ${holder.pid}`),
    });
    expect(byCheck(findings, 'repl')[0]?.message).toMatch(/not tried/);
  });
});

describe('doctor for a board on another machine', () => {
  it.each(['rfc2217', 'socket'])(
    'skips the USB checks for %s:// and points at the exporter when nothing answers',
    async (scheme) => {
      const findings = await doctorFindings({ device: `${scheme}://127.0.0.1:9` }, { probeTimeoutMs: 5000 });
      expect(byCheck(findings, 'device')[0]).toMatchObject({
        severity: 'info',
        message: expect.stringContaining('is a board on another machine: the USB checks are skipped'),
      });
      expect(byCheck(findings, 'board')).toEqual([]);
      expect(byCheck(findings, 'repl')[0]).toMatchObject({
        severity: 'fail',
        message: expect.stringMatching(/cannot connect to .*ECONNREFUSED/i),
        fix: expect.stringMatching(/check the exporter on that machine: ser2net runs .*max-connections: 1/),
      });
    },
  );
});

describe('doctor against the virtual board', () => {
  let board: SimBoard;
  let ports: Record<'main' | 'repl', number>;
  beforeAll(async () => {
    board = await SimBoard.start();
    ports = await board.serveTcp();
  }, 60_000);
  afterAll(async () => board.stop());

  it('finds the REPL answering on CDC2, and says the menu port is not the REPL', async () => {
    const good = await doctorFindings({ device: `tcp://127.0.0.1:${ports.repl}` });
    expect(byCheck(good, 'repl')[0]).toMatchObject({
      severity: 'ok',
      message: expect.stringMatching(/the raw REPL answers \(firmware 5\.7\.11\.0/),
    });
    expect(byCheck(good, 'firmware')[0]?.severity).toBe('ok');
    const menu = await doctorFindings(
      { device: `tcp://127.0.0.1:${ports.main}` },
      { probeTimeoutMs: 20_000 },
    );
    expect(byCheck(menu, 'repl')[0]).toMatchObject({
      severity: 'fail',
      message: expect.stringMatching(/answers, but not as a MicroPython raw REPL/),
      fix: expect.stringMatching(/CDC2, USB interface 4/),
    });
  }, 60_000);

  it('says which tool groups a firmware lacking a function cannot run', async () => {
    const device = `tcp://127.0.0.1:${ports.repl}`;
    // The firmware's names are listed from the module: take one away, as an older firmware lacks it.
    const { runExec } = await import('./execCommand.js');
    const sink = { write: () => true } as unknown as NodeJS.WritableStream;
    expect(
      await runExec(
        'import jumperless\ndel jumperless.get_state',
        { device, timeout: '10' },
        { stdout: sink, stderr: sink },
      ),
    ).toBe(0);
    const findings = await doctorFindings({ device });
    const firmware = byCheck(findings, 'firmware');
    expect(firmware.map((f) => f.severity)).toEqual(expect.arrayContaining(['warn']));
    expect(firmware.find((f) => f.message.includes('state tools'))).toMatchObject({
      message: expect.stringMatching(/too old for 5 of the 5 state tools .*it lacks get_state/),
      fix: expect.stringMatching(/unsupported_firmware/),
    });
  }, 60_000);

  it.skipIf(PTY_MISSING)(
    "on the virtual board's pty: no USB checks, and its bridge is never named as a program holding the port",
    async () => {
      const pty = (await board.servePty(mkdtempSync(join(tmpdir(), 'jl-doctor-pty-')))).repl;
      const findings = await doctorFindings({ device: pty });
      expect(byCheck(findings, 'device')[0]).toMatchObject({
        severity: 'info',
        message: expect.stringMatching(/is a pseudo-terminal .* the USB checks are skipped/),
      });
      expect(findings.filter((f) => ['board', 'udev_rule', 'modemmanager'].includes(f.check))).toEqual([]);
      expect(byCheck(findings, 'port_held')[0]).toMatchObject({
        severity: 'ok',
        message: `${pty}: no other program holds it`,
      });
      expect(byCheck(findings, 'repl')[0]?.severity).toBe('ok');
      // (The test before took a function away from this board: the firmware warning is that.)
      expect(
        findings.filter((f) => (f.severity === 'fail' || f.severity === 'warn') && f.check !== 'firmware'),
      ).toEqual([]);
      // A program that holds it is named, alone (not the bridge)...
      const sleeper = spawn('sh', ['-c', 'exec sleep 60 < "$0"', pty], { stdio: 'ignore' });
      try {
        await expect
          .poll(
            async () => byCheck(await doctorFindings({ device: pty, probe: false }), 'port_held')[0]?.message,
          )
          .toBe(`${pty} is held by pid ${sleeper.pid} (sleep 60)`);
      } finally {
        sleeper.kill();
      }
      // ...and so selftest's busy names the one that has it open (here this process), alone.
      const { SerialPort } = await import('serialport');
      const holder = new SerialPort({ path: pty, baudRate: 115200 });
      await new Promise((resolve, reject) => {
        holder.once('open', resolve);
        holder.once('error', reject);
      });
      try {
        const chunks: string[] = [];
        const out = { write: (chunk: string) => chunks.push(chunk) > 0 } as unknown as NodeJS.WritableStream;
        const busy = await runSelftest({ device: pty, only: ['types'] }, out).catch(
          (error: Error) => error.message,
        );
        expect(busy).toMatch(new RegExp(`is busy: held by this process \\(pid ${process.pid}\\)$`));
      } finally {
        await new Promise((resolve) => holder.close(resolve));
      }
    },
    60_000,
  );
});
