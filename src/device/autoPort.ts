/**
 * `auto`: picks the REPL port of the one attached board, confirmed by a raw-REPL probe: the port on
 * interface 4 (CDC2) when the OS names interfaces, else the board's port that answers like a raw
 * REPL. Several boards are told apart by USB location (`auto:<location>`, e.g. `auto:1-1.2`: every
 * V5 has the same USB serial `JLV5port`); an explicit path always wins.
 */
import { type DiscoveryOptions, type JumperlessPort, listJumperlessPorts } from './discovery.js';
import { DeviceError, isDeviceError } from './errors.js';
import { probeRawRepl } from './probe.js';
import { serialLink } from './serialLink.js';

export interface AutoPortOptions extends DiscoveryOptions {
  /** Only the board at this USB location (as listed by discovery, e.g. `1-2`). */
  location?: string;
  /** Confirms a candidate; default: open it at 115200 and wait for the raw-REPL header. */
  probe?: (path: string) => Promise<void>;
}

/** One board's ports worth a raw-REPL probe, in the order to try them. */
interface BoardCandidates {
  location: string;
  ports: JumperlessPort[];
}

/**
 * The ports to probe on each board: its interface-4 port when the OS names interfaces; otherwise
 * every port whose interface the OS does not tell, to be told apart by what it answers (the tty
 * numbering is no guide: the four ports can come up in any order). A port known to be the menu,
 * the UART bridge or the backchannel is never probed: bytes there reach the menu or an Arduino.
 */
export function replCandidates(ports: readonly JumperlessPort[]): BoardCandidates[] {
  const boards = new Map<string, JumperlessPort[]>();
  for (const port of ports) boards.set(port.location, [...(boards.get(port.location) ?? []), port]);
  return [...boards].flatMap(([location, own]) => {
    const named = own.filter((port) => port.role === 'repl');
    const unnamed = own.filter((port) => port.interfaceNumber === undefined);
    const candidates = named.length > 0 ? named : unnamed;
    return candidates.length > 0 ? [{ location, ports: candidates }] : [];
  });
}

export async function resolveAutoPort(options: AutoPortOptions = {}): Promise<JumperlessPort> {
  const listed = await listJumperlessPorts(options);
  let boards = replCandidates(listed);
  if (boards.length === 0) throw nothingFound(listed);
  if (options.location !== undefined) {
    const here = boards.filter((board) => board.location === options.location);
    if (here.length === 0) {
      throw new DeviceError(
        'not_found',
        `no Jumperless V5 at USB location ${options.location}; boards found at: ${listBoards(boards)}`,
        { boards: boards.flatMap((board) => board.ports) },
      );
    }
    boards = here;
  }
  const probe = options.probe ?? ((path: string) => probeRawRepl(serialLink(path)));
  const confirmed: JumperlessPort[] = [];
  const failures: DeviceError[] = [];
  for (const board of boards) {
    for (const port of board.ports) {
      try {
        await probe(port.path);
        // A port found by its answer is the REPL whatever the OS calls it.
        confirmed.push(port.role === 'repl' ? port : { ...port, role: 'repl' });
        break;
      } catch (error) {
        failures.push(isDeviceError(error) ? error : new DeviceError('not_found', String(error)));
      }
    }
  }
  if (confirmed.length === 1) return confirmed[0] as JumperlessPort;
  if (confirmed.length > 1) {
    throw new DeviceError(
      'not_found',
      `found ${confirmed.length} Jumperless V5 boards (${listPorts(confirmed)}); ` +
        'choose one with --device auto:<location> or --device <port path>',
      { boards: confirmed },
    );
  }
  // Nothing answered: a busy port explains it best, then whatever the probe said.
  const busy = failures.find((error) => error.code === 'busy');
  if (busy) throw busy;
  throw new DeviceError(
    'not_found',
    `found ${listBoards(boards)} but no raw-REPL answer: ${failures.map((e) => e.message).join('; ')}. ` +
      'Is CDC2 set to MicroPython ([serial_2] function), and the firmware JumperlOS 5.7 or newer?',
    { boards: boards.flatMap((board) => board.ports) },
  );
}

function nothingFound(ports: readonly JumperlessPort[]): DeviceError {
  if (ports.length > 0) {
    return new DeviceError(
      'not_found',
      `found Jumperless V5 ports (${ports.map((p) => `${p.path} interface ${p.interfaceNumber ?? '?'}`).join(', ')}) ` +
        'but none on interface 4, the MicroPython REPL (CDC2). Older firmware has no raw-REPL port; choose one with --device <port path>.',
      { ports },
    );
  }
  return new DeviceError(
    'not_found',
    'no Jumperless V5 found (USB 1D50:ACAB). Plug it in, or pass --device <path>, --device tcp://host:port or --sim.',
  );
}

function listPorts(ports: readonly JumperlessPort[]): string {
  return ports.map((port) => `USB ${port.location}: ${port.path}`).join(', ');
}

function listBoards(boards: readonly BoardCandidates[]): string {
  return boards
    .map((board) => `USB ${board.location}: ${board.ports.map((p) => p.path).join(' or ')}`)
    .join(', ');
}
