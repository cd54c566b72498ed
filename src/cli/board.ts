/**
 * Opens the board a Config names: a device session over the right link, with the tools' helper.
 * Only the CLI picks between serial, TCP and the in-process virtual board (DESIGN.md §2).
 */
import { existsSync, readFileSync } from 'node:fs';
import { replCandidates } from '../device/autoPort.js';
import { Board, sessionJobs } from '../device/board.js';
import { createLink, formatDeviceUrl, parseDeviceUrl, type SimFactory } from '../device/deviceUrl.js';
import { listJumperlessPorts } from '../device/discovery.js';
import { streamLink } from '../device/link.js';
import { DeviceSession, type SessionEvent } from '../device/session.js';
import { boardSocketPath, serialIdentity } from '../device/share/path.js';
import type { ShareEvent } from '../device/share/shared.js';
import { TelemetryPort } from '../device/telemetry.js';
import { findTelemetryPort, openTelemetryPort } from '../device/telemetryPort.js';
import type { SimBoard } from '../sim/index.js';
import { boardHelper } from '../tools/index.js';
import { simFirmware } from './simFirmware.js';
import { UsageError } from './usageError.js';

export interface OpenBoard {
  client: Board;
  session: DeviceSession;
  /** The virtual board, when the device is `sim`. */
  sim: SimBoard | undefined;
  /** What the user asked for, e.g. `sim` or `/dev/ttyACM0`. */
  device: string;
  close(): Promise<void>;
}

export interface OpenBoardOptions {
  /** Prime the tools' helper namespace (`_jlt`) on the board. Default true; `selftest` runs without. */
  toolsHelper?: boolean;
}

export async function openBoard(device: string, options: OpenBoardOptions = {}): Promise<OpenBoard> {
  let sim: SimBoard | undefined;
  const simFactory: SimFactory = async ({ partsFile, firmware }) => {
    // Loaded only for the virtual board, so a real board's server starts faster.
    const { SimBoard } = await import('../sim/index.js');
    const partsFileText = partsFile === undefined ? undefined : await readParts(partsFile);
    const release = firmware === undefined ? undefined : simFirmware(firmware);
    sim = await SimBoard.start({
      ...(partsFileText === undefined ? {} : { partsFileText }),
      ...(release === undefined ? {} : { firmware: release }),
    });
    const board = sim;
    return { connect: () => board.port('repl'), release: () => {} };
  };
  const url = parseDeviceUrl(device);
  // Each virtual board is a board of its own: a federation may run several (`jumperless-a`,
  // `jumperless-b`), and sessions refuse a second owner of one link id.
  const simId = url.kind === 'sim' ? takeSimId(formatDeviceUrl(url)) : undefined;
  const link = await (simId === undefined || url.kind !== 'sim'
    ? createLink(url, { simFactory })
    : Promise.resolve(
        simFactory({
          ...(url.partsFile === undefined ? {} : { partsFile: url.partsFile }),
          ...(url.firmware === undefined ? {} : { firmware: url.firmware }),
        }),
      ).then(
        (source) => streamLink(simId, source),
        (error: unknown) => {
          simIds.delete(simId);
          throw error;
        },
      ));
  const session = new DeviceSession(link);
  const client = new Board(sessionJobs(session, options.toolsHelper === false ? undefined : boardHelper));
  return {
    client,
    session,
    get sim() {
      return sim;
    },
    device,
    async close() {
      await session.close();
      await sim?.stop();
      if (simId !== undefined) simIds.delete(simId);
    },
  };
}

