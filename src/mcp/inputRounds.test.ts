/**
 * A requestState is good for the call it was minted for only: the same tool, the same arguments,
 * the same caller (issue 23 item 8). The real signing codec; a run that asks one question.
 */
import { randomBytes } from 'node:crypto';
import { createRequestStateCodec, inputRequired } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { RpcError } from '../core/errors.js';
import { InputRounds, type RoundState, roundBinding } from './inputRounds.js';

const codec = createRequestStateCodec<RoundState>({ key: randomBytes(32), ttlSeconds: 60 });
const question = inputRequired.elicit({
  message: 'Go on?',
  requestedSchema: { type: 'object', properties: {} },
} as never);

/** One round of `ask_user {text}` by `principal`: the state its first question hands back. */
async function firstRound(call: string): Promise<RoundState> {
  const rounds = new InputRounds(codec, undefined, undefined, call);
  const result = (await rounds.run(new AbortController().signal, (_signal, until) =>
    Promise.race([rounds.ask(question), until]),
  )) as {
    requestState: string;
  };
  return codec.verify(result.requestState, undefined as never);
}

describe('a requestState', () => {
  const asked = roundBinding('ask_user', { text: 'wire it?', timeout_s: 30 }, 'token:alice');

  it('carries its answers into a retry of the same call (its arguments in any order)', async () => {
    const state = await firstRound(asked);
    const same = roundBinding('ask_user', { timeout_s: 30, text: 'wire it?' }, 'token:alice');
    const retry = new InputRounds(codec, state, { q0: { action: 'accept' } }, same);
    expect(await retry.ask(question)).toEqual({ action: 'accept' });
  });

  it.each([
    ['another tool', roundBinding('python_exec', { text: 'wire it?', timeout_s: 30 }, 'token:alice')],
    ['other arguments', roundBinding('ask_user', { text: 'erase it?', timeout_s: 30 }, 'token:alice')],
    ['another caller', roundBinding('ask_user', { text: 'wire it?', timeout_s: 30 }, 'token:mallory')],
    ['an anonymous caller', roundBinding('ask_user', { text: 'wire it?', timeout_s: 30 }, undefined)],
  ])('is refused on %s with -32602 that says why', async (_what, other) => {
    const state = await firstRound(asked);
    let error: unknown;
    try {
      new InputRounds(codec, state, { q0: { action: 'accept' } }, other);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: -32602, message: expect.stringMatching(/belongs to another call/) });
  });
});
