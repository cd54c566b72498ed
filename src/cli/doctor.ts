/**
 * The checks `jumperless-mcp doctor` runs, each a finding with its fix. The machine is read
 * through injectable roots (/sys, /dev, /proc, /etc and the udev rule folders) and an injectable
 * identity, so tests run them on a fake tree: no board can be plugged in where tests run.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { parseDeviceUrl } from '../device/deviceUrl.js';
import { listJumperlessPorts, PORT_ROLES, REPL_INTERFACE } from '../device/discovery.js';
import { findPortHolders } from '../device/portHolders.js';
import { ptyBridge } from '../sim/ptyBridge.js';

export type Severity = 'ok' | 'info' | 'warn' | 'fail';

export interface Finding {
  /** Stable id, e.g. `permissions`, `port_held`, `wrong_port`. */
  check: string;
  severity: Severity;
  message: string;
  /** What to do about it (absent when nothing needs doing). */
  fix?: string;
}

export interface DoctorRoots {
  sys: string;
  dev: string;
  proc: string;
  /** Holds `group` and `udev/rules.d`. */
  etc: string;
  /** Other udev rule folders (the distribution's). */
  udevRuleDirs: string[];
}

export const SYSTEM_ROOTS: DoctorRoots = {
  sys: '/sys',
  dev: '/dev',
  proc: '/proc',
  etc: '/etc',
  udevRuleDirs: ['/lib/udev/rules.d', '/usr/lib/udev/rules.d'],
};

export interface Identity {
  uid: number;
  /** Groups of this login session (what the kernel checks now). */
  gids: readonly number[];
  user: string;
}

export function currentIdentity(): Identity {
  return {
    uid: process.getuid?.() ?? -1,
    gids: process.getgroups?.() ?? [],
    user: userInfo().username,
  };
}

export interface MachineOptions {
  device: string;
  roots?: DoctorRoots;
  identity?: Identity;
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  /** This process and its parents: they hold nothing the user needs to close. */
  selfPids?: readonly number[];
}

/** The udev rule doctor proposes: the tty nodes for the user's group, and ModemManager hands off. */
export const UDEV_RULE_PATH = '/etc/udev/rules.d/99-jumperless.rules';
export const UDEV_RULE =
  'SUBSYSTEMS=="usb", ATTRS{idVendor}=="1d50", ATTRS{idProduct}=="acab", MODE="0660", GROUP="dialout", TAG+="uaccess", ENV{ID_MM_DEVICE_IGNORE}="1"';
const UDEV_INSTALL = `echo '${UDEV_RULE}' | sudo tee ${UDEV_RULE_PATH} && sudo udevadm control --reload-rules && sudo udevadm trigger`;

