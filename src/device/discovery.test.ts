/**
 * Discovery over a fake sysfs tree built in a temp dir. This is the one mock in the device tests:
 * a physical board cannot be plugged into a CI machine, so the USB tree is written as files the
 * way Linux lays it out (class/tty/<name>/device -> the USB interface directory).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveAutoPort } from './autoPort.js';
import { findReplPorts, listJumperlessPorts } from './discovery.js';
import { DeviceError } from './errors.js';

let root: string;
let sysRoot: string;
let devRoot: string;

function addUsbDevice(
  location: string,
  vid: string,
  pid: string,
  ttys: Array<[string, number, string?]>,
): void {
  const device = join(sysRoot, 'devices', 'pci0000:00', '0000:00:14.0', 'usb1', location);
  mkdirSync(device, { recursive: true });
  writeFileSync(join(device, 'idVendor'), `${vid}\n`);
  writeFileSync(join(device, 'idProduct'), `${pid}\n`);
  writeFileSync(join(device, 'serial'), 'JLV5port\n');
  for (const [tty, itf, name] of ttys) {
    const iface = join(device, `${location}:1.${itf}`);
    mkdirSync(join(iface, 'tty', tty), { recursive: true });
    writeFileSync(join(iface, 'bInterfaceNumber'), `${itf.toString(16).padStart(2, '0')}\n`);
    if (name) writeFileSync(join(iface, 'interface'), `${name}\n`);
    mkdirSync(join(sysRoot, 'class', 'tty', tty), { recursive: true });
    symlinkSync(iface, join(sysRoot, 'class', 'tty', tty, 'device'));
    writeFileSync(join(devRoot, tty), '');
  }
}

function addJumperless(location: string, first: number): void {
  addUsbDevice(location, '1d50', 'acab', [
    [`ttyACM${first}`, 0, 'Jumperless Main'],
    [`ttyACM${first + 1}`, 2, 'JL UART Passthrough'],
    [`ttyACM${first + 2}`, 4, 'JL Micropython REPL'],
    [`ttyACM${first + 3}`, 6, 'JL TUI'],
  ]);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jl-sysfs-'));
  sysRoot = join(root, 'sys');
  devRoot = join(root, 'dev');
  mkdirSync(join(sysRoot, 'class', 'tty'), { recursive: true });
  mkdirSync(devRoot, { recursive: true });
  // Noise every machine has: a virtual console without a device, and another USB serial adapter.
  mkdirSync(join(sysRoot, 'class', 'tty', 'tty0'), { recursive: true });
  addUsbDevice('1-1', '0403', '6001', [['ttyUSB0', 0]]);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const linux = () => ({ platform: 'linux' as const, sysRoot, devRoot });

describe('discovery on Linux sysfs', () => {
  it('lists every port of a board with its interface, role and USB location', async () => {
    addJumperless('1-2', 0);
    expect(await listJumperlessPorts(linux())).toEqual([
      {
        path: join(devRoot, 'ttyACM0'),
        location: '1-2',
        interfaceNumber: 0,
        role: 'main',
        interfaceName: 'Jumperless Main',
      },
      {
        path: join(devRoot, 'ttyACM1'),
        location: '1-2',
        interfaceNumber: 2,
        role: 'uart',
        interfaceName: 'JL UART Passthrough',
      },
      {
        path: join(devRoot, 'ttyACM2'),
        location: '1-2',
        interfaceNumber: 4,
        role: 'repl',
        interfaceName: 'JL Micropython REPL',
      },
      {
        path: join(devRoot, 'ttyACM3'),
        location: '1-2',
        interfaceNumber: 6,
        role: 'backchannel',
        interfaceName: 'JL TUI',
      },
    ]);
  });

  it('finds the REPL by interface even when the tty numbering does not follow the interfaces', async () => {
    addUsbDevice('1-4', '1D50', 'ACAB', [
      ['ttyACM9', 4],
      ['ttyACM5', 0],
    ]);
    expect((await findReplPorts(linux())).map((p) => p.path)).toEqual([join(devRoot, 'ttyACM9')]);
  });

  it('returns nothing when there is no sysfs', async () => {
    expect(await listJumperlessPorts({ platform: 'linux', sysRoot: join(root, 'missing') })).toEqual([]);
  });
});

describe('resolveAutoPort', () => {
  const probed: string[] = [];
  const probeOk = async (path: string) => {
    probed.push(path);
  };
  beforeEach(() => {
    probed.length = 0;
  });

  it('picks the one board after a probe', async () => {
    addJumperless('1-2', 0);
    const port = await resolveAutoPort({ ...linux(), probe: probeOk });
    expect(port.path).toBe(join(devRoot, 'ttyACM2'));
    expect(probed).toEqual([join(devRoot, 'ttyACM2')]);
  });

  it('refuses to guess between two boards and names their locations', async () => {
    addJumperless('1-2', 0);
    addJumperless('1-3.1', 4);
    await expect(resolveAutoPort({ ...linux(), probe: probeOk })).rejects.toThrow(
      `found 2 Jumperless V5 boards (USB 1-2: ${join(devRoot, 'ttyACM2')}, USB 1-3.1: ${join(devRoot, 'ttyACM6')})`,
    );
  });

  it('tells two boards apart by USB location', async () => {
    addJumperless('1-2', 0);
    addJumperless('1-3.1', 4);
    const port = await resolveAutoPort({ ...linux(), location: '1-3.1', probe: probeOk });
    expect(port.path).toBe(join(devRoot, 'ttyACM6'));
    await expect(resolveAutoPort({ ...linux(), location: '9-9', probe: probeOk })).rejects.toThrow(
      /no Jumperless V5 at USB location 9-9; boards found at: USB 1-2/,
    );
  });

  it('skips a candidate that fails the probe', async () => {
    addJumperless('1-2', 0);
    addJumperless('1-3', 4);
    const probe = async (path: string) => {
      if (path.endsWith('ttyACM2')) throw new DeviceError('not_found', 'no raw prompt');
    };
    expect((await resolveAutoPort({ ...linux(), probe })).path).toBe(join(devRoot, 'ttyACM6'));
  });

  it('reports a busy port rather than "not found"', async () => {
    addJumperless('1-2', 0);
    const probe = async () => {
      throw new DeviceError('busy', 'held by pid 42 (mpremote)');
    };
    await expect(resolveAutoPort({ ...linux(), probe })).rejects.toMatchObject({ code: 'busy' });
  });

  it('probes the ports of a board whose interfaces the OS does not name, never a named menu or UART port', async () => {
    addJumperless('1-2', 0);
    // A second board whose sysfs has no bInterfaceNumber: its ports are told apart by their answer.
    const device = join(sysRoot, 'devices', 'pci0000:00', '0000:00:14.0', 'usb1', '1-3');
    mkdirSync(device, { recursive: true });
    writeFileSync(join(device, 'idVendor'), '1d50\n');
    writeFileSync(join(device, 'idProduct'), 'acab\n');
    for (const [tty, itf] of [
      ['ttyACM7', 0],
      ['ttyACM5', 4],
      ['ttyACM6', 6],
    ] as const) {
      const iface = join(device, `1-3:1.${itf}`);
      mkdirSync(iface, { recursive: true });
      mkdirSync(join(sysRoot, 'class', 'tty', tty), { recursive: true });
      symlinkSync(iface, join(sysRoot, 'class', 'tty', tty, 'device'));
      writeFileSync(join(devRoot, tty), '');
    }
    const answers = join(devRoot, 'ttyACM6');
    const probe = async (path: string) => {
      probed.push(path);
      if (path !== answers) throw new DeviceError('not_found', 'no raw prompt');
    };
    const port = await resolveAutoPort({ ...linux(), location: '1-3', probe });
    expect(port).toEqual({ path: answers, location: '1-3', role: 'repl' });
    expect(probed).toContain(answers);
    expect(
      probed.every(
        (path) => path.includes('ttyACM5') || path.includes('ttyACM6') || path.includes('ttyACM7'),
      ),
    ).toBe(true);
    // On the board that names its interfaces only interface 4 is probed.
    probed.length = 0;
    await resolveAutoPort({ ...linux(), location: '1-2', probe: probeOk });
    expect(probed).toEqual([join(devRoot, 'ttyACM2')]);
  });

  it('explains a board without the REPL interface', async () => {
    addUsbDevice('1-2', '1d50', 'acab', [['ttyACM0', 0]]);
    await expect(resolveAutoPort({ ...linux(), probe: probeOk })).rejects.toThrow(/none on interface 4/);
  });

  it('explains an empty bus', async () => {
    await expect(resolveAutoPort({ ...linux(), probe: probeOk })).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('no Jumperless V5 found (USB 1D50:ACAB)'),
    });
  });
});

describe('discovery on macOS and Windows', () => {
  it('matches ...JLV5port5 on macOS', async () => {
    for (const n of [1, 3, 5, 7]) writeFileSync(join(devRoot, `cu.usbmodemJLV5port${n}`), '');
    writeFileSync(join(devRoot, 'tty.usbmodemJLV5port5'), '');
    const listPorts = async () => [{ path: join(devRoot, 'cu.usbmodemJLV5port5'), locationId: '0-1' }];
    const repl = await findReplPorts({ platform: 'darwin', devRoot, listPorts });
    expect(repl).toEqual([
      { path: join(devRoot, 'cu.usbmodemJLV5port5'), location: '0-1', interfaceNumber: 4, role: 'repl' },
    ]);
  });

  it('matches MI_04 on Windows and groups ports by board', async () => {
    const listPorts = async () => [
      {
        path: 'COM3',
        vendorId: '1D50',
        productId: 'ACAB',
        pnpId: 'USB\\VID_1D50&PID_ACAB&MI_00\\6&2A1B3C4D&0&0000',
      },
      {
        path: 'COM5',
        vendorId: '1D50',
        productId: 'ACAB',
        pnpId: 'USB\\VID_1D50&PID_ACAB&MI_04\\6&2A1B3C4D&0&0004',
      },
      { path: 'COM9', vendorId: '2341', productId: '0043', pnpId: 'USB\\VID_2341&PID_0043\\1234' },
    ];
    const ports = await listJumperlessPorts({ platform: 'win32', listPorts });
    expect(ports.map((p) => [p.path, p.role, p.location])).toEqual([
      ['COM3', 'main', '6&2A1B3C4D&0'],
      ['COM5', 'repl', '6&2A1B3C4D&0'],
    ]);
  });

  it('lists a macOS port whose name does not carry the interface without one, for auto to probe', async () => {
    mkdirSync(join(root, 'macdev'), { recursive: true });
    const ports = await listJumperlessPorts({
      platform: 'darwin',
      devRoot: join(root, 'macdev'),
      listPorts: async () => [
        { path: '/dev/tty.usbmodem14201', vendorId: '1d50', productId: 'acab', locationId: '14200000' },
        { path: '/dev/tty.usbserial-1', vendorId: '0403', productId: '6001' },
      ],
    });
    expect(ports).toEqual([{ path: '/dev/tty.usbmodem14201', location: '14200000' }]);
  });

  it('survives a listing that throws (udevadm missing and the like)', async () => {
    const listPorts = async () => {
      throw new Error('spawn udevadm ENOENT');
    };
    expect(await listJumperlessPorts({ platform: 'win32', listPorts })).toEqual([]);
  });
});
