/**
 * `jumperless-mcp detect`: the Jumperless boards on USB, each with its four ports and what each
 * one is, and the one the server opens (CDC2, the MicroPython REPL). Read-only: nothing is opened.
 */
import {
  type DiscoveryOptions,
  listJumperlessPorts,
  PORT_ROLES,
  type PortRole,
} from '../device/discovery.js';

export interface DetectedBoard {
  location: string;
  /** The port jumperless-mcp opens (`--device auto` finds the same), when the OS names interfaces; else `auto` probes. */
  repl: string | undefined;
  ports: Array<{ path: string; interface?: number; role?: PortRole; name?: string }>;
}

export async function detectBoards(options: DiscoveryOptions = {}): Promise<DetectedBoard[]> {
  const byLocation = new Map<string, DetectedBoard>();
  for (const port of await listJumperlessPorts(options)) {
    const board = byLocation.get(port.location) ?? { location: port.location, repl: undefined, ports: [] };
    byLocation.set(port.location, board);
    if (port.role === 'repl') board.repl = port.path;
    board.ports.push({
      path: port.path,
      ...(port.interfaceNumber === undefined ? {} : { interface: port.interfaceNumber }),
      ...(port.role ? { role: port.role } : {}),
      ...(port.interfaceName ? { name: port.interfaceName } : {}),
    });
  }
  return [...byLocation.values()];
}

/** Prints what it found; exit code 0 when there is at least one board, else 1 (with what to check). */
export async function runDetect(
  options: { json?: boolean },
  out: NodeJS.WritableStream,
  discovery: DiscoveryOptions = {},
): Promise<number> {
  const boards = await detectBoards(discovery);
  if (options.json) {
    out.write(`${JSON.stringify({ boards }, null, 2)}\n`);
    return boards.length > 0 ? 0 : 1;
  }
  if (boards.length === 0) {
    out.write(
      'No Jumperless V5 found (USB 1D50:ACAB). Check the cable (a data cable, not a charging one) and that the board is powered; jumperless-mcp --sim runs the virtual board.\n',
    );
    return 1;
  }
  for (const board of boards) {
    out.write(`Jumperless V5 at USB ${board.location}\n`);
    for (const port of board.ports) {
      const role = port.role
        ? `${PORT_ROLES[port.role].cdc}, ${PORT_ROLES[port.role].purpose}`
        : 'an interface the board does not name';
      out.write(`  ${port.path.padEnd(28)} ${role}\n`);
    }
    out.write(
      board.repl
        ? `  use: jumperless-mcp --device ${board.repl}   (or --device auto:${board.location})\n`
        : `  the OS does not say which port is the REPL: --device auto:${board.location} finds it by its answer (a raw-REPL probe)\n`,
    );
  }
  return 0;
}
