/**
 * `jumperless-mcp selftest`: the acceptance run for a real board. It learns which firmware the board
 * runs (its banner, else what `dir(jumperless)` lists), runs the firmware probes that hold for that
 * release (src/board/probes/) and prints, per probe, what the firmware source says the board answers
 * and what it did answer. A report from a user's board is how we learn where we are still wrong.
 */
import { FIRMWARE, type FirmwareVersion, firmwareLike, knownFirmware } from '../board/firmware.js';
import { citesLaterSource, type ExecProbe, PROBES, type Probe, type RawProbe } from '../board/probes.js';
import { type ProbeResult, runExecProbes, runRawProbes } from '../device/probeRunner.js';
import { openBoard } from './board.js';
import { simWithFirmware } from './config.js';

export interface SelftestOptions {
  device?: string;
  /** With a `sim` device: the virtual board's release. */
  firmware?: string;
  destructive?: boolean;
  fresh?: boolean;
  json?: boolean;
  /** Only probes whose id starts with one of these (e.g. `files`, `slots.switch`). */
  only?: string[];
  /** The probes to run; default those of src/board/probes that hold for the board's release. */
  probes?: readonly Probe[];
}

/** The release whose probes ran, and why it was chosen. */
export interface ProbeRelease {
  version: FirmwareVersion | null;
  /** `banner`: the board named it; `api`: its functions match it; `unknown`: every probe ran. */
  by: 'banner' | 'api' | 'unknown';
  repository: string | null;
  commit: string | null;
  /** Probes for this release, and how many of them cite 5.7.11-era sources. */
  probes: number;
  cite_5711: number;
}

export interface SelftestReport {
  device: string;
  firmware: string | undefined;
  micropython: string | undefined;
  /** The release the probes were chosen for. */
  probes_from: ProbeRelease;
  options: { destructive: boolean; fresh: boolean; only: string[] };
  summary: { total: number; passed: number; failed: number; skipped: number };
  groups: Record<string, { passed: number; failed: number; skipped: number }>;
  checks: Array<Omit<ProbeResult, 'group' | 'ms'>>;
}

/** Which release's probes to run on a board that answered `firmware` and lists `functions`. */
export async function releaseOf(
  firmware: string | undefined,
  functions: () => Promise<ReadonlySet<string>>,
): Promise<Omit<ProbeRelease, 'probes' | 'cite_5711'>> {
  const named = knownFirmware(firmware);
  if (named) return { version: named.version, by: 'banner', ...where(named.version) };
  // A build we have no record of: the release whose API it has (never by comparing numbers).
  const like = firmwareLike(await functions())[0];
  if (like) return { version: like, by: 'api', ...where(like) };
  return { version: null, by: 'unknown', repository: null, commit: null };
}

const where = (v: FirmwareVersion) => ({
  repository: FIRMWARE[v].source.repository,
  commit: FIRMWARE[v].source.commit,
});

export async function runSelftest(options: SelftestOptions, out: NodeJS.WritableStream): Promise<number> {
  const asked = options.device ?? 'auto';
  const device = options.firmware === undefined ? asked : simWithFirmware(asked, options.firmware);
  const isSim = device === 'sim' || device.startsWith('sim:') || device.startsWith('sim@');
  // A virtual board starts fresh every time, so its power-on defaults can always be checked.
  const runOptions = { mutating: options.destructive === true, fresh: options.fresh === true || isSim };
  const only = options.only ?? [];
  const board = await openBoard(device, { toolsHelper: false });
  const results: ProbeResult[] = [];
  const onResult = (r: ProbeResult) => {
    results.push(r);
    if (!options.json) out.write(`${formatLine(r)}\n`);
  };
  let health: ReturnType<typeof board.session.health>;
  let release: ProbeRelease;
  let chosen: Probe[];
  try {
    await board.session.connect();
    health = board.session.health();
    const found = await releaseOf(health.firmware, () => board.client.firmwareFunctions());
    const forRelease =
      options.probes ?? PROBES.filter((p) => !found.version || p.firmware.includes(found.version));
    release = { ...found, probes: forRelease.length, cite_5711: forRelease.filter(citesLaterSource).length };
    chosen = forRelease.filter((p) => only.length === 0 || only.some((prefix) => p.id.startsWith(prefix)));
    if (!options.json) {
      out.write(
        `jumperless-mcp selftest on ${board.session.link.address}: firmware ${health.firmware ?? 'unknown'}, `,
      );
      out.write(
        release.version
          ? `the ${release.probes} probes that hold for ${release.version} (${release.by === 'api' ? 'matched by its functions' : 'as it says'}; ${release.cite_5711} cite 5.7.11 sources)\n`
          : 'a firmware we have no record of: every probe runs\n',
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
  const report = buildReport(device, health, results, chosen, runOptions, only, release);
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
  release: ProbeRelease,
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
    probes_from: release,
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
