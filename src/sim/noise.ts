/**
 * Seeded measurement noise for simulated ADC and INA readings. Seeded so that a test (or a user
 * reproducing a session) gets the same readings every run.
 */

/** A uniform random source in [0, 1). */
export type Rng = () => number;

/** mulberry32: a small, fast 32-bit generator; the same seed always gives the same sequence. */
export function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal sample (mean 0, deviation 1) by the Box-Muller transform. */
export function gaussian(rng: Rng): number {
  const u = 1 - rng(); // (0, 1]: the logarithm stays finite
  const v = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** `value` plus normal noise of deviation `sigma`; a `sigma` that is not a positive number adds none. */
export function addNoise(value: number, sigma: number, rng: Rng): number {
  if (!(sigma > 0) || !Number.isFinite(sigma)) return value;
  return value + sigma * gaussian(rng);
}
