/**
 * Test helper: the same board with every call and script passed through a hook, inside a call's
 * hold too (a tool's jobs run through the lease its call holds). It shares the board's hints and
 * firmware list; the firmware list's own query is not shown to the hooks, as a tool never sends it.
 */
import { Board, type BoardCallOptions, FIRMWARE_FUNCTIONS, type JobTarget } from '../../src/device/board.js';
import type { ExecResult } from '../../src/device/session.js';

/** What a hook may run its job on: the board itself, or the lease of the call that holds it. */
export interface InnerBoard {
  call<T = unknown>(expression: string, options?: BoardCallOptions): Promise<T>;
  script<T = unknown>(code: string, options?: BoardCallOptions): Promise<T>;
  exec(code: string, options?: BoardCallOptions): Promise<ExecResult>;
}

export interface BoardHooks {
  call?(expression: string, options: BoardCallOptions | undefined, inner: InnerBoard): Promise<unknown>;
  script?(code: string, options: BoardCallOptions | undefined, inner: InnerBoard): Promise<unknown>;
}

export function interceptBoard(board: Board, hooks: BoardHooks): Board {
  const through =
    (run: JobTarget['run']): JobTarget['run'] =>
    (kind, code, options) => {
      const inner: InnerBoard = {
        call: (expression, o) => run('call', expression, o ?? {}) as never,
        script: (text, o) => run('script', text, o ?? {}) as never,
        exec: (text, o) => run('exec', text, o ?? {}) as Promise<ExecResult>,
      };
      if (kind === 'call' && hooks.call && code !== FIRMWARE_FUNCTIONS)
        return hooks.call(code, options, inner);
      if (kind === 'script' && hooks.script) return hooks.script(code, options, inner);
      return run(kind, code, options);
    };
  const { jobs } = board;
  return new Board(
    {
      id: jobs.id,
      run: through((kind, code, options) => jobs.run(kind, code, options)),
      lease: async (owner, signal) => {
        const lease = await jobs.lease(owner, signal);
        return {
          run: through((kind, code, options) => lease.run(kind, code, options)),
          get released() {
            return lease.released;
          },
          release: () => lease.release(),
        };
      },
      health: () => jobs.health(),
      onStale: (listener) => jobs.onStale(listener),
      boardLease: (request) => jobs.boardLease(request),
    },
    { sameAs: board },
  );
}
