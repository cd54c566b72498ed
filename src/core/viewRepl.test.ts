/**
 * The board view on a board without a telemetry port (issue 25 item 3): a look reads the board
 * once, through the state resource's source in a turn that yields, and draws the state document
 * and the picture from that one snapshot, as the state resource and `board_picture` draw them.
 * The virtual board over its REPL, the real dispatcher and resources; no telemetry port.
 */
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interceptBoard } from '../../test/support/interceptBoard.js';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { boardResourcesFor } from '../tools/resources.js';
import { CAPABILITIES } from './capabilities.js';
import { createDispatcher } from './dispatcher.js';
import { readResource, readResourceSource } from './offers.js';
import { ToolSubsystem } from './toolSubsystem.js';
import { type BoardLook, createBoardView } from './view.js';

/** A PNG's pixel rows, inflated: two PNGs of one drawing at different zlib levels have the same. */
function pixels(base64: string): Buffer {
  const png = Buffer.from(base64, 'base64');
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  return inflateSync(Buffer.concat(idat));
}

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
  await h.session.exec('nodes_clear()\nconnect(1, 5)\ndac_set(TOP_RAIL, 3.3)');
});
afterAll(async () => h?.close());

describe('the board view through the REPL', () => {
  it('reads the board once a look and shows the state resource and board_picture of that snapshot', async () => {
    const jobs: string[] = [];
    const counted = interceptBoard(h.client, {
      call: (code, options, inner) => {
        jobs.push(code);
        return inner.call(code, options);
      },
      script: (code, options, inner) => {
        jobs.push(code);
        return inner.script(code, options);
      },
    });
    const dispatcher = createDispatcher({
      root: new ToolSubsystem({
        name: 'local',
        tools: [],
        board: counted,
        resources: (board) => boardResourcesFor(board),
      }),
    });
    const view = createBoardView(dispatcher);
    const looks: BoardLook[] = [];
    view.watch({ look: (look) => looks.push(look), call: () => {} });
    try {
      await expect.poll(() => looks.length, { timeout: 20_000 }).toBe(1);
      expect(jobs).toEqual(['_jlt.snapshot()']);
      const [look] = looks as [BoardLook];
      expect(look.error).toBeUndefined();
      expect(look.source).toBe('repl');

      const read = async (uri: string) =>
        (
          await readResource(
            dispatcher,
            { id: 'test', granted: new Set(CAPABILITIES) },
            uri,
            AbortSignal.timeout(10_000),
          )
        )[0];
      const state = await read('jumperless://board/state');
      expect(look.state).toEqual(JSON.parse(state && 'text' in state ? state.text : 'null'));
      expect(look.state).toMatchObject({ bridges: [{ node1: 1, node2: 5, routed: true }] });
      const picture = await read('jumperless://board/picture');
      expect(look.picture).toBeDefined();
      expect(
        pixels(look.picture as string).equals(pixels(picture && 'blob' in picture ? picture.blob : '')),
      ).toBe(true);

      // Another look (a page asking again) is one more read, no more.
      const before = jobs.length;
      await view.refresh();
      expect(looks).toHaveLength(2);
      expect(jobs.slice(before)).toEqual(['_jlt.snapshot()']);
    } finally {
      view.close();
      dispatcher.close();
    }
  }, 30_000);

  it('gives a source only to a caller who may read, and only of a resource that has one', async () => {
    const dispatcher = createDispatcher({
      root: new ToolSubsystem({ name: 'local', tools: [], board: h.client, resources: boardResourcesFor }),
    });
    const signal = AbortSignal.timeout(10_000);
    const reader = { id: 'test', granted: new Set(CAPABILITIES) };
    await expect(
      readResourceSource(
        dispatcher,
        { id: 'nobody', granted: new Set() },
        'jumperless://board/state',
        signal,
      ),
    ).rejects.toMatchObject({ data: { missing: ['jumperless.read'] } });
    await expect(
      readResourceSource(dispatcher, reader, 'jumperless://board/picture', signal),
    ).rejects.toMatchObject({ code: -32602, data: { uri: 'jumperless://board/picture' } });
    const reading = await readResourceSource(dispatcher, reader, 'jumperless://board/state', signal);
    // Plain data: it crosses to the renderer thread as it is.
    expect(structuredClone(reading)).toEqual(reading);
    dispatcher.close();
  });
});