/** Everything doctor can tell without opening the port. */
export async function machineFindings(
  options: MachineOptions,
): Promise<{ findings: Finding[]; ports: string[] }> {
  const roots = options.roots ?? SYSTEM_ROOTS;
  const platform = options.platform ?? process.platform;
  const identity = options.identity ?? currentIdentity();
  const env = options.env ?? process.env;
  const findings: Finding[] = [];
  const url = parseDeviceUrl(options.device);
  const linux = platform === 'linux';
  const listed = await listJumperlessPorts({ platform, sysRoot: roots.sys, devRoot: roots.dev });
  const repls = listed.filter((port) => port.role === 'repl');

  let targets: string[] = [];
  // A pseudo-terminal (`sim --pty` makes one per port) is no USB port: no board on USB, no udev
  // rule, no ModemManager to look for; who holds it still matters.
  const pty = url.kind === 'serial' && (await isPseudoTerminal(url.path));
  const networked = url.kind === 'tcp' || url.kind === 'rfc2217';
  if (url.kind === 'sim' || networked || pty) {
    findings.push({
      check: 'device',
      severity: 'info',
      message: pty
        ? `${options.device} is a pseudo-terminal (a virtual board's, from jumperless-mcp sim --pty, or another program's), not a USB port: the USB checks are skipped`
        : networked
          ? `${options.device} is a board on another machine: the USB checks are skipped (run doctor there, with --device auto, for them)`
          : `${options.device} is not a USB port: the USB checks are skipped`,
    });
    if (pty && url.kind === 'serial') targets = [url.path];
  } else if (listed.length === 0) {
    findings.push({
      check: 'board',
      severity: url.kind === 'serial' ? 'warn' : 'fail',
      message: 'no Jumperless V5 on USB (1D50:ACAB)',
      fix: 'use a data cable (not a charging one), plug the board in and check it is powered; jumperless-mcp --sim runs the virtual board',
    });
  } else {
    const boards = new Set(listed.map((port) => port.location));
    findings.push({
      check: 'board',
      severity: 'ok',
      message: `${boards.size} Jumperless V5 on USB (${[...boards].join(', ')}); REPL port${repls.length === 1 ? '' : 's'}: ${repls.map((p) => p.path).join(', ') || 'none named'}`,
    });
  }

  if (url.kind === 'serial' && !pty) {
    targets = [url.path];
    const chosen = listed.find((port) => port.path === url.path);
    if (chosen && chosen.role !== 'repl') {
      const repl = listed.find((port) => port.location === chosen.location && port.role === 'repl');
      findings.push({
        check: 'wrong_port',
        severity: 'fail',
        message: `${url.path} is ${chosen.role ? `${PORT_ROLES[chosen.role].cdc}, ${PORT_ROLES[chosen.role].short}` : `interface ${chosen.interfaceNumber ?? '?'}`} of the board at USB ${chosen.location}, not its REPL (interface ${REPL_INTERFACE}, CDC2)`,
        fix: repl ? `use --device ${repl.path} (or --device auto:${chosen.location})` : 'use --device auto',
      });
    } else if (chosen) {
      findings.push({
        check: 'wrong_port',
        severity: 'ok',
        message: `${url.path} is the board's REPL (CDC2)`,
      });
    } else if (listed.length > 0) {
      findings.push({
        check: 'wrong_port',
        severity: 'warn',
        message: `${url.path} is not a port of a Jumperless on USB; the board's REPL is ${repls.map((p) => p.path).join(' or ') || 'not named by the OS'}`,
        fix: repls[0] ? `use --device ${repls[0].path}` : 'use --device auto',
      });
    }
  } else if (url.kind === 'auto') {
    targets = repls
      .filter((port) => url.location === undefined || port.location === url.location)
      .map((port) => port.path);
  }

  for (const path of targets)
    findings.push(
      ...(await portFindings(path, roots, identity, options.selfPids ?? [process.pid, process.ppid])),
    );

  if (linux && url.kind !== 'sim' && !networked && !pty) findings.push(...(await udevFindings(roots)));
  findings.push(...optionalHelpers(env));
  return { findings, ports: targets };
}

/** Linux's /dev/pts/N, macOS's /dev/ttysNNN: what a path (or the link `sim --pty` makes) leads to. */
async function isPseudoTerminal(path: string): Promise<boolean> {
  const target = await realpath(path).catch(() => path);
  return /^\/dev\/(pts\/\d+|ttys\d+)$/.test(target);
}

async function portFindings(
  path: string,
  roots: DoctorRoots,
  identity: Identity,
  selfPids: readonly number[],
): Promise<Finding[]> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch {
    return [
      {
        check: 'exists',
        severity: 'fail',
        message: `${path}: no such device`,
        fix: 'plug the board in, or run jumperless-mcp detect to see its ports',
      },
    ];
  }
  const findings: Finding[] = [];
  const mode = Number(info.mode);
  const uid = Number(info.uid);
  const gid = Number(info.gid);
  const rw =
    identity.uid === 0 ||
    (identity.uid === uid
      ? (mode & 0o600) === 0o600
      : identity.gids.includes(gid)
        ? (mode & 0o060) === 0o060
        : (mode & 0o006) === 0o006);
  if (rw)
    findings.push({
      check: 'permissions',
      severity: 'ok',
      message: `${path}: this user may read and write it`,
    });
  else {
    const group = (await groupsFile(roots.etc)).find((entry) => entry.gid === gid);
    const name = group?.name ?? `gid ${gid}`;
    const listedIn = group?.members.includes(identity.user) ?? false;
    findings.push({
      check: 'permissions',
      severity: 'fail',
      message: `${path}: ${identity.user} may not open it (mode ${(mode & 0o777).toString(8)}, group ${name})${listedIn ? `; ${identity.user} is in ${name}, but not in this login session` : ''}`,
      fix: listedIn
        ? `log out and back in (or run newgrp ${name}) so the session gets the ${name} group`
        : `sudo usermod -aG ${name} ${identity.user}, then log out and back in`,
    });
  }
  const holders = (await findPortHolders(path, roots.proc)).filter(
    (holder) => !selfPids.includes(holder.pid),
  );
  const others = holders.filter(
    (holder) => !/jumperless-mcp|src\/cli\/main\.[jt]s|dist\/cli\/main\.js/.test(holder.command),
  );
  if (others.length > 0) {
    findings.push({
      check: 'port_held',
      severity: 'fail',
      message: `${path} is held by ${others.map((h) => `pid ${h.pid} (${h.command})`).join(', ')}`,
      fix: `close that program (a serial monitor, mpremote, the Arduino IDE...), or kill ${others.map((h) => h.pid).join(' ')}`,
    });
  } else if (holders.length > 0) {
    findings.push({
      check: 'port_held',
      severity: 'ok',
      message: `${path} is held by jumperless-mcp pid ${holders.map((h) => h.pid).join(', ')}: other jumperless-mcp work through it`,
    });
  } else findings.push({ check: 'port_held', severity: 'ok', message: `${path}: no other program holds it` });
  return findings;
}

