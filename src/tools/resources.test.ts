import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { displayColor, holeCenter, tagOf } from './boardPicture.js';
import { createCanvas } from './canvas.js';
import {
  boardResources,
  renderApiReference,
  renderBoardPng,
  renderNetsJson,
  renderNodeMapJson,
  renderStateJson,
} from './resources.js';
import { type BoardSnapshot, readSnapshot } from './snapshot.js';
import { boardPicture, pictureSummary } from './state.js';

/** Width, height and a pixel reader for an 8-bit RGB PNG with filter 0 rows (what we write). */
function decodeRgb(png: Uint8Array): { width: number; height: number; at(x: number, y: number): number } {
  const buf = Buffer.from(png);
  const width = buf.readUInt32BE(16);
  const height = buf.readUInt32BE(20);
  expect([buf[24], buf[25]]).toEqual([8, 2]);
  const idat: Buffer[] = [];
  for (let at = 8; at < buf.length; ) {
    const length = buf.readUInt32BE(at);
    if (buf.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(buf.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * 3 + 1;
  expect(raw.length).toBe(stride * height);
  return {
    width,
    height,
    at: (x, y) => {
      const i = y * stride + 1 + x * 3;
      return ((raw[i] ?? 0) << 16) | ((raw[i + 1] ?? 0) << 8) | (raw[i + 2] ?? 0);
    },
  };
}

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
afterAll(async () => h.close());
beforeEach(async () => {
  await h.session.exec('nodes_clear()\noverlay_clear_all()\ndac_set(TOP_RAIL, 0.0)');
});

const resource = (name: string) => {
  const found = boardResources.find((r) => r.name === name);
  if (!found) throw new Error(`no resource ${name}`);
  return found;
};

describe('resources', () => {
  it('every resource has a unique jumperless:// URI (the MCP App a ui:// one), a MIME type and reads on the sim', async () => {
    expect(new Set(boardResources.map((r) => r.uri)).size).toBe(boardResources.length);
    for (const r of boardResources) {
      if (r.mimeType === 'text/html;profile=mcp-app') expect(r.uri).toBe('ui://jumperless/board');
      else expect(r.uri).toMatch(/^jumperless:\/\/[a-z]+\/[a-z]+$/);
      const content = await r.read(h.client);
      if (r.mimeType === 'image/png') expect('blob' in content).toBe(true);
      else expect(typeof (content as { text: string }).text).toBe('string');
    }
  });

  it('state JSON carries power, nets and bridges with routed flags', async () => {
    await h.session.exec('dac_set(TOP_RAIL, 5.0)\nconnect(TOP_RAIL, 3)\nconnect(5, GND)\nconnect(3, 5)');
    const doc = JSON.parse(((await resource('board_state').read(h.client)) as { text: string }).text);
    expect(doc.power.top_rail).toBe(5);
    expect(doc.nets[1]).toMatchObject({ name: 'Top Rail', nodes: ['TOP_R', '3'] });
    expect(doc.bridges).toContainEqual(
      expect.objectContaining({ node1: 3, node2: 5, routed: false, net: null }),
    );
    expect(doc.overlays).toEqual([]);
  });

  it('nets JSON has colours and voltages; the node map and API reference need no board', async () => {
    await h.session.exec('dac_set(TOP_RAIL, 3.3)\nconnect(TOP_RAIL, 3)');
    const nets = JSON.parse(renderNetsJson(await readSnapshot(h.client))).nets;
    expect(nets.find((n: { index: number }) => n.index === 2)).toMatchObject({
      index: 2,
      color: expect.stringMatching(/^#[0-9a-f]{6}$/),
      volts: 3.3,
    });
    const map = renderNodeMapJson();
    // It goes into a model's context: every node in under 10 KB.
    expect(Buffer.byteLength(map)).toBeLessThan(10_000);
    const { rows, nodes } = JSON.parse(map) as {
      rows: { ids: string; routable: boolean };
      nodes: Array<{ id: number; name: string; aliases?: string[]; routable?: false }>;
    };
    expect(rows).toMatchObject({ ids: '1-60', routable: true });
    expect(nodes.filter((n) => n.id >= 1 && n.id <= 60)).toHaveLength(0);
    expect(nodes.find((n) => n.id === 101)).toMatchObject({ name: 'TOP_RAIL' });
    expect(nodes.find((n) => n.id === 101)).not.toHaveProperty('routable');
    expect(nodes.find((n) => n.id === 69)).toMatchObject({ routable: false });
    expect(nodes.find((n) => n.name === 'NANO_D13')?.aliases).toContain('D13');
    expect(renderApiReference()).toContain('overlay_set(name, x_col, y_row, height, width, colors)');
    expect(resource('node_map').needsBoard).toBe(false);
  });
});

describe('board picture', () => {
  it('shows net colours on the rows, overlays over them, in a PNG under 200 KB', async () => {
    await h.session.exec(
      "dac_set(TOP_RAIL, 5.0)\nconnect(TOP_RAIL, 3)\nconnect(3, 40)\nconnect(10, 11)\noverlay_set('x', 20, 7, 1, 1, [0x200000])",
    );
    const snapshot = await readSnapshot(h.client);
    const png = renderBoardPng(snapshot);
    expect(png.length).toBeLessThan(200 * 1024);
    const image = decodeRgb(png);
    expect(image.width).toBe(820);
    const rail = Number.parseInt(snapshot.nets.find((n) => n.index === 2)?.color.slice(1) ?? '', 16);
    const user = Number.parseInt(snapshot.nets.find((n) => n.nodes.includes('10'))?.color.slice(1) ?? '', 16);
    const pixel = (row: number, hole: number) => {
      const p = holeCenter(row, hole);
      return image.at(p.x, p.y);
    };
    for (let hole = 0; hole < 5; hole++) {
      expect(pixel(3, hole)).toBe(displayColor(rail));
      expect(pixel(40, hole)).toBe(displayColor(rail));
      expect(pixel(11, hole)).toBe(displayColor(user));
    }
    // Overlay canvas row 7 is the bottom half's second hole; column 20 is row 50.
    expect(pixel(50, 1)).toBe(0xff0000);
    expect(pixel(50, 0)).not.toBe(0xff0000);
    expect(pixel(1, 0)).not.toBe(displayColor(rail));
  });

  it('is a tool too (board_picture), for clients that only call tools: the same PNG as the resource', async () => {
    await h.session.exec('dac_set(TOP_RAIL, 5.0)\nconnect(TOP_RAIL, 3)');
    const { result, images } = await h.run(boardPicture);
    expect(images).toHaveLength(1);
    expect(images[0]?.mimeType).toBe('image/png');
    const png = Buffer.from(images[0]?.data ?? '', 'base64');
    expect(result).toEqual({
      // No bare PNG size a model must interpret: it is told where the picture is, and that the
      // user's parts are not in it.
      picture:
        "attached to this result as a PNG image of the board's own state (bridges, LEDs, supplies), not of parts plugged into it; summary says the same in words",
      summary: expect.stringMatching(
        /^Top rail 5 V, bottom rail [-\d.]+ V, DAC0 [-\d.]+ V, DAC1 [-\d.]+ V\. Bridges: .*\bTOP_RAIL-3\.$/,
      ),
    });
    expect(Buffer.from(renderBoardPng(await readSnapshot(h.client))).equals(png)).toBe(true);
  });

  it("board_picture's summary names unrouted bridges and counts past the twentieth", async () => {
    const lines = ['connect(5, TOP_RAIL)', 'connect(6, GND)', 'connect(5, 6)'];
    for (let r = 11; r < 55; r += 2) lines.push(`connect(${r}, ${r + 1})`);
    await h.session.exec(lines.join('\n'));
    const summary = pictureSummary(await readSnapshot(h.client));
    expect(summary).toContain('5-6 (not in a net)');
    expect(summary).toMatch(/ and 5 more\.$/);
    expect(summary.length).toBeLessThan(400);
  });

  it('stays under 200 KB with a crowded board (every row wired, long names, all overlays)', async () => {
    const lines = ['dac_set(TOP_RAIL, 5.0)', 'dac_set(BOTTOM_RAIL, -5.0)'];
    for (let r = 1; r < 60; r += 2) lines.push(`connect(${r}, ${r + 1})`);
    for (let r = 1; r < 50; r += 8) lines.push(`connect(${r}, ${r + 10})`);
    lines.push('for i in range(6, get_num_nets()): set_net_name(i, "A very long net name " + str(i))');
    for (let i = 0; i < 8; i++)
      lines.push(`overlay_set('o${i}', ${i * 3 + 1}, ${i + 1}, 3, 3, [${i * 0x111111 + 1}] * 9)`);
    await h.session.exec(lines.join('\n'));
    const png = renderBoardPng(await readSnapshot(h.client));
    expect(png.length).toBeLessThan(200 * 1024);
    expect(decodeRgb(png).height).toBeGreaterThan(600);
  });

  it('draws from any snapshot, also one with odd names and an empty board', () => {
    const snapshot: BoardSnapshot = {
      state: {
        power: { top_rail: 0, bottom_rail: 0, dac0: 3.33, dac1: 0 },
        nets: [],
        gpio: [],
        overlays: [],
      },
      bridges: [],
      nets: [
        {
          index: 6,
          name: 'ünï\u0003"code',
          color: '#123456',
          color_name: 'x',
          nodes: ['1', '2'],
          node_ids: [1, 2],
          special: 'none',
        },
      ],
    };
    expect(decodeRgb(renderBoardPng(snapshot)).width).toBe(820);
  });

  it('tags name the node a row is bridged to in three characters', () => {
    expect([101, 102, 100, 110, 107, 131, 83, 116, 139, 108].map(tagOf)).toEqual([
      'T+',
      'B+',
      'GND',
      'AD0',
      'DA1',
      'GP1',
      'D13',
      'TX',
      'BFI',
      'I+',
    ]);
  });
});

describe('canvas', () => {
  it('draws text and shapes inside the image and ignores what falls outside', () => {
    const c = createCanvas(20, 10, 0xffffff);
    c.rect(-5, -5, 8, 8, 0x000000);
    c.line(0, 9, 100, 9, 0xff0000);
    c.text(10, 1, 'A?', 0x00ff00, 1);
    const image = decodeRgb(c.png());
    expect(image.at(0, 0)).toBe(0);
    expect(image.at(3, 3)).toBe(0xffffff);
    expect(image.at(19, 9)).toBe(0xff0000);
    // 'A' starts with its top middle pixel lit.
    expect(image.at(11, 1)).toBe(0x00ff00);
    expect(image.at(10, 1)).toBe(0xffffff);
  });
});

it('renderStateJson is valid JSON from a snapshot', async () => {
  const doc = JSON.parse(renderStateJson(await readSnapshot(h.client)));
  expect(Object.keys(doc)).toEqual(['power', 'nets', 'gpio', 'overlays', 'bridges']);
});
