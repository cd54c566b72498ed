import { describe, expect, it } from 'vitest';
import { addNoise, gaussian, mulberry32 } from './noise.js';

describe('mulberry32', () => {
  it('repeats the same sequence for the same seed and differs across seeds', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);
    const first = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(first);
    expect(Array.from({ length: 5 }, c)).not.toEqual(first);
  });

  it('stays in [0, 1) with a flat mean', () => {
    const rng = mulberry32(1);
    let sum = 0;
    for (let i = 0; i < 20_000; i++) {
      const x = rng();
      expect(x >= 0 && x < 1).toBe(true);
      sum += x;
    }
    expect(sum / 20_000).toBeCloseTo(0.5, 1);
  });
});

describe('addNoise', () => {
  it('adds normal noise of the given deviation around the value', () => {
    const rng = mulberry32(9);
    const samples = Array.from({ length: 20_000 }, () => addNoise(2.5, 0.01, rng));
    const mean = samples.reduce((s, x) => s + x, 0) / samples.length;
    const sd = Math.sqrt(samples.reduce((s, x) => s + (x - mean) ** 2, 0) / samples.length);
    expect(mean).toBeCloseTo(2.5, 3);
    expect(sd).toBeGreaterThan(0.0095);
    expect(sd).toBeLessThan(0.0105);
  });

  it('adds nothing for a zero, negative or non-finite sigma', () => {
    const rng = mulberry32(3);
    expect(addNoise(1.25, 0, rng)).toBe(1.25);
    expect(addNoise(1.25, -1, rng)).toBe(1.25);
    expect(addNoise(1.25, Number.NaN, rng)).toBe(1.25);
  });

  it('stays finite even when the generator returns its extremes', () => {
    expect(Number.isFinite(gaussian(() => 0))).toBe(true);
    expect(Number.isFinite(gaussian(() => 0.9999999999))).toBe(true);
  });
});
