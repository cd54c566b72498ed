import { describe, expect, it } from 'vitest';
import { JobQueue } from './queue.js';

describe('JobQueue', () => {
  it('is first in, first out', () => {
    const queue = new JobQueue<number>();
    for (const n of [1, 2, 3]) queue.push(n);
    expect([queue.shift(), queue.shift(), queue.length]).toEqual([1, 2, 1]);
  });

  it('removes from the middle and reports what was not there', () => {
    const queue = new JobQueue<string>();
    for (const s of ['a', 'b', 'c']) queue.push(s);
    expect(queue.remove('b')).toBe(true);
    expect(queue.remove('b')).toBe(false);
    expect([queue.shift(), queue.shift()]).toEqual(['a', 'c']);
  });

  it('takes matching items and keeps the order of the rest', () => {
    const queue = new JobQueue<number>();
    for (const n of [1, 2, 3, 4, 5]) queue.push(n);
    expect(queue.take((n) => n % 2 === 0)).toEqual([2, 4]);
    expect([queue.shift(), queue.shift(), queue.shift(), queue.length]).toEqual([1, 3, 5, 0]);
  });
});
