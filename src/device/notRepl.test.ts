/** A port that is not the board's REPL (its menu port CDC0) says so, and what to do, instead of "retry". */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { failureOf } from '../core/failure.js';
import { SimBoard } from '../sim/index.js';
import { DeviceSession } from './session.js';
import { tcpLink } from './tcpLink.js';

let board: SimBoard;
beforeAll(async () => {
  board = await SimBoard.start();
});
afterAll(async () => board.stop());

it('names the menu port as not the REPL, not retryable, and says which port is', async () => {
  const ports = await board.serveTcp();
  const session = new DeviceSession(tcpLink('127.0.0.1', ports.main), {
    reconnectDelayMs: { initial: 50, max: 100 },
  });
  try {
    const error = await session.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'no_repl', retryable: false });
    const failure = failureOf(error, 'power_get');
    expect(failure).toMatchObject({ code: 'no_repl', retryable: false });
    expect((failure as { message: string }).message).toMatch(
      /does not answer like the board's MicroPython REPL.*CDC2/,
    );
    expect((failure as { message: string }).message).not.toMatch(/retry normally works/);
  } finally {
    await session.close();
  }
}, 20_000);
