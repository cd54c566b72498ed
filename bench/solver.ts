/**
 * Solves per second of the DC solver on circuits shaped like a busy breadboard.
 * Run: npx tsx bench/solver.ts
 *
 * The simulator solves on every ADC/INA read, so the figure that matters is the time per solve
 * of a whole board (every net at once), with and without diodes.
 */
import { mulberry32 } from '../src/sim/noise.js';
import { type Element, solveDc } from '../src/sim/solver.js';

/**
 * Worst case: one connected random network (a chain of crossbar paths plus resistors between random
 * nodes), rails and DACs behind their output resistance, ADC inputs. Random graphs fill in badly.
 */
function board(nodes: number, diodes: boolean, seed: number): Element[] {
  const rng = mulberry32(seed);
  const names = Array.from({ length: nodes }, (_, i) => String(i + 1));
  const pick = () => names[Math.floor(rng() * names.length)]!;
  const elements: Element[] = [
    { kind: 'source', node: '1', volts: 5, ohms: 0.5 },
    { kind: 'source', node: '2', volts: 3.3, ohms: 0.5 },
    { kind: 'source', node: '3', volts: -2, ohms: 0.5 },
    { kind: 'source', node: '4', volts: 3.3, ohms: 50 },
  ];
  // A chain of crossbar paths keeps the board one connected piece: the worst case for the solver.
  for (let i = 1; i < nodes; i++)
    elements.push({ kind: 'resistor', a: names[i - 1]!, b: names[i]!, ohms: 40 });
  for (let i = 0; i < nodes; i++) {
    elements.push({
      kind: 'resistor',
      a: pick(),
      b: rng() < 0.3 ? 'GND' : pick(),
      ohms: 10 ** (2 + rng() * 4),
    });
  }
  for (let i = 0; i < 4; i++) elements.push({ kind: 'resistor', a: pick(), b: 'GND', ohms: 1e6 });
  if (diodes) {
    for (let i = 0; i < Math.max(2, nodes / 10); i++) {
      elements.push({
        kind: 'diode',
        anode: pick(),
        cathode: rng() < 0.5 ? 'GND' : pick(),
        vf: 1.8 + rng() * 1.4,
      });
    }
  }
  return elements;
}

/**
 * Shaped like the simulator's board: nets of 2-6 nodes, each a star of crossbar paths around its
 * first node, a few of them on rails or GPIO drivers, parts between rows of different nets, and
 * 1 Mohm ADC inputs. Most nets end up joined by parts, as on a busy breadboard.
 */
function breadboard(nodes: number, seed: number): Element[] {
  const rng = mulberry32(seed);
  const elements: Element[] = [];
  const hubs: string[] = [];
  let made = 0;
  while (made < nodes) {
    const size = Math.min(nodes - made, 2 + Math.floor(rng() * 5));
    const hub = `n${made}`;
    hubs.push(hub);
    for (let i = 1; i < size; i++) elements.push({ kind: 'resistor', a: hub, b: `n${made + i}`, ohms: 40 });
    made += size;
  }
  const pickHub = () => hubs[Math.floor(rng() * hubs.length)]!;
  elements.push({ kind: 'source', node: hubs[0]!, volts: 5, ohms: 0.5 });
  elements.push({ kind: 'source', node: hubs[1]!, volts: 3.3, ohms: 0.5 });
  elements.push({ kind: 'source', node: pickHub(), volts: 3.3, ohms: 50 });
  for (let i = 0; i < hubs.length; i++) {
    elements.push({
      kind: 'resistor',
      a: pickHub(),
      b: rng() < 0.3 ? 'GND' : pickHub(),
      ohms: 10 ** (2 + rng() * 4),
    });
  }
  for (let i = 0; i < 4; i++) elements.push({ kind: 'resistor', a: pickHub(), b: 'GND', ohms: 1e6 });
  elements.push({ kind: 'resistor', a: hubs[0]!, b: 'led', ohms: 220 });
  elements.push({ kind: 'diode', anode: 'led', cathode: 'GND', vf: 2 });
  return elements;
}

/**
 * Time per solve, as the best of several short windows: other processes on a shared machine only
 * ever slow a window down, so the fastest one is the closest to the solver's own cost.
 */
function measure(label: string, elements: Element[]): number {
  const first = solveDc(elements);
  let best = Number.POSITIVE_INFINITY;
  for (let window = 0; window < 8; window++) {
    let solves = 0;
    const start = performance.now();
    let elapsed = 0;
    while (elapsed < 150) {
      for (let i = 0; i < 20; i++) solveDc(elements);
      solves += 20;
      elapsed = performance.now() - start;
    }
    best = Math.min(best, (elapsed / solves) * 1000);
  }
  console.log(
    `${label.padEnd(38)} ${Math.round(1e6 / best)
      .toString()
      .padStart(
        8,
      )} solves/s  ${best.toFixed(1).padStart(8)} us/solve  (${first.iterations} Newton iterations)`,
  );
  return best;
}

// Warm the JIT so the first figure is not a compile-time figure.
for (let i = 0; i < 200; i++) solveDc(board(120, true, 99));

const small = measure('20 nodes, linear', board(20, false, 1));
const smallD = measure('20 nodes, with diodes', board(20, true, 1));
const large = measure('120 nodes, linear', board(120, false, 2));
const largeD = measure('120 nodes, with diodes', board(120, true, 2));
measure('120 nodes, breadboard-shaped, 1 LED', breadboard(120, 3));
console.log(
  `120/20 node cost ratio: linear ${(large / small).toFixed(1)}x, with diodes ${(largeD / smallD).toFixed(1)}x`,
);
