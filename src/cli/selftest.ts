/**
 * `jumperless-mcp selftest`: the acceptance run for a real board. It runs the firmware probes
 * (src/board/probes/) and prints, per probe, what the firmware source says the board answers and
 * what it did answer. A report from a user's board is how we learn where we are still wrong.
 */
import { type ExecProbe, PROBE_FIRMWARE, PROBES, type Probe, type RawProbe } from '../board/probes.js';
import { type ProbeResult, runExecProbes, runRawProbes } from '../device/probeRunner.js';
import { openBoard } from './board.js';

export interface SelftestOptions {
  device?: string;
  destructive?: boolean;
  fresh?: boolean;
  json?: boolean;
  /** Only probes whose id starts with one of these (e.g. `files`, `slots.switch`). */
  only?: string[];
  /** The probes to run; default every probe of src/board/probes. */
  probes?: readonly Probe[];
}

export interface SelftestReport {
  device: string;
  firmware: string | undefined;
  micropython: string | undefined;
  /** The firmware the probes were written against. */
  probes_from: typeof PROBE_FIRMWARE;
  options: { destructive: boolean; fresh: boolean; only: string[] };
  summary: { total: number; passed: number; failed: number; skipped: number };
  groups: Record<string, { passed: number; failed: number; skipped: number }>;
  checks: Array<Omit<ProbeResult, 'group' | 'ms'>>;
}

export async function runSelftest(options: SelftestOptions, out: NodeJS.WritableStream): Promise<number> {
  const device = options.device ?? 'auto';
  const isSim = device === 'sim' || device.startsWith('sim:');
  // A virtual board starts fresh every time, so its power-on defaults can always be checked.
  const runOptions = { mutating: options.destructive === true, fresh: options.fresh === true || isSim };
  const only = options.only ?? [];
  const chosen = (options.probes ?? PROBES).filter(
    (p) => only.length === 0 || only.some((prefix) => p.id.startsWith(prefix)),
  );
  const board = await openBoard(device, { toolsHelper: false });
  const results: ProbeResult[] = [];
  const onResult = (r: ProbeResult) => {
    results.push(r);
    if (!options.json) out.write(`${formatLine(r)}\n`);
  };
  let health: ReturnType<typeof board.session.health>;
  try {
    await board.session.connect();
    health = board.session.health();
    if (!options.json) {
      out.write(
        `jumperless-mcp selftest on ${board.session.link.address}: firmware ${health.firmware ?? 'unknown'}, `,
      );
      out.write(
        `probes written against ${PROBE_FIRMWARE.version} (${PROBE_FIRMWARE.repository}@${PROBE_FIRMWARE.commit})\n`,
      );
      if (!runOptions.mutating)
        out.write('Read-only run: probes that change the board are skipped (--destructive runs them).\n');
    }
    const exec = chosen.filter((p): p is ExecProbe => p.kind === 'exec');
    const raw = chosen.filter((p): p is RawProbe => p.kind === 'raw');
    await runExecProbes(board.session, exec, { ...runOptions, onResult });
    // Raw probes speak to the REPL directly: the session lets go of the port first.
    await board.session.close();
    if (raw.length > 0) {
      await runRawProbes(board.session.link, raw, { ...runOptions, onResult });
      await board.session.link.close();
    }
  } finally {
    await board.close();
  }
  const report = buildReport(device, health, results, chosen, runOptions, only);
  if (options.json) out.write(`${JSON.stringify(report, null, 2)}\n`);
  else out.write(formatSummary(report));
  return report.summary.failed === 0 ? 0 : 1;
}

function buildReport(
  device: string,
  health: { firmware?: string; micropython?: string },
  results: readonly ProbeResult[],
  chosen: readonly Probe[],
  runOptions: { mutating: boolean; fresh: boolean },
  only: string[],
): SelftestReport {
  const groups: SelftestReport['groups'] = {};
  for (const r of results) {
    const g = groups[r.group] ?? { passed: 0, failed: 0, skipped: 0 };
    groups[r.group] = g;
    if (r.skipped) g.skipped++;
    else if (r.ok) g.passed++;
    else g.failed++;
  }
  const count = (f: (r: ProbeResult) => boolean) => results.filter(f).length;
  return {
    device,
    firmware: health.firmware,
    micropython: health.micropython,
    probes_from: PROBE_FIRMWARE,
    options: { destructive: runOptions.mutating, fresh: runOptions.fresh, only },
    summary: {
      total: chosen.length,
      passed: count((r) => r.ok && !r.skipped),
      failed: count((r) => !r.ok),
      skipped: count((r) => r.skipped !== undefined),
    },
    groups,
    checks: results.map(({ group: _group, ms: _ms, ...check }) => check),
  };
}

function formatLine(r: ProbeResult): string {
  if (r.skipped) return `skip  ${r.id}  (${r.skipped})`;
  if (r.ok) return `pass  ${r.id}`;
  return [
    `FAIL  ${r.id}`,
    `      source:   ${r.source}`,
    `      why:      ${r.why}`,
    `      expected: ${JSON.stringify(r.expected)}`,
    `      got:      ${JSON.stringify(r.got)}`,
  ].join('\n');
}

function formatSummary(report: SelftestReport): string {
  const rows = Object.entries(report.groups).map(
    ([group, g]) =>
      `  ${group.padEnd(12)} ${String(g.passed).padStart(4)} passed ${String(g.failed).padStart(4)} failed ${String(g.skipped).padStart(4)} skipped`,
  );
  const s = report.summary;
  const verdict =
    s.failed === 0
      ? 'All probes that ran agree with the firmware source.'
      : 'Some probes disagree. Please attach `jumperless-mcp selftest --json` output to a bug report.';
  return `\n${rows.join('\n')}\n  ${'total'.padEnd(12)} ${String(s.passed).padStart(4)} passed ${String(s.failed).padStart(4)} failed ${String(s.skipped).padStart(4)} skipped\n${verdict}\n`;
}
