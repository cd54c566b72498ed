/**
 * The board's own resources: state (spec §7 JSON), nets with colours and voltages, the node map
 * (spec §6.2, from src/board, no board needed), an API reference built from the catalog, and a
 * picture when a renderer is supplied (the tools layer draws it).
 */
import { ALL_NODES, GPIO_PINS, MAX_BRIDGES, MAX_NETS, OVERLAY_COLS, OVERLAY_ROWS } from '../board/index.js';
import type { BoardClient } from '../tools/boardClient.js';
import type { AnyTool } from '../tools/tool.js';
import { describeTool } from './describe.js';
import type { Resource } from './resources.js';

export interface BoardResourceOptions {
  /** The tools to describe in `board://api`. */
  tools: readonly AnyTool[];
  /** Draws the board as a PNG (base64) from its state; without it there is no `board://picture`. */
  picture?: (board: BoardClient, signal: AbortSignal) => Promise<string>;
}

export const BOARD_URIS = {
  state: 'board://state',
  nets: 'board://nets',
  nodes: 'board://nodes',
  api: 'board://api',
  picture: 'board://picture',
} as const;

export function boardResources(options: BoardResourceOptions): Resource[] {
  const resources: Resource[] = [
    {
      uri: BOARD_URIS.state,
      name: 'state',
      title: 'Board state',
      description:
        'Everything the board holds now: supply setpoints, nets, GPIO and LED overlays (get_state JSON).',
      mimeType: 'application/json',
      live: true,
      read: async ({ board, signal }) => ({ text: JSON.stringify(await readState(board, signal), null, 2) }),
    },
    {
      uri: BOARD_URIS.nets,
      name: 'nets',
      title: 'Nets',
      description: 'Every net: index, name, colour, member nodes and, for rails and DACs, the voltage.',
      mimeType: 'application/json',
      live: true,
      read: async ({ board, signal }) => ({ text: JSON.stringify(await readNets(board, signal), null, 2) }),
    },
    {
      uri: BOARD_URIS.nodes,
      name: 'nodes',
      title: 'Node map',
      description: 'Every node id with the names the firmware accepts, its kind and whether it can be wired.',
      mimeType: 'application/json',
      read: async () => ({ text: NODE_MAP }),
    },
    {
      uri: BOARD_URIS.api,
      name: 'api',
      title: 'API reference',
      description: 'How the board is addressed (rows, rails, Nano pins, GPIO) and what each tool takes.',
      mimeType: 'text/markdown',
      read: async () => ({ text: apiReference(options.tools) }),
    },
  ];
  const { picture } = options;
  if (picture) {
    resources.push({
      uri: BOARD_URIS.picture,
      name: 'picture',
      title: 'Board picture',
      description:
        'A drawing of the board as it is now: rows, bridges, LED colours, rails with their voltages.',
      mimeType: 'image/png',
      live: true,
      read: async ({ board, signal }) => ({ blob: await picture(board, signal) }),
    });
  }
  return resources;
}

async function readState(board: BoardClient, signal: AbortSignal): Promise<unknown> {
  const text = await board.call<string>('jumperless.get_state()', { signal });
  return JSON.parse(text);
}

interface NetInfo {
  number: number;
  name: string;
  color: number;
  color_name: string;
  nodes: string;
}

async function readNets(board: BoardClient, signal: AbortSignal): Promise<unknown> {
  const { state, info } = await board.call<{ state: string; info: (NetInfo | null)[] }>(
    "{'state': jumperless.get_state(), 'info': [jumperless.get_net_info(i) for i in range(1, jumperless.get_num_nets())]}",
    { signal },
  );
  const nets =
    (JSON.parse(state) as { nets?: { index: number; special: string; voltage?: number }[] }).nets ?? [];
  const byIndex = new Map(nets.map((net) => [net.index, net]));
  return info
    .filter((net): net is NetInfo => net !== null)
    .map((net) => {
      const live = byIndex.get(net.number);
      return {
        index: net.number,
        name: net.name,
        color: `#${net.color.toString(16).padStart(6, '0')}`,
        color_name: net.color_name,
        nodes: net.nodes === '' ? [] : net.nodes.split(','),
        ...(live && live.special !== 'none' ? { special: live.special } : {}),
        ...(live?.voltage !== undefined ? { volts: live.voltage } : {}),
      };
    });
}

const NODE_MAP = JSON.stringify(
  ALL_NODES.map((node) => ({
    id: node.id,
    name: node.printName,
    short_name: node.shortName,
    aliases: node.aliases,
    kind: node.kind,
    wirable: node.bridgeable,
  })),
);

function apiReference(tools: readonly AnyTool[]): string {
  const lines = [
    '# Jumperless V5',
    '',
    '## Addressing',
    '- Rows 1-60: 1-30 top half, 31-60 bottom half; each row is a strip of 5 holes.',
    '- Rails and supplies: GND, TOP_RAIL, BOTTOM_RAIL, DAC0, DAC1 (these five nets always exist), 3V3, 5V.',
    '- Arduino Nano header: D0-D13, A0-A7 (also NANO_D13 and so on).',
    `- GPIO ${GPIO_PINS.min}-${GPIO_PINS.max}: GPIO_1..GPIO_8, then UART TX and RX.`,
    '- Measurement: ADC0-ADC4, ADC7 (the probe), ISENSE_PLUS / ISENSE_MINUS (current sense, 2 ohm shunt).',
    '- Names are case-insensitive; board://nodes lists every id and alias.',
    '',
    '## Limits',
    '- Supplies -8..+8 V (the operator may set tighter limits); never short two supplies together.',
    `- At most ${MAX_BRIDGES} bridges and ${MAX_NETS} nets; LED overlays are ${OVERLAY_ROWS} x ${OVERLAY_COLS}.`,
    '',
    '## Tools',
  ];
  for (const tool of tools.filter((t) => !t.hidden)) {
    const schema = describeTool(tool).inputSchema as {
      properties?: Record<string, { description?: string }>;
    };
    const args = Object.entries(schema.properties ?? {})
      .map(([name, prop]) => (prop.description ? `${name} (${prop.description})` : name))
      .join(', ');
    lines.push(`- \`${tool.name}\`${args ? ` ${args}` : ''}: ${tool.description}`);
  }
  return `${lines.join('\n')}\n`;
}
