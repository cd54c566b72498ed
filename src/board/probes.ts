/**
 * What the firmware does, as data: each probe is Python run on the board's raw REPL (or bytes sent
 * to it), the exact output the firmware gives, the source line that says so, and the releases it
 * holds for (`firmware`; every known release when absent). The virtual board is held to them at each
 * of those releases in CI and `jumperless-mcp selftest` runs those of the board it finds, so every
 * board behaviour a tool relies on is checked where it matters. Pure: the probes are JSON modules.
 */

import { FIRMWARE_VERSIONS, type FirmwareVersion } from './firmware.js';
import connections from './probes/connections.json' with { type: 'json' };
import differences from './probes/differences.json' with { type: 'json' };
import files from './probes/files.json' with { type: 'json' };
import io from './probes/io.json' with { type: 'json' };
import repl from './probes/repl.json' with { type: 'json' };
import replRaw from './probes/repl-raw.json' with { type: 'json' };
import slots from './probes/slots.json' with { type: 'json' };
import ui from './probes/ui.json' with { type: 'json' };

/**
 * The source a probe's `source` cites when it names only `path:line`: firmware 5.7.0.13. A citation
 * of another tree names it: `Architeuthis-Flux/JumperlOS@<commit>:<path> (<what it says>)`.
 */
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
  /** The releases this holds for. */
  firmware: readonly FirmwareVersion[];
  /** Where a later release's source says the same (5.7.11: `Architeuthis-Flux/JumperlOS@...`). */
  laterSource?: string;
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

interface ProbeJsonBase {
  id: string;
  source: string;
  why: string;
  mutates?: boolean;
  /** The releases it holds for; absent: every known release (nothing in their sources differs). */
  firmware?: string[];
  /** The later release's citation, when its source was checked too. */
  source_5711?: string;
}

interface ExecProbeJson extends ProbeJsonBase {
  code: string[];
  /** Lines, each ending in `\n`; a string when the output does not end in a newline. */
  expect: string[] | string;
  fresh?: boolean;
}

interface RawProbeJson extends ProbeJsonBase {
  /** JSON strings whose code points 0-255 are the bytes. */
  steps: Array<{ send: string; expect: string }>;
  note?: string;
}

/** The probe files; a file holds the probes of one or more module areas. */
const EXEC_FILES: readonly (readonly ExecProbeJson[])[] = [
  connections,
  files,
  io,
  repl,
  slots,
  ui,
  differences,
];

const groupOf = (id: string): string => id.split('.')[0] ?? '';

/** A probe's releases, as written; an unknown one stays in so checkProbes can refuse it. */
function releases(json: ProbeJsonBase): FirmwareVersion[] {
  return (json.firmware ?? [...FIRMWARE_VERSIONS]) as FirmwareVersion[];
}

function common(json: ProbeJsonBase) {
  return {
    id: json.id,
    group: groupOf(json.id),
    source: json.source,
    why: json.why,
    mutates: json.mutates === true,
    firmware: releases(json),
    ...(json.source_5711 ? { laterSource: json.source_5711 } : {}),
  };
}

function execProbe(json: ExecProbeJson): ExecProbe {
  return {
    kind: 'exec',
    ...common(json),
    code: json.code.join('\n'),
    expect: typeof json.expect === 'string' ? json.expect : json.expect.map((line) => `${line}\n`).join(''),
    fresh: json.fresh === true,
  };
}

function rawProbe(json: RawProbeJson): RawProbe {
  return {
    kind: 'raw',
    ...common(json),
    steps: json.steps.map((s) => ({ send: s.send, expect: s.expect })),
    ...(json.note ? { note: json.note } : {}),
  };
}

/** `path:line`, or `owner/repo@commit:path...` for a tree other than PROBE_FIRMWARE's. */
const CITATION = /^([a-z0-9_./-]+:\d+|[\w.-]+\/[\w.-]+@[0-9a-f]{7,40}:[\w./-]+)/i;

/** Refuses a malformed probe set at load: a probe that cannot be run or cited is a bug. */
export function checkProbes(probes: readonly Probe[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const p of probes) {
    if (seen.has(p.id)) problems.push(`${p.id}: duplicate id`);
    seen.add(p.id);
    if (!/^[a-z]+\.[a-z0-9_.]+$/.test(p.id)) problems.push(`${p.id}: id must be <group>.<snake_case>`);
    if (!CITATION.test(p.source)) {
      problems.push(`${p.id}: source must start with path:line or owner/repo@commit:path`);
    }
    if (p.laterSource !== undefined && !CITATION.test(p.laterSource)) {
      problems.push(`${p.id}: source_5711 must start with owner/repo@commit:path`);
    }
    if (p.firmware.length === 0) problems.push(`${p.id}: holds for no firmware`);
    for (const v of p.firmware) {
      if (!(FIRMWARE_VERSIONS as readonly string[]).includes(v))
        problems.push(`${p.id}: unknown firmware ${v}`);
    }
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

/** The probes that hold for a release. */
export const probesFor = (version: FirmwareVersion): Probe[] =>
  PROBES.filter((p) => p.firmware.includes(version));

/** Cites a 5.7.11-era source (its own or, for a probe of both releases, `source_5711`). */
export const citesLaterSource = (p: Probe): boolean =>
  p.laterSource !== undefined || p.source.startsWith('Architeuthis-Flux/');
