/**
 * What the MCP server offers as resources: the board state (JSON), its nets, the node map, an API
 * reference and a picture of the board. Renderers are pure; `boardResources` pairs each with its
 * URI and a `read` that fetches what it needs from the board in one call.
 */

import { Buffer } from 'node:buffer';
import { z } from 'zod';
import { type CrossbarReport, crossbarReport } from '../board/crossbarReport.js';
import { ALL_NODES } from '../board/nodes.js';
import type { PngOptions } from '../board/png.js';
import type { Resource } from '../core/resources.js';
import type { Board, BoardCallOptions, BoardClient } from '../device/board.js';
import { API_REFERENCE } from './apiReference.js';
import { type BoardNotes, notesFields, notesOf } from './boardNotes.js';
import { renderBoardPicture } from './boardPicture.js';
import { pinLevelWords, withOverlaySummaries } from './boardState.js';
import type { PythonPart } from './pythonParts.js';
import { type BoardSnapshot, bridgeViews, readSnapshot } from './snapshot.js';
import { APP_MIME_TYPE, BOARD_APP_URI, viewDocument } from './viewPage.js';

/**
 * The state as the firmware reports it, plus every bridge with whether it is routed, and each GPIO
 * pin's `level` in gpio_get's words (what the page shows beside the firmware's `reading`).
 */
export function renderStateJson(snapshot: BoardSnapshot): string {
  const state = withOverlaySummaries(snapshot.state);
  const gpio = state.gpio.map((g) => ({ ...g, level: pinLevelWords(g) }));
  return JSON.stringify(
    { ...state, gpio, bridges: snapshot.bridges, ...notesFields(snapshot.notes) },
    null,
    2,
  );
}

/** Nets with names, colours (#rrggbb), member nodes and voltages. */
export function renderNetsJson(snapshot: BoardSnapshot): string {
  const nets = snapshot.nets.map(({ node_ids: _ids, ...net }) => net);
  return JSON.stringify({ nets }, null, 2);
}

/**
 * Every node id with its names and whether the crossbar can route it (spec §6.2), compact (it
 * goes into a model's context): rows 1-60 as one line, then each other node with the names that
 * are not its own (short name included), `routable: false` only where it is not.
 */
export function renderNodeMapJson(): string {
  const rows = ALL_NODES.filter((n) => n.kind === 'row');
  const nodes = ALL_NODES.filter((n) => n.kind !== 'row').map((n) => {
    const name = n.printName || String(n.id);
    const aliases = [...new Set([...n.aliases, n.shortName])].filter((alias) => alias && alias !== name);
    return {
      id: n.id,
      name,
      ...(aliases.length > 0 ? { aliases } : {}),
      kind: n.kind,
      ...(n.bridgeable ? {} : { routable: false }),
    };
  });
  return JSON.stringify({
    rows: {
      ids: `${rows[0]?.id}-${rows.at(-1)?.id}`,
      names: 'the row number, as a number or a string',
      kind: 'row',
      routable: rows.every((n) => n.bridgeable),
    },
    nodes,
  });
}

/**
 * Board-side part for the crossbar resource (listed in `boardHelper`, index.ts; uses the snapshot
 * part's `snap_bridges`): the primary paths as the firmware lists them, the bridges with their
 * route state, and how many duplicate paths were routed.
 */
export const crossbarPython: PythonPart = {
  name: 'crossbar',
  source: `
def crossbar():
    n = get_num_paths(False)
    paths = []
    for i in range(n):
        p = get_path_info(i)
        if p is not None:
            paths.append([p['node1'], p['node2'], p['net'], p['chips'], p['x'], p['y']])
    return [paths, _jlt.snap_bridges(), get_num_paths(True) - n]
`,
};

const rawCrossbar = z.tuple([
  z.array(
    z.tuple([
      z.number(),
      z.number(),
      z.number(),
      z.array(z.number()),
      z.array(z.number()),
      z.array(z.number()),
    ]),
  ),
  z.unknown(),
  z.number(),
]);

/** `_jlt.crossbar()`'s reply as the resource's report. */
export function crossbarOf(raw: unknown): CrossbarReport {
  const [paths, bridges, duplicates] = rawCrossbar.parse(raw);
  return crossbarReport(
    paths.map(([node1, node2, net, chips, x, y]) => ({ node1, node2, net, chips, x, y })),
    bridgeViews(bridges),
    Math.max(0, duplicates),
  );
}

/** Chips, lanes between them in use and free, and every bridge that is not routed with why. */
export function renderCrossbarJson(report: CrossbarReport): string {
  return JSON.stringify(report);
}

export function renderApiReference(): string {
  return API_REFERENCE;
}

/** PNG of the board (rows, bridges, LED colours, rails with voltages, legend), well under 200 KB. */
export function renderBoardPng(snapshot: BoardSnapshot, png?: PngOptions): Uint8Array {
  return renderBoardPicture(snapshot, png);
}

export type ResourceContent = { text: string } | { blob: Uint8Array };

export interface BoardResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: 'application/json' | 'text/markdown' | 'image/png' | typeof APP_MIME_TYPE;
  /** False for resources that never touch the board (node map, API reference). */
  needsBoard: boolean;
  /** True when the content follows the board's state (send resources/updated after changes). */
  changesWithBoard: boolean;
  /** `notes`: the board's latest readings and OLED text, for what shows them (state, picture). */
  read(board: BoardClient, options?: BoardCallOptions, notes?: BoardNotes): Promise<ResourceContent>;
}

