/**
 * What the firmware does, as data: each probe is Python run on the board's raw REPL (or bytes sent
 * to it), the exact output JumperlOS 5.7.0.13 gives, and the source line that says so. The virtual
 * board is held to them in CI and `jumperless-mcp selftest` runs them on a real board, so every
 * board behaviour a tool relies on is checked where it matters. Pure: the probes are JSON modules.
 */
import connections from './probes/connections.json' with { type: 'json' };
import files from './probes/files.json' with { type: 'json' };
import io from './probes/io.json' with { type: 'json' };
import repl from './probes/repl.json' with { type: 'json' };
import replRaw from './probes/repl-raw.json' with { type: 'json' };
import slots from './probes/slots.json' with { type: 'json' };
import ui from './probes/ui.json' with { type: 'json' };

/** The firmware the probes were written against: the public repository and commit they cite. */
export const PROBE_FIRMWARE = {
  version: '5.7.0.13',
  repository: 'map588/JumperlOS',
  commit: '1384da4',
} as const;

interface ProbeBase {
  /** `<group>.<name>`, unique. */
  id: string;
  /** The module area, the id's first part: types, connections, power, gpio, files, repl, ... */
  group: string;
  /** `path:line` in the firmware repository at PROBE_FIRMWARE.commit; several joined by `; `. */
  source: string;
  /** What the source says there. */
  why: string;
  /** Changes wiring, supplies, pins, overlays, the OLED, files or slots (each probe undoes it). */
  mutates: boolean;
}

/** Code run as one raw-REPL exec after the firmware's `from jumperless import *`. */
export interface ExecProbe extends ProbeBase {
  kind: 'exec';
  code: string;
  /** The exact stdout (raw-REPL output is LF-only). */
  expect: string;
  /** Holds only on a board that was just powered on (defaults before first use). */
  fresh: boolean;
}

/** Bytes sent at a clean raw prompt and the exact bytes the board answers, step by step. */
export interface RawProbe extends ProbeBase {
  kind: 'raw';
  steps: ReadonlyArray<{ send: string; expect: string }>;
  note?: string;
}

export type Probe = ExecProbe | RawProbe;

interface ExecProbeJson {
  id: string;
  code: string[];
  /** Lines, each ending in `\n`; a string when the output does not end in a newline. */
  expect: string[] | string;
  source: string;
  why: string;
  mutates?: boolean;
  fresh?: boolean;
}

interface RawProbeJson {
  id: string;
  /** JSON strings whose code points 0-255 are the bytes. */
  steps: Array<{ send: string; expect: string }>;
  source: string;
  why: string;
  note?: string;
  mutates?: boolean;
}

/** The probe files; a file holds the probes of one or more module areas. */
const EXEC_FILES: readonly (readonly ExecProbeJson[])[] = [connections, files, io, repl, slots, ui];

const groupOf = (id: string): string => id.split('.')[0] ?? '';

function execProbe(json: ExecProbeJson): ExecProbe {
  return {
    kind: 'exec',
    id: json.id,
    group: groupOf(json.id),
    code: json.code.join('\n'),
    expect: typeof json.expect === 'string' ? json.expect : json.expect.map((line) => `${line}\n`).join(''),
    source: json.source,
    why: json.why,
    mutates: json.mutates === true,
    fresh: json.fresh === true,
  };
}

function rawProbe(json: RawProbeJson): RawProbe {
  return {
    kind: 'raw',
    id: json.id,
    group: groupOf(json.id),
    steps: json.steps.map((s) => ({ send: s.send, expect: s.expect })),
    source: json.source,
    why: json.why,
    mutates: json.mutates === true,
    ...(json.note ? { note: json.note } : {}),
  };
}

/** Refuses a malformed probe set at load: a probe that cannot be run or cited is a bug. */
export function checkProbes(probes: readonly Probe[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const p of probes) {
    if (seen.has(p.id)) problems.push(`${p.id}: duplicate id`);
    seen.add(p.id);
    if (!/^[a-z]+\.[a-z0-9_.]+$/.test(p.id)) problems.push(`${p.id}: id must be <group>.<snake_case>`);
    if (!/^[a-z0-9_./-]+:\d+/i.test(p.source)) problems.push(`${p.id}: source must start with path:line`);
    if (p.why.trim() === '') problems.push(`${p.id}: no why`);
    // Exec probes travel as UTF-8 text; raw probes are bytes, one code point each.
    if (p.kind === 'raw' && p.steps.some((s) => /[^\x00-\xff]/.test(s.send + s.expect))) {
      problems.push(`${p.id}: a raw step holds a code point above 0xff`);
    }
    if (p.kind === 'exec' && /[\x00-\x08\x0b-\x1f]/.test(p.code)) {
      problems.push(`${p.id}: control characters in code (raw REPL framing bytes)`);
    }
  }
  return problems;
}

function load(): Probe[] {
  const probes: Probe[] = [
    ...EXEC_FILES.flatMap((list) => list.map(execProbe)),
    ...(replRaw as RawProbeJson[]).map(rawProbe),
  ];
  const problems = checkProbes(probes);
  if (problems.length > 0) throw new Error(`malformed probes:\n${problems.join('\n')}`);
  return probes;
}

/** Every probe, exec probes first, in file order. */
export const PROBES: readonly Probe[] = load();
