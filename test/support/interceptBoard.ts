/**
 * Test helper: a BoardClient that passes every call and script through a hook, inside a call's
 * lease too (a tool's jobs run through the lease its call holds, not through the client itself).
 */
import type { BoardCallOptions, BoardClient, BoardLease } from '../../src/tools/boardClient.js';

type Runner = Omit<BoardClient, 'lease'>;

export interface BoardHooks {
  call?(expression: string, options: BoardCallOptions | undefined, inner: Runner): Promise<unknown>;
  script?(code: string, options: BoardCallOptions | undefined, inner: Runner): Promise<unknown>;
}

export function interceptBoard(board: BoardClient, hooks: BoardHooks): BoardClient {
  const through = (inner: Runner): Pick<BoardClient, 'call' | 'script'> => ({
    call: <T>(expression: string, options?: BoardCallOptions) =>
      (hooks.call ? hooks.call(expression, options, inner) : inner.call(expression, options)) as Promise<T>,
    script: <T>(code: string, options?: BoardCallOptions) =>
      (hooks.script ? hooks.script(code, options, inner) : inner.script(code, options)) as Promise<T>,
  });
  return {
    ...through(board),
    exec: (code, options) => board.exec(code, options),
    firmwareFunctions: (options) => board.firmwareFunctions(options),
    id: board.id,
    health: () => board.health(),
    get seen() {
      return board.seen;
    },
    lease: async (options): Promise<BoardLease> => {
      const lease = await board.lease(options);
      return {
        ...through(lease),
        exec: (code, o) => lease.exec(code, o),
        firmwareFunctions: (o) => lease.firmwareFunctions(o),
        id: lease.id,
        health: () => lease.health(),
        get seen() {
          return lease.seen;
        },
        get released() {
          return lease.released;
        },
        release: () => lease.release(),
      };
    },
  };
}
