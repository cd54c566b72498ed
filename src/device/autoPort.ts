/**
 * `auto`: picks the REPL port of the one attached board, confirmed by a raw-REPL probe. Several
 * boards are told apart by USB location (`auto:<location>`); an explicit path always wins.
 */
import {
  type DiscoveryOptions,
  findReplPorts,
  type JumperlessPort,
  listJumperlessPorts,
} from './discovery.js';
import { DeviceError, isDeviceError } from './errors.js';
import { probeRawRepl } from './probe.js';
import { serialLink } from './serialLink.js';

export interface AutoPortOptions extends DiscoveryOptions {
  /** Only the board at this USB location (as listed by discovery, e.g. `1-2`). */
  location?: string;
  /** Confirms a candidate; default: open it at 115200 and wait for the raw-REPL header. */
  probe?: (path: string) => Promise<void>;
}

export async function resolveAutoPort(options: AutoPortOptions = {}): Promise<JumperlessPort> {
  let candidates = await findReplPorts(options);
  if (candidates.length === 0) throw await nothingFound(options);
  if (options.location !== undefined) {
    const here = candidates.filter((port) => port.location === options.location);
    if (here.length === 0) {
      throw new DeviceError(
        'not_found',
        `no Jumperless V5 at USB location ${options.location}; boards found at: ${listBoards(candidates)}`,
        { boards: candidates },
      );
    }
    candidates = here;
  }
  const probe = options.probe ?? ((path: string) => probeRawRepl(serialLink(path)));
  const confirmed: JumperlessPort[] = [];
  const failures: DeviceError[] = [];
  for (const port of candidates) {
    try {
      await probe(port.path);
      confirmed.push(port);
    } catch (error) {
      failures.push(isDeviceError(error) ? error : new DeviceError('not_found', String(error)));
    }
  }
  if (confirmed.length === 1) return confirmed[0] as JumperlessPort;
  if (confirmed.length > 1) {
    throw new DeviceError(
      'not_found',
      `found ${confirmed.length} Jumperless V5 boards (${listBoards(confirmed)}); ` +
        'choose one with --device auto:<location> or --device <port path>',
      { boards: confirmed },
    );
  }
  // Nothing answered: a busy port explains it best, then whatever the probe said.
  const busy = failures.find((error) => error.code === 'busy');
  if (busy) throw busy;
  throw new DeviceError(
    'not_found',
    `found ${listBoards(candidates)} but no raw-REPL answer: ${failures.map((e) => e.message).join('; ')}. ` +
      'Is CDC2 set to MicroPython ([serial_2] function), and the firmware JumperlOS 5.7 or newer?',
    { boards: candidates },
  );
}

async function nothingFound(options: DiscoveryOptions): Promise<DeviceError> {
  const ports = await listJumperlessPorts(options);
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

function listBoards(ports: readonly JumperlessPort[]): string {
  return ports.map((port) => `USB ${port.location}: ${port.path}`).join(', ');
}
