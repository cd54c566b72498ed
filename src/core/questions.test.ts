import { describe, expect, it } from 'vitest';
import { OpenQuestions } from './questions.js';

const CLEAR = 'Remove every bridge on the board?';

describe('open hazard questions', () => {
  it('counts one answer, from the caller that was asked, before the question expires', async () => {
    let now = 1_000;
    const questions = new OpenQuestions(() => now);
    const asked = questions.ask('http:a', 'b1', 'nodes_clear', CLEAR, 60_000);
    expect(questions.pending('http:b')).toEqual([]);
    expect(questions.pending('http:a')).toEqual([
      { id: asked.id, tool: 'nodes_clear', question: CLEAR, expires: new Date(61_000).toISOString() },
    ]);
    expect(questions.answer(asked.id, 'http:b', 'accept')).toBeUndefined();
    expect(questions.answer('not-issued', 'http:a', 'accept')).toBeUndefined();
    expect(questions.answer(asked.id, 'http:a', 'decline')).toBe('call_goes_on');
    await expect(asked.answered).resolves.toBe('decline');
    expect(questions.answer(asked.id, 'http:a', 'accept')).toBeUndefined();
    // Taken by the waiting call: nothing is left for a retry.
    expect(questions.take('http:a', 'b1')).toBeUndefined();

    const late = questions.ask('http:a', 'b2', 'python_exec', 'Run this code?', 60_000);
    now += 60_000;
    expect(questions.answer(late.id, 'http:a', 'accept')).toBeUndefined();
    expect(questions.pending('http:a')).toEqual([]);

    const closed = questions.ask('http:a', 'b1', 'nodes_clear', CLEAR, 60_000);
    closed.close();
    expect(questions.answer(closed.id, 'http:a', 'accept')).toBeUndefined();
  });

  it("keeps an answer no call waited for, for that call's retry only, once, until the question expires", () => {
    let now = 0;
    const questions = new OpenQuestions(() => now);
    const asked = questions.ask('http:a', 'clear', 'nodes_clear', CLEAR, 60_000);
    asked.detach();
    // A retry that asks again before the answer joins the same question.
    const again = questions.ask('http:a', 'clear', 'nodes_clear', CLEAR, 60_000);
    expect(again.id).toBe(asked.id);
    again.detach();
    expect(questions.pending('http:a')).toHaveLength(1);
    expect(questions.answer(asked.id, 'http:a', 'accept')).toBe('retry');
    expect(questions.pending('http:a')).toEqual([]);
    expect(questions.answer(asked.id, 'http:a', 'decline')).toBeUndefined();
    // Another caller, another call of the same caller: nothing to take.
    expect(questions.take('http:b', 'clear')).toBeUndefined();
    expect(questions.take('http:a', 'other-args')).toBeUndefined();
    expect(questions.take('http:a', 'clear')).toBe('accept');
    expect(questions.take('http:a', 'clear')).toBeUndefined();

    const expiring = questions.ask('http:a', 'clear', 'nodes_clear', CLEAR, 60_000);
    expiring.detach();
    expect(questions.answer(expiring.id, 'http:a', 'accept')).toBe('retry');
    now += 60_000;
    expect(questions.take('http:a', 'clear')).toBeUndefined();
  });

  it('holds at most 16 questions per caller: the oldest nobody waits for makes room', () => {
    const questions = new OpenQuestions(() => 0);
    const first = questions.ask('http:a', 'call-0', 'dac_set', 'Set DAC0?', 60_000);
    first.detach();
    for (let i = 1; i < 20; i++)
      questions.ask('http:a', `call-${i}`, 'dac_set', 'Set DAC0?', 60_000).detach();
    expect(questions.pending('http:a')).toHaveLength(16);
    expect(questions.answer(first.id, 'http:a', 'accept')).toBeUndefined();
    expect(questions.pending('http:b')).toEqual([]);
  });
});
