import type { DeviceSession, ExecResult, HelperModule } from '../device/session.js';

export interface BoardCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * The board as tools see it: one-line calls that come back as JSON, and the firmware's function
 * list. Built over a DeviceSession; dispatch binds each call's signal and deadline.
 */
export interface BoardClient {
  /** Evaluates one Python expression (build it with `py`) and returns its JSON value. */
  call<T = unknown>(expression: string, options?: BoardCallOptions): Promise<T>;
  /** Runs statements that end with `_jlh.out(value)`; returns that value. */
  script<T = unknown>(code: string, options?: BoardCallOptions): Promise<T>;
  /** Runs code as is (python_exec). */
  exec(code: string, options?: BoardCallOptions): Promise<ExecResult>;
  /** Names the `jumperless` module offers on this board's firmware (learned once per connection). */
  firmwareFunctions(options?: BoardCallOptions): Promise<ReadonlySet<string>>;
  /** Session health (connection, versions, latency, counters). */
  health(): ReturnType<DeviceSession['health']>;
}

/** The tools' own helper namespace on the board, `_jlt`, built from every group's Python. */
export function toolsHelper(groupSources: readonly string[]): HelperModule {
  const body = groupSources
    .flatMap((source) => source.trim().split('\n'))
    .map((line) => (line.trim() === '' ? '' : `    ${line}`))
    .join('\n');
  return { name: '_jlt', source: `class _jlt:\n    V = 1\n${body}\n` };
}

export function createBoardClient(session: DeviceSession, helper?: HelperModule): BoardClient {
  if (helper) session.addHelper(helper);
  let functions: Promise<ReadonlySet<string>> | undefined;
  session.onEvent((event) => {
    if (event.type === 'reset' || event.type === 'state') functions = undefined;
  });
  const jobOptions = (options: BoardCallOptions = {}) => ({
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  return {
    call: (expression, options) => session.call(expression, jobOptions(options)),
    script: (code, options) => session.callScript(code, jobOptions(options)),
    exec: (code, options) => session.exec(code, jobOptions(options)),
    firmwareFunctions(options) {
      // Through the helper, not a `jumperless` global: that one is gone after any soft reset.
      functions ??= session
        .call<string[]>('_jlh.fw()', jobOptions(options))
        .then((names) => new Set(names))
        .catch((error: unknown) => {
          functions = undefined;
          throw error;
        });
      return functions;
    },
    health: () => session.health(),
  };
}

/** The same client with a call's signal and deadline applied to every board job it makes. */
export function boundBoardClient(client: BoardClient, bound: BoardCallOptions): BoardClient {
  const merge = (options: BoardCallOptions = {}): BoardCallOptions => ({ ...bound, ...options });
  return {
    call: (expression, options) => client.call(expression, merge(options)),
    script: (code, options) => client.script(code, merge(options)),
    exec: (code, options) => client.exec(code, merge(options)),
    firmwareFunctions: (options) => client.firmwareFunctions(merge(options)),
    health: () => client.health(),
  };
}
