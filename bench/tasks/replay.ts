/**
 * Plays a scenario on a fresh virtual board: its parts, its setup, then the reference solution,
 * then the checks of the answer and of the board. The figures a model's budget cares about come
 * with it: the calls the solution took and the bytes of JSON they returned.
 */
import { readFileSync } from 'node:fs';
import { type Connection, type Outcome, virtualConnection } from './connection.js';
import type { Scenario } from './scenarios.js';

/** The scenario's traps the board shows taken. */
export async function trapsTaken(c: Connection, scenario: Scenario): Promise<string[]> {
  const taken: string[] = [];
  for (const trap of scenario.traps ?? []) if (await trap.taken(c)) taken.push(trap.name);
  return taken;
}

export interface Replay {
  id: string;
  calls: number;
  /** Bytes of result JSON over the solution's calls. */
  bytes: number;
  images: number;
  /** The scenario's traps: how many the board was checked for, and those it shows taken. */
  traps: { checked: number; taken: string[] };
  outcomes: Outcome[];
  /** What is wrong with the setup, the answer and the board (empty: the task is done right). */
  failures: string[];
}

/** The text of a scenario's parts file. */
export function partsText(scenario: Scenario): string | undefined {
  if (!scenario.parts) return undefined;
  return readFileSync(new URL(`./parts/${scenario.parts}`, import.meta.url), 'utf8');
}

/** A scenario's setup on a connection; what went wrong, if anything. */
export async function setUp(c: Connection, scenario: Scenario): Promise<string[]> {
  const failures: string[] = [];
  for (const step of scenario.setup ?? []) {
    const o = await c.call(step.tool, step.args, step.as);
    if (o.isError) failures.push(`setup ${step.tool}: ${String(o.result.message)}`);
  }
  return failures;
}

/** Seeded measurement noise, as on a real board, and the same every run. */
export const NOISE_SEED = 20;

export async function replay(scenario: Scenario): Promise<Replay> {
  const text = partsText(scenario);
  const c = await virtualConnection({
    ...(text === undefined ? {} : { partsFileText: text }),
    noiseSeed: NOISE_SEED,
    ...(scenario.appAnswer ? { appAnswer: scenario.appAnswer } : {}),
  });
  try {
    const failures = await setUp(c, scenario);
    const outcomes: Outcome[] = [];
    for (const step of scenario.solution) outcomes.push(await c.call(step.tool, step.args));
    failures.push(...scenario.answer(outcomes).map((f) => `answer: ${f}`));
    failures.push(...(await scenario.board(c)).map((f) => `board: ${f}`));
    const taken = await trapsTaken(c, scenario);
    failures.push(...taken.map((t) => `trap taken: ${t}`));
    return {
      id: scenario.id,
      calls: outcomes.length,
      bytes: outcomes.reduce((s, o) => s + o.bytes, 0),
      images: outcomes.reduce((s, o) => s + o.images, 0),
      traps: { checked: scenario.traps?.length ?? 0, taken },
      outcomes,
      failures,
    };
  } finally {
    await c.close();
  }
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