/** The board a server serves: held here, or worked through the process that holds it. */
export interface ServedBoard {
  client: Board;
  /** The session, while this process holds the port. */
  readonly session: DeviceSession | undefined;
  /** The virtual board, when the device is `sim`. */
  readonly sim: SimBoard | undefined;
  device: string;
  onEvent(listener: (event: SessionEvent | ShareEvent) => void): () => void;
  /** The board's telemetry port (CDC3) for the board view, found once; undefined when none answers. */
  telemetry(): Promise<TelemetryPort | undefined>;
  /** Opens the port now, or finds the process that holds it. */
  ready(): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * A real board (serial, auto, TCP) is shared: the first jumperless-mcp to open it serves it to
 * the others on a socket named after the board (src/share). A virtual board lives in its
 * process and is never shared.
 */
export async function openServedBoard(
  device: string,
  client: string,
  options: { announce?: boolean; telemetry?: string } = {},
): Promise<ServedBoard> {
  const identity = await identityOf(device);
  if (identity === undefined) {
    const board = await openBoard(device);
    const telemetry = telemetryFinder(device, options.telemetry ?? 'auto', () => board.sim);
    return {
      client: board.client,
      session: board.session,
      get sim() {
        return board.sim;
      },
      device,
      onEvent: (listener) => board.session.onEvent(listener),
      telemetry: telemetry.find,
      ready: () => board.session.connect(),
      close: async () => {
        await telemetry.close();
        await board.close();
      },
    };
  }
  const telemetry = telemetryFinder(device, options.telemetry ?? 'auto', () => undefined);
  // Loaded only for a real board, with the board socket it is shared over.
  const { SharedBoard } = await import('../device/share/shared.js');
  const path = boardSocketPath(identity);
  const log = (line: string) => process.stderr.write(`jumperless-mcp: ${line}\n`);
  const shared = new SharedBoard({
    id: identity,
    path,
    device,
    client,
    openLocal: async () => {
      const local = await openBoard(device);
      return { jobs: local.client.jobs, session: local.session, close: () => local.close() };
    },
    log,
  });
  // A server says whether it holds the board or works through its owner; a one-shot command need not.
  if (options.announce !== false) {
    shared.onEvent((event) => {
      if (event.type === 'owner')
        log(`holding ${device}; other jumperless-mcp processes work through ${path}`);
      if (event.type === 'client') log(`${device} is held by process ${event.ownerPid}; working through it`);
    });
  }
  // Claim the port (or find its owner) now, so the other processes find this one serving it. A
  // one-shot command says itself why its board could not be had (once); a board closed meanwhile
  // (a command refused before it used it) has nothing to tell.
  let closing = false;
  void shared.ready().catch((error: unknown) => {
    if (closing || options.announce === false) return;
    process.stderr.write(
      `jumperless-mcp: ${device}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  });
  return {
    client: new Board(shared),
    get session() {
      return shared.session;
    },
    sim: undefined,
    device,
    onEvent: (listener) => shared.onEvent(listener),
    telemetry: telemetry.find,
    ready: () => shared.ready(),
    close: async () => {
      closing = true;
      await telemetry.close();
      return shared.close();
    },
  };
}

/**
 * The board view's telemetry port (`--telemetry`): `off`, a path (confirmed by its answer), or
 * `auto`: the virtual board's CDC3 (served as the board serves it), or the port beside a serial
 * REPL that answers as CDC3 does (device/telemetryPort.ts). A network link has none unless named.
 */
function telemetryFinder(device: string, setting: string, sim: () => SimBoard | undefined) {
  let found: Promise<TelemetryPort | undefined> | undefined;
  const look = async (): Promise<TelemetryPort | undefined> => {
    if (setting === 'off') return undefined;
    if (setting !== 'auto') return openTelemetryPort(setting);
    const url = parseDeviceUrl(device);
    if (url.kind === 'serial') return findTelemetryPort(url.path);
    if (url.kind === 'auto') {
      const boards = replCandidates(await listJumperlessPorts().catch(() => []));
      const board = boards.find((b) => url.location === undefined || b.location === url.location);
      const repl = board?.ports.find((port) => port.role === 'repl') ?? board?.ports[0];
      return repl ? findTelemetryPort(repl.path) : undefined;
    }
    return undefined;
  };
  return {
    find: (): Promise<TelemetryPort | undefined> => {
      const board = sim();
      if (setting === 'auto' && parseDeviceUrl(device).kind === 'sim') {
        // Only once the virtual board runs (its first call starts it); its CDC3 is one of its ports.
        if (!board) return Promise.resolve(undefined);
        found ??= Promise.resolve(
          new TelemetryPort(
            streamLink(`${device}#cdc3`, { connect: () => board.port('backchannel'), release: () => {} }),
          ),
        );
        return found;
      }
      found ??= look().catch((error: unknown) => {
        process.stderr.write(
          `jumperless-mcp: the board view reads through the REPL: ${error instanceof Error ? error.message : String(error)}\n`,
        );
        return undefined;
      });
      return found;
    },
    close: async () => {
      const port = await found?.catch(() => undefined);
      await port?.close().catch(() => {});
    },
  };
}

