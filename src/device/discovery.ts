/**
 * Finds Jumperless V5 REPL ports by USB identity (spec §1): VID 1D50, PID ACAB, and the
 * MicroPython REPL on CDC2 = USB interface 4 (Linux `bInterfaceNumber` 04, Windows `MI_04`, macOS
 * `...JLV5port5`). Boards are told apart by USB location (the sysfs device name, e.g. `1-1.2`:
 * udev's ID_PATH in short), since every unit has the same serial string `JLV5port`. The tty
 * numbering says nothing: the four ports can come up in any order. A port whose interface the OS
 * does not give is listed without one, and `auto` tells the REPL among them by its answer.
 *
 * On Linux we read sysfs ourselves: `SerialPort.list()` spawns `udevadm`, which is missing in
 * containers and then takes the process down (DESIGN.md §4 "Device"). The roots are injectable
 * so tests can build a fake sysfs: a physical board cannot be plugged in on a CI machine.
 */
import { readdir, readFile, realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export const JUMPERLESS_VID = '1d50';
export const JUMPERLESS_PID = 'acab';
/** CDC2, the MicroPython REPL (spec §1 interface table). */
export const REPL_INTERFACE = 4;

export type PortRole = 'main' | 'uart' | 'repl' | 'backchannel';
const ROLE_BY_INTERFACE: Record<number, PortRole> = { 0: 'main', 2: 'uart', 4: 'repl', 6: 'backchannel' };

/** What each of the board's four ports is: its CDC name, in a few words, and what it is for. */
export const PORT_ROLES: Record<PortRole, { cdc: string; short: string; purpose: string }> = {
  main: { cdc: 'CDC0', short: 'the menu port', purpose: 'the menu and the main REPL a person types into' },
  uart: { cdc: 'CDC1', short: 'the UART bridge', purpose: 'the UART bridge to the breadboard' },
  repl: {
    cdc: 'CDC2',
    short: 'the MicroPython REPL',
    purpose: 'the MicroPython raw REPL: the one jumperless-mcp opens',
  },
  backchannel: { cdc: 'CDC3', short: 'the status backchannel', purpose: 'the read-only status backchannel' },
};

export interface JumperlessPort {
  /** What to open, e.g. `/dev/ttyACM2`, `/dev/cu.usbmodemJLV5port5`, `COM7`. */
  path: string;
  /** USB interface number (0, 2, 4, 6) when the OS says. */
  interfaceNumber?: number;
  role?: PortRole;
  /** Where the board sits on the USB tree, e.g. `1-2` or `3-1.4`; the same for all its ports. */
  location: string;
  /** The interface string, e.g. `JL Micropython REPL`, when the OS exposes it. */
  interfaceName?: string;
}

/** What `serialport`'s list() returns, reduced to what we read (macOS and Windows). */
export interface ListedPort {
  path: string;
  vendorId?: string;
  productId?: string;
  pnpId?: string;
  locationId?: string;
  serialNumber?: string;
}

export interface DiscoveryOptions {
  platform?: NodeJS.Platform;
  /** Default `/sys`. */
  sysRoot?: string;
  /** Default `/dev`. */
  devRoot?: string;
  /** macOS/Windows port listing; default `SerialPort.list()` behind a try/catch. */
  listPorts?: () => Promise<ListedPort[]>;
}

/** Every port of every Jumperless V5 attached, whatever its interface. */
export async function listJumperlessPorts(options: DiscoveryOptions = {}): Promise<JumperlessPort[]> {
  const platform = options.platform ?? process.platform;
  if (platform === 'linux') return listFromSysfs(options.sysRoot ?? '/sys', options.devRoot ?? '/dev');
  const listed = await safeList(options.listPorts);
  if (platform === 'darwin') return listMac(options.devRoot ?? '/dev', listed);
  return listFromSerialport(listed);
}

/** The REPL port of each board, by USB location. */
export async function findReplPorts(options: DiscoveryOptions = {}): Promise<JumperlessPort[]> {
  return (await listJumperlessPorts(options)).filter((port) => port.role === 'repl');
}

async function listFromSysfs(sysRoot: string, devRoot: string): Promise<JumperlessPort[]> {
  const classDir = join(sysRoot, 'class', 'tty');
  let names: string[];
  try {
    names = await readdir(classDir);
  } catch {
    return [];
  }
  const ports = await Promise.all(
    names.map(async (name): Promise<JumperlessPort | undefined> => {
      // class/tty/<name>/device -> the USB interface directory, e.g. .../1-2/1-2:1.4
      let interfaceDir: string;
      try {
        interfaceDir = await realpath(join(classDir, name, 'device'));
      } catch {
        return undefined; // virtual ttys have no device
      }
      const usbDevice = dirname(interfaceDir);
      const [vendor, product] = await Promise.all([
        readText(join(usbDevice, 'idVendor')),
        readText(join(usbDevice, 'idProduct')),
      ]);
      if (vendor?.toLowerCase() !== JUMPERLESS_VID || product?.toLowerCase() !== JUMPERLESS_PID)
        return undefined;
      const interfaceText = await readText(join(interfaceDir, 'bInterfaceNumber'));
      const interfaceNumber = interfaceText === undefined ? undefined : Number.parseInt(interfaceText, 16);
      const interfaceName = await readText(join(interfaceDir, 'interface'));
      return describe(join(devRoot, name), basename(usbDevice), interfaceNumber, interfaceName);
    }),
  );
  return sortPorts(ports.filter((port): port is JumperlessPort => port !== undefined));
}

/** macOS names each port from the serial string plus interface + 1: `JLV5port5` is interface 4. */
async function listMac(devRoot: string, listed: ListedPort[]): Promise<JumperlessPort[]> {
  const names = await readdir(devRoot).catch(() => [] as string[]);
  const ports: JumperlessPort[] = [];
  for (const name of names) {
    const match = /^cu\..*JLV5port(\d)(.*)$/.exec(name);
    if (!match) continue;
    const path = join(devRoot, name);
    const interfaceNumber = Number(match[1]) - 1;
    const location = listed.find((port) => port.path === path)?.locationId ?? (match[2] || 'usb');
    ports.push(describe(path, location, interfaceNumber));
  }
  // A board whose device names do not carry the interface (another naming scheme): its ports are
  // listed with no interface, and `auto` tells the REPL by its answer.
  for (const port of listed) {
    if (!isJumperless(port) || /JLV5port\d/.test(port.path)) continue;
    ports.push(describe(port.path, port.locationId ?? 'usb'));
  }
  return sortPorts(ports);
}

const isJumperless = (port: ListedPort): boolean =>
  port.vendorId?.toLowerCase() === JUMPERLESS_VID && port.productId?.toLowerCase() === JUMPERLESS_PID;

/** Windows: instance ids carry `MI_04` for interface 4 (spec §1). */
function listFromSerialport(listed: ListedPort[]): JumperlessPort[] {
  const ports: JumperlessPort[] = [];
  for (const port of listed) {
    if (!isJumperless(port)) continue;
    const mi = /MI_(\d\d)/i.exec(port.pnpId ?? '');
    const interfaceNumber = mi?.[1] ? Number.parseInt(mi[1], 16) : undefined;
    // The parent instance id (before `&0000`-style suffixes) is shared by the board's ports.
    const instance = (port.pnpId ?? '')
      .split('\\')
      .at(-1)
      ?.replace(/&[0-9a-f]{4}$/i, '');
    ports.push(describe(port.path, port.locationId ?? instance ?? 'usb', interfaceNumber));
  }
  return sortPorts(ports);
}

function describe(
  path: string,
  location: string,
  interfaceNumber?: number,
  interfaceName?: string,
): JumperlessPort {
  const role = interfaceNumber === undefined ? undefined : ROLE_BY_INTERFACE[interfaceNumber];
  return {
    path,
    location,
    ...(interfaceNumber === undefined || Number.isNaN(interfaceNumber) ? {} : { interfaceNumber }),
    ...(role ? { role } : {}),
    ...(interfaceName ? { interfaceName } : {}),
  };
}

async function safeList(listPorts: DiscoveryOptions['listPorts']): Promise<ListedPort[]> {
  try {
    if (listPorts) return await listPorts();
    const { SerialPort } = await import('serialport');
    return await SerialPort.list();
  } catch {
    return []; // no usable listing: the caller falls back to --port
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return undefined;
  }
}

function sortPorts(ports: JumperlessPort[]): JumperlessPort[] {
  return ports.sort(
    (a, b) => a.location.localeCompare(b.location) || (a.interfaceNumber ?? 99) - (b.interfaceNumber ?? 99),
  );
}
