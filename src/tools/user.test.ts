import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hostileStrings } from '../../test/support/hostileStrings.js';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { ToolError } from '../core/errors.js';
import type { ToolContext } from './tool.js';
import { askUser, buttonWait, clickwheelRead, probeWait } from './user.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
  // The virtual board starts with its display off, as a board configured not to connect it at boot.
  await h.python('oled_connect()');
});
afterAll(async () => h.close());
beforeEach(() => h.board.inputs.probeRelease());

/** Raw encoder counts the virtual board gives one detent (sim/firmware/inputs.ts RAW_PER_CLICK). */
const RAW_PER_CLICK = 8;

/** A progress callback that runs `act` once, when the wait has begun (progress 0). */
function onWaiting(act: () => Promise<void> | void): {
  progress: ToolContext['progress'];
  done: Promise<void>;
} {
  let resolve: () => void = () => {};
  const done = new Promise<void>((r) => {
    resolve = r;
  });
  let fired = false;
  return {
    done,
    progress: () => {
      if (fired) return;
      fired = true;
      void Promise.resolve(act()).then(resolve);
    },
  };
}

const overlayNames = async (): Promise<string[]> =>
  (JSON.parse(`{${await h.python<string>('overlay_serialize()')}}`).overlays as { name: string }[]).map(
    (o) => o.name,
  );

describe('probe_wait', () => {
  it('times out cleanly, with progress, and leaves the session usable', async () => {
    const { result, progress } = await h.run(probeWait, { timeout_seconds: 0.3 });
    expect(result).toMatchObject({ pad: null, pad_name: null, timed_out: true });
    expect(progress[0]).toBe(0);
    expect(await h.python('1 + 1')).toBe(2);
  });

  it('returns the pad a scripted probe touch lands on', async () => {
    const waiting = onWaiting(() => h.board.inputs.probeTouch(12));
    const { result } = await h.run(probeWait, { timeout_seconds: 10 }, { progress: waiting.progress });
    expect(result).toMatchObject({ pad: 12, pad_name: 'PAD_12', timed_out: false });
    h.board.inputs.probeRelease();
    const nano = onWaiting(() => h.board.inputs.probeTouch('D13'));
    const second = await h.run(probeWait, { timeout_seconds: 10 }, { progress: nano.progress });
    expect(second.result).toMatchObject({ pad: 83, pad_name: 'NANO_D13' });
  });

  it('stops at once when the caller cancels', async () => {
    const controller = new AbortController();
    const waiting = onWaiting(() => controller.abort());
    const extra = {
      signal: controller.signal,
      progress: waiting.progress,
    };
    await expect(h.run(probeWait, { timeout_seconds: 60 }, extra)).rejects.toMatchObject({
      code: 'canceled',
    });
    expect(await h.python('1 + 1')).toBe(2);
  });
});

describe('button_wait and clickwheel_read', () => {
  it('returns the button pressed during the wait', async () => {
    const waiting = onWaiting(() => h.board.inputs.button('remove'));
    const { result } = await h.run(buttonWait, { timeout_seconds: 10 }, { progress: waiting.progress });
    expect(result).toMatchObject({ button: 'remove', timed_out: false });
  });

  it('ignores the other button when one is asked for, and presses made before the call', async () => {
    h.board.inputs.button('connect');
    const early = await h.run(buttonWait, { timeout_seconds: 0.3 });
    expect(early.result).toMatchObject({ button: null, timed_out: true });
    const waiting = onWaiting(async () => {
      h.board.inputs.button('remove');
      await new Promise((r) => setTimeout(r, 100));
      h.board.inputs.button('connect');
    });
    const { result } = await h.run(
      buttonWait,
      { timeout_seconds: 10, button: 'connect' },
      { progress: waiting.progress },
    );
    expect(result).toMatchObject({ button: 'connect' });
  });

  it('reads the position in raw counts, consumes the direction, leaves the button state', async () => {
    await h.python('clickwheel_reset_position()');
    // Inputs travel on their own channel: give them a moment to land before reading.
    const settle = () => new Promise((r) => setTimeout(r, 50));
    h.board.inputs.clickwheelTurn(3);
    h.board.inputs.clickwheelButton('pressed');
    await settle();
    const { result } = await h.run(clickwheelRead);
    expect(result).toEqual({ position_counts: 3 * RAW_PER_CLICK, direction: 'up', button: 'pressed' });
    const again = await h.run(clickwheelRead);
    expect(again.result).toEqual({
      position_counts: 3 * RAW_PER_CLICK,
      direction: 'none',
      button: 'pressed',
    });
    h.board.inputs.clickwheelButton('long_held' as never);
    await settle();
    expect((await h.run(clickwheelRead)).result).toMatchObject({ button: 'long_held' });
    // A release shows for about 15 ms from when the board takes the event in, then reads idle.
    h.board.inputs.clickwheelButton('released');
    await settle();
    await h.run(clickwheelRead);
    await settle();
    expect((await h.run(clickwheelRead)).result).toMatchObject({ button: 'idle' });
  });
});

