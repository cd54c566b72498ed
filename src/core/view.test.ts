/**
 * The view acts on a call only after the call has answered its caller (issue 25): watching must
 * never be on a tool call's path. Through the real dispatcher and runTool; the board is a tool
 * subsystem with no resources, so a look reads nothing (state null), which is all this needs.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { AuditEvent } from './audit.js';
import { CAPABILITIES } from './capabilities.js';
import { createDispatcher } from './dispatcher.js';
import { runTool } from './runTool.js';
import { defineTool } from './toolDefinition.js';
import { ToolSubsystem } from './toolSubsystem.js';
import { AFTER_CALL_MS, type BoardLook, createBoardView } from './view.js';

const set = defineTool({
  name: 'set',
  title: 'Set',
  description: 'Changes the board.',
  group: 'test',
  kind: 'write',
  capability: 'jumperless.wire',
  input: z.object({}),
  output: z.object({}),
  handle: async () => ({}),
});
const caller = { id: 'stdio', granted: new Set(CAPABILITIES) };
const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the board view', () => {
  it('tells the pages of a call and reads the change only after the call has answered', async () => {
    const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [set] }) });
    const view = createBoardView(dispatcher);
    const looks: BoardLook[] = [];
    const calls: AuditEvent[] = [];
    view.watch({ look: (look) => looks.push(look), call: (event) => calls.push(event) });
    await settle();
    expect(looks).toHaveLength(1);

    let heardBeforeAnswer = -1;
    const answered = runTool(dispatcher, { name: 'set', caller }).then((result) => {
      heardBeforeAnswer = calls.length;
      return result;
    });
    expect((await answered).isError).toBeFalsy();
    expect(heardBeforeAnswer).toBe(0);
    // Not on the next turn either: the caller has its answer to read first.
    await vi.advanceTimersByTimeAsync(AFTER_CALL_MS - 1);
    expect([calls.length, looks.length]).toEqual([0, 1]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.map((e) => `${e.tool}:${e.outcome}`)).toEqual(['set:ok']);
    await settle();
    expect(looks.at(-1)?.after).toBe('set');
    view.close();
  });

  it('does nothing for a call that finishes after it closed', async () => {
    const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [set] }) });
    const view = createBoardView(dispatcher);
    const calls: AuditEvent[] = [];
    view.watch({ look: () => {}, call: (event) => calls.push(event) });
    const answered = runTool(dispatcher, { name: 'set', caller });
    await answered;
    view.close();
    await vi.advanceTimersByTimeAsync(AFTER_CALL_MS);
    expect(calls).toEqual([]);
  });
});
