/**
 * Test helper: a fake Linux sysfs and /dev for one Jumperless board at a USB location, whose tty
 * interfaces point at the given device nodes (no physical board can be plugged in here). Call it
 * again with the same `name` to put a second board in the same tree (give other tty names).
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FakeBoardOptions {
  /** tty names in the order of `interfaces`; default `ttyACM<interface / 2>` (the usual order). */
  ttyNames?: readonly string[];
  /** False: the interfaces have no `bInterfaceNumber` file, as when the OS does not say. */
  interfaceNumbers?: boolean;
}

export function fakeBoard(
  root: string,
  name: string,
  location: string,
  interfaces: Array<[number, string]>,
  options: FakeBoardOptions = {},
): { sysRoot: string; devRoot: string } {
  const sysRoot = join(root, name, 'sys');
  const devRoot = join(root, name, 'dev');
  const device = join(sysRoot, 'devices', 'usb1', location);
  mkdirSync(devRoot, { recursive: true });
  mkdirSync(device, { recursive: true });
  writeFileSync(join(device, 'idVendor'), '1d50\n');
  writeFileSync(join(device, 'idProduct'), 'acab\n');
  writeFileSync(join(device, 'serial'), 'JLV5port\n');
  interfaces.forEach(([itf, target], i) => {
    const tty = options.ttyNames?.[i] ?? `ttyACM${itf / 2}`;
    const iface = join(device, `${location}:1.${itf}`);
    mkdirSync(iface, { recursive: true });
    if (options.interfaceNumbers !== false) writeFileSync(join(iface, 'bInterfaceNumber'), `0${itf}\n`);
    mkdirSync(join(sysRoot, 'class', 'tty', tty), { recursive: true });
    symlinkSync(iface, join(sysRoot, 'class', 'tty', tty, 'device'));
    symlinkSync(target, join(devRoot, tty));
  });
  return { sysRoot, devRoot };
}