export const boardResources: readonly BoardResource[] = [
  {
    uri: 'jumperless://board/health',
    name: 'board_health',
    title: 'Board link health',
    description:
      'The link to the board (connected, latency, job counters, recoveries), whose turn it is, and which jumperless-mcp process holds the port with the processes working through it, as JSON.',
    mimeType: 'application/json',
    needsBoard: true,
    changesWithBoard: false,
    read: async (board) => ({ text: JSON.stringify(await board.health(), null, 2) }),
  },
  {
    uri: 'jumperless://board/state',
    name: 'board_state',
    title: 'Board state',
    description:
      "Power setpoints, nets, GPIO, LED overlays (their pixels: overlay_list), every bridge (with routed flags), the latest readings and the OLED's text tool calls made, as JSON.",
    mimeType: 'application/json',
    needsBoard: true,
    changesWithBoard: true,
    read: async (board, options, notes) => ({
      text: renderStateJson({ ...(await readSnapshot(board, options)), ...(notes ? { notes } : {}) }),
    }),
  },
  {
    uri: 'jumperless://board/nets',
    name: 'board_nets',
    title: 'Nets',
    description: 'Nets with names, colours, member nodes and voltages, as JSON.',
    mimeType: 'application/json',
    needsBoard: true,
    changesWithBoard: true,
    read: async (board, options) => ({ text: renderNetsJson(await readSnapshot(board, options)) }),
  },
  {
    uri: 'jumperless://board/nodes',
    name: 'node_map',
    title: 'Node map',
    description: 'Every node id with its names, kind and whether it can be routed, as JSON.',
    mimeType: 'application/json',
    needsBoard: false,
    changesWithBoard: false,
    read: async () => ({ text: renderNodeMapJson() }),
  },
  {
    uri: 'jumperless://docs/api',
    name: 'api_reference',
    title: 'jumperless module reference',
    description:
      "The board's MicroPython API in brief: nodes, connections, nets, supplies, GPIO, LEDs, hazards.",
    mimeType: 'text/markdown',
    needsBoard: false,
    changesWithBoard: false,
    read: async () => ({ text: renderApiReference() }),
  },
  {
    uri: 'jumperless://board/crossbar',
    name: 'board_crossbar',
    title: 'Crossbar',
    description:
      'The twelve crossbar chips (what each carries, lines in use), the lanes between chips (in use, free, by which nets) and every bridge the board keeps but could not route, with why, as JSON.',
    mimeType: 'application/json',
    needsBoard: true,
    changesWithBoard: true,
    read: async (board, options) => ({
      text: renderCrossbarJson(crossbarOf(await board.call('_jlt.crossbar()', options))),
    }),
  },
  {
    uri: 'jumperless://board/picture',
    name: 'board_picture',
    title: 'Picture of the board',
    description:
      'PNG of the breadboard as it is now: rows with LED colours, bridges, rails with voltages, nets, GPIO, the latest readings and the OLED.',
    mimeType: 'image/png',
    needsBoard: true,
    changesWithBoard: true,
    read: async (board, options, notes) => ({
      blob: renderBoardPng({ ...(await readSnapshot(board, options)), ...(notes ? { notes } : {}) }),
    }),
  },
  {
    uri: BOARD_APP_URI,
    name: 'board_app',
    title: 'The board, live',
    description:
      'MCP App: the breadboard with its bridges, nets, supplies, GPIO, the latest readings and the OLED, refreshed after each tool call.',
    mimeType: APP_MIME_TYPE,
    needsBoard: false,
    changesWithBoard: false,
    read: async () => ({ text: viewDocument('app') }),
  },
];

/**
 * The board resources bound to one board (`board` opens it when it is not open yet): a read takes
 * the reader's turn and holds the board for its jobs; one that needs no board never opens it.
 */
export function boardResourcesFor(board: () => Promise<Board>): Resource[] {
  return boardResources.map((resource) => ({
    uri: resource.uri,
    name: resource.name,
    title: resource.title,
    description: resource.description,
    mimeType: resource.mimeType,
    live: resource.changesWithBoard,
    read: async ({ signal, caller, yields }) => {
      const content = resource.needsBoard
        ? await readHeld(await board(), resource, signal, caller, yields === true)
        : await resource.read(NO_BOARD, { signal });
      return 'text' in content
        ? { text: content.text }
        : { blob: Buffer.from(content.blob).toString('base64') };
    },
  }));
}

async function readHeld(
  board: Board,
  resource: BoardResource,
  signal: AbortSignal,
  caller: string,
  yields: boolean,
): Promise<ResourceContent> {
  const held = board.hold({ signal, owner: caller, atomic: true, ...(yields ? { yields } : {}) });
  try {
    return await resource.read(held.board, { signal }, notesOf(board));
  } finally {
    held.release();
  }
}

/** What a resource that needs no board is read with: any use of it is a bug, said at once. */
const NO_BOARD: BoardClient = {
  call: () => Promise.reject(new Error('this resource reads no board')),
  script: () => Promise.reject(new Error('this resource reads no board')),
  exec: () => Promise.reject(new Error('this resource reads no board')),
  firmwareFunctions: () => Promise.reject(new Error('this resource reads no board')),
  id: 'none',
  health: () => Promise.reject(new Error('this resource reads no board')),
  boardLease: () => Promise.reject(new Error('this resource reads no board')),
  seen: new Map(),
};
