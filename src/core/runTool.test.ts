import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Board, type JobTarget } from '../device/board.js';
import { DeviceError } from '../device/errors.js';
import { type DeviceToolSpec, defineDeviceTool } from '../tools/tool.js';
import type { AuditEvent } from './audit.js';
import { CAPABILITIES } from './capabilities.js';
import { CONFIRM_TIMEOUT_MS } from './confirmation.js';
import { createDispatcher } from './dispatcher.js';
import { RpcError, ToolError } from './errors.js';
import { type Caller, runTool } from './runTool.js';
import { type AnyTool, defineTool, type HandlerContext } from './toolDefinition.js';
import { ToolSubsystem } from './toolSubsystem.js';

const everyone: Caller = { id: 'test', granted: new Set(CAPABILITIES) };

const base = (name: string) => ({
  title: name,
  description: 'test tool',
  group: 'test',
  kind: 'read' as const,
  capability: 'jumperless.read' as const,
  input: z.object({}),
  output: z.object({}).catchall(z.unknown()),
});
// biome-ignore lint/suspicious/noExplicitAny: test tools of every shape.
type AnySpec = DeviceToolSpec<any, any>;
// biome-ignore lint/suspicious/noExplicitAny: test tools of every shape.
type Handler = (args: any, context: HandlerContext) => Promise<any>;
/** A tool that needs no board. */
const tool = (overrides: Partial<Omit<AnySpec, 'handle'>> & { name: string; handle: Handler }): AnyTool =>
  defineTool({ ...base(overrides.name), ...overrides });
/** A tool that acts on the board (held for it, firmware checked). */
const deviceTool = (overrides: Partial<AnySpec> & Pick<AnySpec, 'name' | 'handle'>): AnyTool =>
  defineDeviceTool({ ...base(overrides.name), ...overrides });

const echo = tool({
  name: 'echo',
  input: z.object({ text: z.string().max(5) }),
  output: z.object({ text: z.string() }),
  handle: async ({ text }) => ({ text }),
});

/** A board whose firmware offers `functions` and whose every call answers 1 (no session behind it). */
function board(functions: string[] = []): Board {
  const run: JobTarget['run'] = async (_kind, code) => (code === '_jlh.fw()' ? functions : 1);
  const jobs: JobTarget = {
    id: 'fake',
    run,
    lease: async () => ({ run, released: false, release: () => {} }),
    health: async () => {
      throw new Error('unused');
    },
    onStale: () => () => {},
    boardLease: async () => ({}),
  };
  return new Board(jobs);
}