async function udevFindings(roots: DoctorRoots): Promise<Finding[]> {
  const rules = await jumperlessRules([join(roots.etc, 'udev', 'rules.d'), ...roots.udevRuleDirs]);
  const findings: Finding[] = [];
  const mm = await modemManagerPid(roots.proc);
  const ignored = rules.some((rule) => /ID_MM_DEVICE_IGNORE/.test(rule.text));
  if (mm !== undefined) {
    findings.push(
      ignored
        ? {
            check: 'modemmanager',
            severity: 'ok',
            message: `ModemManager runs (pid ${mm}), and a udev rule keeps it off the board`,
          }
        : {
            check: 'modemmanager',
            severity: 'warn',
            message: `ModemManager runs (pid ${mm}) and may open the board's ports to probe them as a modem, which garbles the REPL for a few seconds after each plug-in`,
            fix: `add the udev rule (ENV{ID_MM_DEVICE_IGNORE}="1"): ${UDEV_INSTALL}; or sudo systemctl disable --now ModemManager if no modem needs it`,
          },
    );
  }
  if (rules.length === 0) {
    findings.push({
      check: 'udev_rule',
      severity: 'warn',
      message:
        'no udev rule names the Jumperless (1d50:acab): its ports belong to whatever group the distribution gives ttyACM devices',
      fix: `${UDEV_INSTALL}  (then replug the board)`,
    });
  } else {
    findings.push({
      check: 'udev_rule',
      severity: 'ok',
      message: `udev rule: ${rules.map((rule) => rule.file).join(', ')}`,
    });
  }
  return findings;
}

function optionalHelpers(env: NodeJS.ProcessEnv): Finding[] {
  const missing = (['socat', 'python3'] as const).filter(
    (name) => 'missing' in ptyBridge({ ...env, JUMPERLESS_PTY_BRIDGE: name }),
  );
  if (missing.length === 2) {
    return [
      {
        check: 'pty_helpers',
        severity: 'info',
        message:
          'neither socat nor python3 is on PATH: jumperless-mcp sim --pty cannot make virtual serial ports (sim over TCP and everything else work)',
        fix: 'install python3 or socat (e.g. sudo apt install socat) if you want the virtual board as a serial device',
      },
    ];
  }
  return [
    {
      check: 'pty_helpers',
      severity: 'ok',
      message: `virtual ptys for sim --pty: ${missing.length === 0 ? 'socat and python3' : missing[0] === 'socat' ? 'python3 (no socat)' : 'socat (no python3)'}`,
    },
  ];
}

async function groupsFile(etc: string): Promise<Array<{ name: string; gid: number; members: string[] }>> {
  const text = await readFile(join(etc, 'group'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .map((line) => line.split(':'))
    .filter((fields) => fields.length >= 3 && fields[0])
    .map(([name = '', , gid = '', members = '']) => ({
      name,
      gid: Number(gid),
      members: members.split(',').filter(Boolean),
    }));
}

async function jumperlessRules(dirs: readonly string[]): Promise<Array<{ file: string; text: string }>> {
  const found: Array<{ file: string; text: string }> = [];
  for (const dir of dirs) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith('.rules')).sort()) {
      const text = await readFile(join(dir, name), 'utf8').catch(() => '');
      const lines = text.split('\n').filter((line) => !line.trim().startsWith('#'));
      const relevant = lines.filter((line) => /1d50/i.test(line) && /acab/i.test(line));
      if (relevant.length > 0) found.push({ file: join(dir, name), text: relevant.join('\n') });
    }
  }
  return found;
}

async function modemManagerPid(proc: string): Promise<number | undefined> {
  const pids = (await readdir(proc).catch(() => [] as string[])).filter((name) => /^\d+$/.test(name));
  for (const pid of pids) {
    const comm = (await readFile(join(proc, pid, 'comm'), 'utf8').catch(() => '')).trim();
    if (comm === 'ModemManager') return Number(pid);
  }
  return undefined;
}
