import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeadlineClock } from './deadline.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('DeadlineClock', () => {
  it('fires once the deadline passes', () => {
    const clock = new DeadlineClock();
    const fire = vi.fn();
    clock.arm(100, fire);
    vi.advanceTimersByTime(99);
    expect(fire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fire).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1000);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it('does not fire after disarm', () => {
    const clock = new DeadlineClock();
    const fire = vi.fn();
    clock.arm(100, fire);
    clock.disarm();
    vi.advanceTimersByTime(500);
    expect(fire).not.toHaveBeenCalled();
  });

  it('keeps one timer for a later deadline and re-arms when it fires early', () => {
    const clock = new DeadlineClock();
    const first = vi.fn();
    const second = vi.fn();
    clock.arm(100, first);
    vi.advanceTimersByTime(60);
    clock.disarm();
    clock.arm(100, second); // due at 160; the timer still points at 100
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(40);
    expect(second).not.toHaveBeenCalled();
    vi.advanceTimersByTime(60);
    expect(second).toHaveBeenCalledTimes(1);
    expect(first).not.toHaveBeenCalled();
  });

  it('moves the timer earlier for a sooner deadline', () => {
    const clock = new DeadlineClock();
    const late = vi.fn();
    const soon = vi.fn();
    clock.arm(10_000, late);
    clock.arm(50, soon);
    vi.advanceTimersByTime(50);
    expect(soon).toHaveBeenCalledTimes(1);
    expect(late).not.toHaveBeenCalled();
  });

  it('clamps huge and infinite deadlines instead of firing at once', () => {
    const clock = new DeadlineClock();
    const fire = vi.fn();
    clock.arm(Number.POSITIVE_INFINITY, fire);
    vi.advanceTimersByTime(1000);
    expect(fire).not.toHaveBeenCalled();
    clock.stop();
  });
});