describe('ask_user', () => {
  it('lights the rows, shows the instruction, waits for the connect button, then restores both', async () => {
    await h.python("oled_print('before', size=2)");
    const before = await h.python<number[]>('list(oled_get_framebuffer())');
    const seen: { overlays: string[]; lit: number } = { overlays: [], lit: 0 };
    const progress: number[] = [];
    const waiting = onWaiting(async () => {
      // One job, so it runs before the first poll rather than after it.
      const [overlays, lit] = await h.python<[string, number]>(
        '[overlay_serialize(), sum(oled_get_framebuffer())]',
      );
      seen.overlays = (JSON.parse(`{${overlays}}`).overlays as { name: string }[]).map((o) => o.name);
      seen.lit = lit;
      h.board.inputs.button('connect');
    });
    const { result } = await h.run(
      askUser,
      { instruction: 'Place R1 from row 12 to row 45', rows: [12, 14, 45] },
      {
        progress: (value, total, message) => {
          progress.push(value);
          waiting.progress(value, total, message);
        },
      },
    );
    expect(result).toMatchObject({
      answer: 'confirmed',
      answered_by: 'probe_button',
      oled_shown: true,
      rows_lit: [12, 14, 45],
    });
    expect(progress.length).toBeGreaterThan(0);
    expect(seen.overlays).toEqual(expect.arrayContaining(['ask_top', 'ask_bottom']));
    expect(seen.lit).toBeGreaterThan(0);
    expect(await overlayNames()).toEqual([]);
    expect(await h.python('list(oled_get_framebuffer())')).toEqual(before);
  });

  it('lights exactly the asked columns on the canvas', async () => {
    const waiting = onWaiting(async () => {
      const state = JSON.parse(`{${await h.python<string>('overlay_serialize()')}}`);
      const top = state.overlays.find((o: { name: string }) => o.name === 'ask_top');
      expect(top).toMatchObject({ row: 1, col: 3, width: 3, height: 5 });
      expect(top.colors.slice(0, 3)).toEqual(['3F2A00', '000000', '3F2A00']);
      h.board.inputs.button('remove');
    });
    const { result } = await h.run(
      askUser,
      { instruction: 'Check rows 3 and 5', rows: [5, 3] },
      { progress: waiting.progress },
    );
    expect(result).toMatchObject({ answer: 'declined', answered_by: 'probe_button' });
  });

  it('without a display it still lights the rows and says the OLED was not shown', async () => {
    await h.python('oled_disconnect()');
    try {
      const confirm = async () => {
        await new Promise((r) => setTimeout(r, 1));
        return 'accept' as const;
      };
      const { result } = await h.run(askUser, { instruction: 'No screen', rows: [2] }, { confirm });
      expect(result).toMatchObject({ answer: 'confirmed', oled_shown: false, rows_lit: [2] });
    } finally {
      await h.python('oled_connect()');
    }
  });

  it('times out with a clear answer and cleans up', async () => {
    const { result } = await h.run(askUser, {
      instruction: 'Nobody is here',
      rows: [1],
      timeout_seconds: 0.3,
    });
    expect(result).toMatchObject({ answer: 'timeout', answered_by: null });
    expect(await overlayNames()).toEqual([]);
  });

  it('takes the answer from the client when it supports elicitation, and stops waiting on the board', async () => {
    const asked: string[] = [];
    const confirm = async (message: string) => {
      asked.push(message);
      await new Promise((r) => setTimeout(r, 50));
      return 'accept' as const;
    };
    const { result } = await h.run(askUser, { instruction: 'Ready?', rows: [30] }, { confirm });
    expect(result).toMatchObject({ answer: 'confirmed', answered_by: 'client' });
    expect(asked).toEqual(['Ready?']);
    expect(await overlayNames()).toEqual([]);
    expect(await h.python('1 + 1')).toBe(2);

    const decline = async () => {
      await new Promise((r) => setTimeout(r, 1));
      return 'decline' as const;
    };
    const declined = await h.run(askUser, { instruction: 'Sure?' }, { confirm: decline });
    expect(declined.result).toMatchObject({ answer: 'declined', answered_by: 'client' });
  });

  it('keeps waiting for the button when the client dismisses the question', async () => {
    const waiting = onWaiting(() => h.board.inputs.button('connect'));
    const { result } = await h.run(
      askUser,
      { instruction: 'Go', timeout_seconds: 10 },
      { confirm: async () => 'cancel' as const, progress: waiting.progress },
    );
    expect(result).toMatchObject({ answer: 'confirmed', answered_by: 'probe_button' });
  });

  it('cleans up after a cancelled call', async () => {
    const controller = new AbortController();
    const waiting = onWaiting(() => controller.abort());
    const extra = {
      signal: controller.signal,
      progress: waiting.progress,
    };
    await expect(h.run(askUser, { instruction: 'Cancel me', rows: [40] }, extra)).rejects.toMatchObject({
      code: 'canceled',
    });
    expect(await overlayNames()).toEqual([]);
  });

  it('shows every hostile instruction literally or refuses it by validation', async () => {
    await h.python("fs_write('/canary.txt', 'alive')");
    let answered = 0;
    for (const instruction of hostileStrings()) {
      // The person presses connect once the instruction is up: the board's own answer, so no poll
      // is cut short (an interrupted poll costs about 0.5 s on the virtual board, see README).
      const waiting = onWaiting(() => h.board.inputs.button('connect'));
      const outcome = await h
        .run(askUser, { instruction, timeout_seconds: 5 }, { progress: waiting.progress })
        .then(
          (r) => r.result,
          (e: unknown) => e,
        );
      if (outcome instanceof ToolError) {
        expect(outcome.code, outcome.message).toBe('bad_text');
      } else if (outcome instanceof Error) {
        expect(instruction.length === 0 || instruction.length > 200, outcome.message).toBe(true);
      } else {
        expect(outcome).toMatchObject({ answer: 'confirmed', answered_by: 'probe_button', oled_shown: true });
        answered++;
      }
      h.board.inputs.probeRelease();
    }
    expect(answered).toBeGreaterThan(150);
    expect(await h.python("fs_read('/canary.txt')")).toBe('alive');
    expect(await overlayNames()).toEqual([]);
  });

  it('refuses every hostile string as a button name by validation', () => {
    for (const s of hostileStrings()) expect(buttonWait.input.safeParse({ button: s }).success).toBe(false);
  });
});
