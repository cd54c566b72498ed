import { describe, expect, it } from 'vitest';
import { OpenQuestions } from './questions.js';

describe('open hazard questions', () => {
  it('counts one answer, from the caller that was asked, before the question expires', async () => {
    let now = 1_000;
    const questions = new OpenQuestions(() => now);
    const asked = questions.ask('http:a', 'nodes_clear', 'Remove every bridge on the board?', 60_000);
    expect(questions.pending('http:b')).toEqual([]);
    expect(questions.pending('http:a')).toEqual([
      {
        id: asked.id,
        tool: 'nodes_clear',
        question: 'Remove every bridge on the board?',
        expires: new Date(61_000).toISOString(),
      },
    ]);
    expect(questions.answer(asked.id, 'http:b', 'accept')).toBe(false);
    expect(questions.answer('not-issued', 'http:a', 'accept')).toBe(false);
    expect(questions.answer(asked.id, 'http:a', 'decline')).toBe(true);
    await expect(asked.answered).resolves.toBe('decline');
    expect(questions.answer(asked.id, 'http:a', 'accept')).toBe(false);

    const late = questions.ask('http:a', 'python_exec', 'Run this code?', 60_000);
    now += 60_000;
    expect(questions.answer(late.id, 'http:a', 'accept')).toBe(false);
    expect(questions.pending('http:a')).toEqual([]);

    const closed = questions.ask('http:a', 'nodes_clear', 'Remove every bridge on the board?', 60_000);
    closed.close();
    expect(questions.answer(closed.id, 'http:a', 'accept')).toBe(false);
  });
});
