import { describe, expect, it } from 'vitest';
import { FairQueue, type Job, JobQueue, type Lease, Turns } from './turns.js';

describe('JobQueue', () => {
  it('finds the first item that matches, in the order they came, and leaves it queued', () => {
    const queue = new JobQueue<number>();
    for (const n of [1, 2, 3, 4]) queue.push(n);
    expect(queue.peek((n) => n % 2 === 0)).toBe(2);
    expect(queue.peek((n) => n > 10)).toBeUndefined();
    expect(queue.length).toBe(4);
  });

  it('removes from the middle and reports what was not there', () => {
    const queue = new JobQueue<string>();
    for (const s of ['a', 'b', 'c']) queue.push(s);
    expect(queue.remove('b')).toBe(true);
    expect(queue.remove('b')).toBe(false);
    expect(queue.take(() => true)).toEqual(['a', 'c']);
  });

  it('takes matching items and keeps the order of the rest', () => {
    const queue = new JobQueue<number>();
    for (const n of [1, 2, 3, 4, 5]) queue.push(n);
    expect(queue.take((n) => n % 2 === 0)).toEqual([2, 4]);
    expect(queue.take(() => true)).toEqual([1, 3, 5]);
    expect(queue.length).toBe(0);
  });
});

describe('FairQueue', () => {
  it('serves owners in turn, so a burst from one does not hold back the others', () => {
    const queue = new FairQueue<string>();
    for (let i = 1; i <= 4; i++) queue.push('burst', `b${i}`);
    queue.push('one', 'o1');
    queue.push('two', 't1');
    queue.push('one', 'o2');
    const order: string[] = [];
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) order.push(item);
    expect(order).toEqual(['b1', 'o1', 't1', 'b2', 'o2', 'b3', 'b4']);
    expect(queue.length).toBe(0);
  });

  it('an owner who comes back later waits behind the owners already waiting', () => {
    const queue = new FairQueue<string>();
    queue.push('a', 'a1');
    queue.push('b', 'b1');
    expect(queue.shift()).toBe('a1');
    queue.push('a', 'a2');
    expect([queue.shift(), queue.shift()]).toEqual(['b1', 'a2']);
  });

  it('removes a waiting item and drains the rest', () => {
    const queue = new FairQueue<number>();
    queue.push('a', 1);
    queue.push('b', 2);
    queue.push('a', 3);
    expect(queue.remove(1)).toBe(true);
    expect(queue.remove(1)).toBe(false);
    expect(queue.owners()).toEqual(['a', 'b']);
    expect(queue.drain().sort()).toEqual([2, 3]);
    expect(queue.length).toBe(0);
  });
});

describe('Turns', () => {
  const lease = (owner: string, implicit = false): Lease => ({
    owner,
    implicit,
    granted: false,
    released: false,
    grant: () => {},
    refuse: () => {},
    cleanup: [],
  });
  const job = (held: Lease, source: string): Job => ({
    lease: held,
    request: Buffer.from(`${source}\x04`),
    source,
    timeoutMs: 1000,
    signal: undefined,
    usesHelper: false,
    waitUntil: undefined,
    resolve: () => {},
    reject: () => {},
    cleanup: [],
  });

  it('grants turns round-robin and runs only the holder job until its lease ends', () => {
    const turns = new Turns();
    const holder = lease('holder');
    turns.ask(holder);
    const other = lease('other', true);
    turns.add(job(other, 'o1'));
    turns.add(job(holder, 'h1'));
    expect(turns.nextJob()?.source).toBe('h1');
    expect(holder.granted).toBe(true);
    expect(turns.status()).toEqual({ holder: 'holder', waiting: ['other'] });
    turns.queue.remove(turns.nextJob() as Job);
    // The holder has nothing queued but keeps its turn: the other job waits.
    expect(turns.nextJob()).toBeUndefined();
    expect(turns.end(holder)).toEqual([]);
    expect(turns.nextJob()?.source).toBe('o1');
    expect(turns.status()).toEqual({ holder: null, waiting: [] });
  });

  it('grants a yielding lease (the board view) only when no caller waits, whenever it asked', () => {
    const turns = new Turns();
    const view = { ...lease('view'), yields: true };
    turns.ask(view);
    const caller = lease('caller', true);
    turns.add(job(caller, 'c1'));
    // The view asked first, the caller goes first all the same.
    expect(turns.nextJob()?.source).toBe('c1');
    expect(view.granted).toBe(false);
    const again = lease('again');
    turns.queue.remove(turns.nextJob() as Job);
    turns.end(caller);
    turns.ask(again);
    expect(turns.status().waiting).toEqual(['again', 'view']);
    turns.add(job(again, 'a1'));
    expect(turns.nextJob()?.source).toBe('a1');
    turns.queue.remove(turns.nextJob() as Job);
    turns.end(again);
    // Nobody else waits now: the view's turn.
    turns.add(job(view, 'v1'));
    expect(turns.nextJob()?.source).toBe('v1');
    expect(view.granted).toBe(true);
    // A yielding lease can withdraw like any other, and drains with the session.
    const late = { ...lease('late-view'), yields: true };
    turns.ask(late);
    expect(turns.withdraw(late)).toBe(true);
    turns.ask(late);
    expect(turns.drain().leases).toEqual([late]);
  });

  it('ends a lease with its queued jobs handed back, and a waiting lease can withdraw', () => {
    const turns = new Turns();
    const first = lease('first');
    const second = lease('second');
    turns.ask(first);
    turns.ask(second);
    turns.add(job(first, 'a'));
    turns.add(job(first, 'b'));
    expect(turns.nextJob()?.source).toBe('a');
    expect(turns.withdraw(second)).toBe(true);
    expect(turns.withdraw(second)).toBe(false);
    expect(turns.end(first).map((j) => j.source)).toEqual(['a', 'b']);
    expect(first.released).toBe(true);
    expect(turns.holds(first)).toBe(false);
    expect(turns.nextJob()).toBeUndefined();
  });

  it('drains every job and waiting lease when the session closes', () => {
    const turns = new Turns();
    const waiting = lease('w');
    const held = lease('h');
    turns.ask(held);
    turns.ask(waiting);
    turns.nextJob();
    turns.add(job(held, 'x'));
    turns.add(job(lease('i', true), 'y'));
    const { jobs, leases } = turns.drain();
    expect(jobs.map((j) => j.source)).toEqual(['x', 'y']);
    expect(leases.map((l) => l.owner)).toEqual(['w', 'i']);
    expect(leases.every((l) => l.released)).toBe(true);
    expect(turns.status()).toEqual({ holder: null, waiting: [] });
  });
});