async function rpcError(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

describe('registry', () => {
  it('refuses two tools with one name', () => {
    expect(() =>
      createDispatcher({
        root: new ToolSubsystem({ name: 'local', tools: [echo, { ...echo, group: 'other' }] }),
      }),
    ).toThrow(/two tools are named "echo"/);
  });
  it('leaves hidden tools out of the list but finds them by name', () => {
    const hidden = tool({ name: 'secret', hidden: true, handle: async () => ({}) });
    const { registry } = createDispatcher({
      root: new ToolSubsystem({ name: 'local', tools: [echo, hidden] }),
    });
    expect(registry.listed().map((t) => t.definition.name)).toEqual(['echo']);
    expect(registry.get('secret')?.hidden).toBe(true);
  });
});

describe('runTool', () => {
  it('renders data as structuredContent plus its exact JSON text', async () => {
    const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [echo] }) });
    const result = await runTool(dispatcher, { name: 'echo', arguments: { text: 'hi' }, caller: everyone });
    expect(result).toEqual({
      content: [{ type: 'text', text: '{"text":"hi"}' }],
      structuredContent: { text: 'hi' },
    });
  });

  it('answers an unknown tool with -32602', async () => {
    const error = await rpcError(
      runTool(createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [echo] }) }), {
        name: 'nope',
        caller: everyone,
      }),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toBe('Unknown tool: nope');
  });

  it('hands a tool 0 for every -0 in its arguments (Python would read -0 as the float -0.0)', async () => {
    const seen: unknown[] = [];
    const ints = tool({
      name: 'ints',
      input: z.object({ n: z.number().int(), list: z.array(z.number().int()) }),
      handle: async (args) => {
        seen.push(args.n, ...args.list);
        return {};
      },
    });
    await runTool(createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [ints] }) }), {
      name: 'ints',
      arguments: JSON.parse('{"n": -0, "list": [-0, 1]}'),
      caller: everyone,
    });
    expect(seen.map((v) => Object.is(v, -0))).toEqual([false, false, false]);
    expect(seen).toEqual([0, 0, 1]);
  });

  it('answers invalid arguments with -32602 and the validation details', async () => {
    const error = await rpcError(
      runTool(createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [echo] }) }), {
        name: 'echo',
        arguments: { text: 'too long' },
        caller: everyone,
      }),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/Invalid arguments for tool echo:[\s\S]*text/);
    expect(error.data?.issues).toEqual([{ path: ['text'], message: expect.stringMatching(/5/) }]);
  });

  it('refuses a caller without the capability with 1001 and what is missing', async () => {
    const power = tool({ name: 'power', capability: 'jumperless.power', handle: async () => ({}) });
    const caller: Caller = { id: 'anon', granted: new Set(['jumperless.read', 'jumperless.wire'] as const) };
    const error = await rpcError(
      runTool(createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [power] }) }), {
        name: 'power',
        caller,
      }),
    );
    expect(error.code).toBe(-32603);
    expect(error.data).toEqual({
      code: 1001,
      retryable: false,
      required: ['jumperless.power'],
      granted: ['jumperless.read', 'jumperless.wire'],
      missing: ['jumperless.power'],
    });
  });

  it('refuses a call past maxConcurrent with retryable 1002, and frees the slot afterwards', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = tool({
      name: 'slow',
      maxConcurrent: 1,
      handle: async () => {
        await gate;
        return {};
      },
    });
    const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [slow] }) });
    const first = runTool(dispatcher, { name: 'slow', caller: everyone });
    const error = await rpcError(runTool(dispatcher, { name: 'slow', caller: everyone }));
    expect(error.data).toMatchObject({ code: 1002, retryable: true, limit: 1 });
    release();
    await first;
    await expect(runTool(dispatcher, { name: 'slow', caller: everyone })).resolves.toMatchObject({
      structuredContent: {},
    });
  });

  it('stops a tool at its deadline with a retryable timeout, even if it ignores the signal', async () => {
    let seen: AbortSignal | undefined;
    const stuck = tool({
      name: 'stuck',
      timeoutMs: 30,
      handle: async (_args, { signal }) => {
        seen = signal;
        return new Promise(() => {});
      },
    });
    const result = await runTool(
      createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [stuck] }) }),
      { name: 'stuck', caller: everyone },
    );
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({
      code: 'timeout',
      retryable: true,
      timeout_ms: 30,
    });
    expect(seen?.aborted).toBe(true);
  });

  it('says a call that never got its turn at the board ran nothing, not that the board was interrupted', async () => {
    // Another caller holds the board: this call's lease waits until its deadline stops it.
    const jobs = board().jobs;
    const held = new Board({
      ...jobs,
      lease: (_owner, signal) =>
        new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () =>
            reject(new DeviceError('canceled', 'the board lease for test was canceled while it waited')),
          ),
        ),
    });
    let ran = false;
    const waiting = deviceTool({
      name: 'waiting',
      timeoutMs: 50,
      handle: async (_args, { board: b }) => {
        await b.call('1');
        ran = true;
        return {};
      },
    });
    const result = await runTool(
      createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [waiting], board: held }) }),
      {
        name: 'waiting',
        caller: everyone,
      },
    );
    const failure = JSON.parse((result.content[0] as { text: string }).text);
    expect(failure).toMatchObject({ code: 'timeout', retryable: true, timeout_ms: 50 });
    expect(failure.message).toMatch(
      /did not get its turn at the board within 50 ms.*nothing of this call ran/,
    );
    expect(failure.message).not.toMatch(/ready again|interrupted/);
    expect(ran).toBe(false);
  });

  it('hears a tool that answers for itself when stopped, by the caller or by its deadline', async () => {
    const partial = (timeoutMs?: number) =>
      tool({
        name: 'partial',
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        handle: (_args, { signal }) =>
          new Promise((_resolve, reject) =>
            signal.addEventListener('abort', () =>
              setTimeout(
                () =>
                  reject(new ToolError('canceled', 'Stopped after 2 of 5.', { details: { done: [1, 2] } })),
                20,
              ),
            ),
          ),
      });
    const controller = new AbortController();
    const call = runTool(
      createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [partial()] }) }),
      {
        name: 'partial',
        caller: everyone,
        signal: controller.signal,
      },
    );
    controller.abort();
    expect(JSON.parse(((await call).content[0] as { text: string }).text)).toEqual({
      code: 'canceled',
      message: 'Stopped after 2 of 5.',
      retryable: false,
      done: [1, 2],
    });
    const late = await runTool(
      createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [partial(30)] }) }),
      {
        name: 'partial',
        caller: everyone,
      },
    );
    expect(JSON.parse((late.content[0] as { text: string }).text)).toEqual({
      code: 'timeout',
      message: 'Stopped after 2 of 5.',
      retryable: true,
      done: [1, 2],
      timeout_ms: 30,
    });
  });

  it("passes the caller's cancellation to the handler", async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const waits = tool({
      name: 'waits',
      handle: (_args, { signal }) => {
        seen = signal;
        return new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new Error('stopped'))),
        );
      },
    });
    const call = runTool(createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [waits] }) }), {
      name: 'waits',
      caller: everyone,
      signal: controller.signal,
    });
    controller.abort();
    const result = await call;
    expect(seen?.aborted).toBe(true);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ code: 'canceled' });
  });

  it('names missing firmware functions instead of running the tool', async () => {
    let ran = false;
    const needs = deviceTool({
      name: 'needs',
      requires: ['dac_set', 'wavegen_start'],
      handle: async () => {
        ran = true;
        return {};
      },
    });
    const result = await runTool(
      createDispatcher({
        root: new ToolSubsystem({ name: 'local', tools: [needs], board: board(['dac_set']) }),
      }),
      {
        name: 'needs',
        caller: everyone,
      },
    );
    expect(ran).toBe(false);
    expect(result.isError).toBe(true);
    const failure = JSON.parse((result.content[0] as { text: string }).text);
    expect(failure).toMatchObject({
      code: 'unsupported_firmware',
      retryable: false,
      missing: ['wavegen_start'],
    });
    expect(failure.message).toMatch(/wavegen_start/);
  });

  it('asks the firmware only for what this call needs when a tool says so per call', async () => {
    const runs: boolean[] = [];
    const branches = deviceTool({
      name: 'branches',
      input: z.object({ level: z.boolean() }),
      requires: ['gpio_set_pull', 'gpio_set'],
      requiresFor: ({ level }: { level: boolean }) =>
        level ? ['gpio_set_pull', 'gpio_set'] : ['gpio_set_pull'],
      handle: async ({ level }: { level: boolean }) => {
        runs.push(level);
        return {};
      },
    });
    const dispatcher = createDispatcher({
      root: new ToolSubsystem({ name: 'local', tools: [branches], board: board(['gpio_set_pull']) }),
    });
    const pullOnly = await runTool(dispatcher, {
      name: 'branches',
      arguments: { level: false },
      caller: everyone,
    });
    expect(pullOnly.isError).toBeFalsy();
    const withLevel = await runTool(dispatcher, {
      name: 'branches',
      arguments: { level: true },
      caller: everyone,
    });
    expect(JSON.parse((withLevel.content[0] as { text: string }).text)).toMatchObject({
      code: 'unsupported_firmware',
      missing: ['gpio_set'],
    });
    expect(runs).toEqual([false]);
  });

  it('maps a ToolError to an isError result with code, message, retryable and details', async () => {
    const fails = tool({
      name: 'fails',
      handle: async () => {
        throw new ToolError('refused', 'That pair is forbidden.', {
          retryable: false,
          details: { pair: [100, 101] },
        });
      },
    });
    const result = await runTool(
      createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [fails] }) }),
      { name: 'fails', caller: everyone },
    );
    expect(result).toEqual({
      content: [
        {
          type: 'text',
          text: JSON.stringify({
            code: 'refused',
            message: 'That pair is forbidden.',
            retryable: false,
            pair: [100, 101],
          }),
        },
      ],
      isError: true,
    });
  });

  it.each([
    ['disconnected', true, /reconnects/],
    ['busy', true, /close it/],
    ['not_found', true, /--sim/],
    ['timeout', true, /retry/],
    ['python_error', false, /arguments/],
    ['protocol', true, /resynced/],
  ] as const)('maps the device error %s to an actionable tool error', async (code, retryable, hint) => {
    const device = tool({
      name: 'device',
      handle: async () => {
        throw new DeviceError(code, 'something happened', { port: '/dev/ttyACM0' });
      },
    });
    const result = await runTool(
      createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [device] }) }),
      { name: 'device', caller: everyone },
    );
    const failure = JSON.parse((result.content[0] as { text: string }).text);
    expect(failure).toMatchObject({ code, retryable, port: '/dev/ttyACM0' });
    expect(failure.message).toMatch(/^Something happened\. /);
    expect(failure.message).toMatch(hint);
  });

  it('turns anything else into an internal error (-32603, 1999), including a result that breaks its schema', async () => {
    const buggy = tool({
      name: 'buggy',
      handle: async () => {
        throw new TypeError('x is undefined');
      },
    });
    const liar = tool({
      name: 'liar',
      output: z.object({ volts: z.number() }),
      handle: async () => ({ volts: 'high' }),
    });
    const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [buggy, liar] }) });
    const error = await rpcError(runTool(dispatcher, { name: 'buggy', caller: everyone }));
    expect(error).toMatchObject({ code: -32603, data: { code: 1999, retryable: false, tool: 'buggy' } });
    expect(error.message).toMatch(/x is undefined/);
    expect((await rpcError(runTool(dispatcher, { name: 'liar', caller: everyone }))).message).toMatch(
      /output schema/,
    );
  });

  it('adds pictures and other content after the JSON text, and forwards increasing progress only', async () => {
    const pictures = tool({
      name: 'pictures',
      handle: async (_args, context) => {
        context.progress(1, 3);
        context.progress(1, 3);
        context.progress(0.5, 3);
        context.progress(3, 3, 'done');
        context.attach({ type: 'image', mimeType: 'image/png', data: 'AAAA' });
        context.attach({ type: 'audio', mimeType: 'audio/wav', data: 'BBBB' });
        return { n: 1 };
      },
    });
    const progress: unknown[] = [];
    const result = await runTool(
      createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [pictures] }) }),
      {
        name: 'pictures',
        caller: everyone,
        onProgress: (...args) => progress.push(args),
      },
    );
    expect(result.content).toEqual([
      { type: 'text', text: '{"n":1}' },
      { type: 'image', mimeType: 'image/png', data: 'AAAA' },
      { type: 'audio', mimeType: 'audio/wav', data: 'BBBB' },
    ]);
    expect(progress).toEqual([
      [1, 3, undefined],
      [3, 3, 'done'],
    ]);
  });

  it('writes one audit event per call on every branch, and signals board changes after mutating tools', async () => {
    const events: AuditEvent[] = [];
    const write = tool({ name: 'write', kind: 'write', handle: async () => ({}) });
    const dispatcher = createDispatcher({
      root: new ToolSubsystem({ name: 'local', tools: [echo, write] }),
      audit: (event) => events.push(event),
    });
    const changed: string[] = [];
    dispatcher.onBoardChange((name) => changed.push(name));
    await runTool(dispatcher, { name: 'echo', arguments: { text: 'a' }, caller: everyone });
    await runTool(dispatcher, { name: 'write', caller: everyone });
    await runTool(dispatcher, { name: 'nope', caller: everyone }).catch(() => {});
    await runTool(dispatcher, { name: 'echo', arguments: {}, caller: everyone }).catch(() => {});
    expect(events.map((e) => [e.tool, e.outcome])).toEqual([
      ['echo', 'ok'],
      ['write', 'ok'],
      ['nope', 'unknown_tool'],
      ['echo', 'invalid_args'],
    ]);
    expect(events[0]).toMatchObject({
      caller: 'test',
      callId: expect.any(String),
      durationMs: expect.any(Number),
    });
    expect(Number.isNaN(Date.parse(events[0]?.time ?? ''))).toBe(false);
    expect(changed).toEqual(['write']);
  });

  it('fails board calls clearly when the server has no board', async () => {
    const needsBoard = deviceTool({
      name: 'needs_board',
      handle: async (_a, { board }) => ({ v: await board.call('1') }),
    });
    const result = await runTool(
      createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [needsBoard] }) }),
      {
        name: 'needs_board',
        caller: everyone,
      },
    );
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ code: 'not_found' });
  });

  describe('a hazard asks the person first (--confirm)', () => {
    let ran = 0;
    /** A supply-like tool whose hazard is volts above the threshold; `app` points it at a view. */
    const hazardTool = (name: string, app?: string) =>
      tool({
        name,
        kind: 'physical',
        ...(app ? { app } : {}),
        input: z.object({ volts: z.number() }),
        hazard: ({ volts }: { volts: number }, { aboveVolts }) =>
          volts > aboveVolts ? `Set ${volts} V?` : undefined,
        handle: async ({ volts }) => {
          ran++;
          return { volts };
        },
      });
    const risky = hazardTool('risky');
    const dispatcherOf = (mode: 'always' | 'hazards' | 'never', tools: ReturnType<typeof hazardTool>[]) => {
      const events: AuditEvent[] = [];
      const dispatcher = createDispatcher({
        root: new ToolSubsystem({ name: 'local', tools }),
        confirm: { mode, aboveVolts: 5 },
        audit: (event) => events.push(event),
      });
      return { dispatcher, events };
    };
    const setup = (mode: 'always' | 'hazards' | 'never') => dispatcherOf(mode, [risky]);
    const failureOf = (result: { content: unknown[] }) =>
      JSON.parse((result.content[0] as { text: string }).text) as { code: string };

    it('asks only above the threshold; no runs nothing and is audited as declined', async () => {
      ran = 0;
      const { dispatcher, events } = setup('hazards');
      const asked: string[] = [];
      const confirm = async (question: string) => {
        asked.push(question);
        return 'decline' as const;
      };
      await runTool(dispatcher, { name: 'risky', arguments: { volts: 3 }, caller: everyone, confirm });
      const no = await runTool(dispatcher, {
        name: 'risky',
        arguments: { volts: 7 },
        caller: everyone,
        confirm,
      });
      expect(asked).toEqual(['Set 7 V?']);
      expect(failureOf(no)).toMatchObject({ code: 'declined' });
      expect(ran).toBe(1);
      expect(events.map((e) => e.outcome)).toEqual(['ok', 'declined']);
    });

    it('a cancel while the question waits ends the call at once, and the tool never runs', async () => {
      ran = 0;
      const { dispatcher } = setup('always');
      const cancel = new AbortController();
      const call = runTool(dispatcher, {
        name: 'risky',
        arguments: { volts: 7 },
        caller: everyone,
        signal: cancel.signal,
        confirm: () => new Promise(() => {}),
      });
      cancel.abort();
      expect(failureOf(await call)).toMatchObject({ code: 'canceled' });
      expect(ran).toBe(0);
    });

    it('a client that cannot ask: runs under hazards, is refused under always, is never asked under never', async () => {
      ran = 0;
      const hazards = await runTool(setup('hazards').dispatcher, {
        name: 'risky',
        arguments: { volts: 7 },
        caller: everyone,
      });
      expect(hazards.isError).toBeUndefined();
      const always = await runTool(setup('always').dispatcher, {
        name: 'risky',
        arguments: { volts: 7 },
        caller: everyone,
      });
      expect(failureOf(always)).toMatchObject({ code: 'confirmation_required' });
      const never = await runTool(setup('never').dispatcher, {
        name: 'risky',
        arguments: { volts: 7 },
        caller: everyone,
        confirm: async () => {
          throw new Error('never asks');
        },
      });
      expect(never.isError).toBeUndefined();
      expect(ran).toBe(2);
    });

    describe('a host that renders apps', () => {
      const shown = hazardTool('shown', 'ui://test/board');
      const appSetup = (mode: 'always' | 'hazards' | 'never') => dispatcherOf(mode, [risky, shown]);
      const pendingOf = (result: { content: unknown[] }) =>
        failureOf(result) as { code: string; message: string; question: { id: string; question: string } };
      afterEach(() => {
        vi.useRealTimers();
      });

      it('and cannot elicit: the question is the result, the retry takes the answer once, not after it expired', async () => {
        vi.useFakeTimers({ toFake: ['Date'] });
        ran = 0;
        const { dispatcher, events } = appSetup('always');
        const call = (volts = 7) =>
          runTool(dispatcher, { name: 'shown', arguments: { volts }, caller: everyone, rendersApps: true });
        const asked = await call();
        expect(pendingOf(asked)).toMatchObject({ code: 'confirmation_pending', retryable: true });
        expect(pendingOf(asked).message).toMatch(/call shown again with the same arguments/);
        expect(asked._meta).toEqual({ ui: { resourceUri: 'ui://test/board' } });
        expect(events.map((e) => e.outcome)).toEqual(['asked']);
        const { id } = pendingOf(asked).question;
        expect(dispatcher.questions.answer(id, 'test', 'accept')).toBe('retry');
        // Expired: the yes no longer counts; the retry is asked again and nothing runs.
        vi.setSystemTime(Date.now() + CONFIRM_TIMEOUT_MS);
        const late = await call();
        expect(pendingOf(late).question.id).not.toBe(id);
        expect(ran).toBe(0);
        expect(dispatcher.questions.answer(pendingOf(late).question.id, 'test', 'accept')).toBe('retry');
        // Another caller's retry of the same call, other arguments: asked, not run.
        const other = await runTool(dispatcher, {
          name: 'shown',
          arguments: { volts: 7 },
          caller: { ...everyone, id: 'someone-else' },
          rendersApps: true,
        });
        expect(pendingOf(other).code).toBe('confirmation_pending');
        expect(pendingOf(await call(8)).code).toBe('confirmation_pending');
        expect(ran).toBe(0);
        expect((await call()).isError).toBeUndefined();
        expect(ran).toBe(1);
        expect(pendingOf(await call()).code).toBe('confirmation_pending');
        expect(ran).toBe(1);
        // A tool the host shows no app for: nowhere to ask.
        const noApp = await runTool(dispatcher, {
          name: 'risky',
          arguments: { volts: 7 },
          caller: everyone,
          rendersApps: true,
        });
        expect(failureOf(noApp)).toMatchObject({ code: 'confirmation_required' });
        // never: nobody is asked.
        const never = await runTool(appSetup('never').dispatcher, {
          name: 'shown',
          arguments: { volts: 7 },
          caller: everyone,
          rendersApps: true,
        });
        expect(never.isError).toBeUndefined();
        expect(ran).toBe(2);
      });

      it("in 2026-07-28 the question outlives its input_required round, and the app's answer counts for the retry", async () => {
        ran = 0;
        const { dispatcher } = appSetup('hazards');
        let handOver: (reason: unknown) => void = () => {};
        const until = new Promise((resolve) => {
          handOver = resolve;
        });
        const round = runTool(dispatcher, {
          name: 'shown',
          arguments: { volts: 7 },
          caller: everyone,
          rendersApps: true,
          until,
          confirm: () => new Promise(() => {}),
        });
        handOver(new Error('waiting for the client to answer'));
        expect(failureOf(await round).code).toBe('canceled');
        const [open] = dispatcher.questions.pending('test');
        expect(open).toMatchObject({ tool: 'shown', question: 'Set 7 V?' });
        expect(dispatcher.questions.answer(open?.id ?? '', 'test', 'accept')).toBe('retry');
        // The client's own dialog was dismissed: its retry carries a cancel, the app's yes decides.
        const retried = await runTool(dispatcher, {
          name: 'shown',
          arguments: { volts: 7 },
          caller: everyone,
          rendersApps: true,
          confirm: async () => 'cancel',
        });
        expect(retried.isError).toBeUndefined();
        expect(ran).toBe(1);
      });
    });
  });
});