/** What names a board across processes; undefined for a virtual board or no board found. */
export async function identityOf(device: string): Promise<string | undefined> {
  const url = parseDeviceUrl(device);
  switch (url.kind) {
    case 'sim':
      return undefined;
    case 'serial':
      return serialIdentity(url.path);
    case 'tcp':
    case 'rfc2217':
      // One TCP endpoint is one exported port, whichever protocol it speaks.
      return `tcp:${url.host}:${url.port}`;
    case 'auto': {
      // Every port of a board shares its USB location, also one whose interfaces the OS does not name.
      const boards = replCandidates(await listJumperlessPorts().catch(() => []));
      const board = boards.find((b) => url.location === undefined || b.location === url.location);
      const port = board?.ports[0];
      if (!port) return undefined;
      return port.location ? `usb:${port.location}` : serialIdentity(port.path);
    }
  }
}

/** Link ids of the virtual boards open in this process: `sim`, then `sim#2`, `sim#3`... */
const simIds = new Set<string>();

function takeSimId(base: string): string {
  let id = base;
  for (let n = 2; simIds.has(id); n++) id = `${base}#${n}`;
  simIds.add(id);
  return id;
}

/**
 * What can be told of a board before opening it, in one line: a serial path that does not exist
 * (a typo or an unplugged board: a board that is there but not answering yet is opened again by
 * the next call), and a parts file for the virtual board that is missing or malformed (it cannot
 * get better by trying again). A server checks this before it starts, a command before it runs.
 */
export async function checkDevice(device: string): Promise<void> {
  const url = parseDeviceUrl(device);
  if (url.kind === 'serial' && !existsSync(url.path)) {
    throw new Error(
      `${url.path}: no such device. Plug the board in, or name its REPL port (USB interface 4 of the board) with --device, or use --device auto.`,
    );
  }
  if (url.kind === 'sim' && url.partsFile !== undefined) await readParts(url.partsFile);
}

/** The parts file's text, or a UsageError naming the file and what is wrong with it. */
async function readParts(path: string): Promise<string> {
  // Loaded only for the virtual board, so a real board's server starts faster.
  const { parsePartsFile } = await import('../sim/parts.js');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a file' : String(error);
    throw new UsageError(`parts file ${path}: ${why}`);
  }
  const parsed = parsePartsFile(text);
  if (!parsed.ok) throw new UsageError(`parts file ${path} refused: ${parsed.errors.join('; ')}`);
  return text;
}

/** `auto` when a Jumperless is plugged in, else the virtual board (for `npm start`). */
export async function boardOrSim(): Promise<string> {
  try {
    return replCandidates(await listJumperlessPorts()).length > 0 ? 'auto' : 'sim';
  } catch {
    return 'sim';
  }
}

/** What a board's link event tells the people at the clients, as one log line (or nothing). */
export function describeBoardEvent(
  event: SessionEvent | ShareEvent,
): { level: 'notice' | 'warning'; text: string } | undefined {
  if (event.type === 'owner') return { level: 'notice', text: `This server holds ${event.device}.` };
  if (event.type === 'client') {
    return {
      level: 'notice',
      text: `The board is held by jumperless-mcp process ${event.ownerPid}; calls go through it.`,
    };
  }
  if (event.type === 'owner_lost') {
    return {
      level: 'warning',
      text: `The process holding the board went away (${event.reason}); taking over.`,
    };
  }
  if (event.type === 'state') {
    if (event.state === 'reconnecting')
      return { level: 'warning', text: 'The board link dropped; reconnecting.' };
    if (event.state === 'ready') return { level: 'notice', text: 'The board is connected.' };
    return undefined;
  }
  if (event.type === 'reset')
    return { level: 'warning', text: `The board reset (${event.kind}); its state may have changed.` };
  return {
    level: 'notice',
    text: `A stuck board job was cleared (${event.step}, ${Math.round(event.ms)} ms).`,
  };
}
