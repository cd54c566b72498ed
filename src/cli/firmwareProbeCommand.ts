/**
 * `jumperless-mcp firmware-probe [--json]`: read-only. The firmware and MicroPython versions (the
 * device_info tool), the `jumperless` module functions the firmware offers, and for each tool
 * group whether this firmware has every function its tools need (the tools' own `requires`).
 */
import { catalog } from '../tools/index.js';
import { type CliApp, CliToolError, openCliApp, reportFailure } from './toolRunner.js';

export interface FirmwareReport {
  firmware: string | null;
  micropython: string;
  machine: string;
  functions: string[];
  /** Per tool group: the tools this firmware cannot run, and the functions they miss. */
  groups: Array<{ group: string; tools: number; unusable: Array<{ tool: string; missing: string[] }> }>;
}

/** Which tools a firmware with these functions cannot run, by group (catalog order). */
export function groupReadiness(functions: ReadonlySet<string>): FirmwareReport['groups'] {
  const groups = new Map<string, FirmwareReport['groups'][number]>();
  for (const tool of catalog) {
    const group = groups.get(tool.group) ?? { group: tool.group, tools: 0, unusable: [] };
    groups.set(tool.group, group);
    group.tools++;
    const missing = (tool.requires ?? []).filter((name) => !functions.has(name));
    if (missing.length > 0) group.unusable.push({ tool: tool.name, missing });
  }
  return [...groups.values()];
}

/** `timeoutMs`: give up (and close the board) when the board has not answered by then. */
export async function probeFirmware(device: string, timeoutMs?: number): Promise<FirmwareReport> {
  const cli = await openCliApp(device);
  let timer: NodeJS.Timeout | undefined;
  const late =
    timeoutMs === undefined
      ? undefined
      : new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new CliToolError('timeout', `the board did not answer within ${timeoutMs / 1000} s`, {}),
              ),
            timeoutMs,
          );
        });
  try {
    return await (late ? Promise.race([readReport(cli), late]) : readReport(cli));
  } finally {
    clearTimeout(timer);
    await cli.close();
  }
}

async function readReport(cli: CliApp): Promise<FirmwareReport> {
  {
    const info = await cli.call('device_info');
    const board = cli.app.board;
    if (!board) throw new Error('the board is not open');
    const functions = await board.client.firmwareFunctions({ owner: 'cli:firmware-probe' });
    return {
      firmware: (info.firmware as string | null) ?? null,
      micropython: info.micropython as string,
      machine: info.machine as string,
      functions: [...functions].sort(),
      groups: groupReadiness(functions),
    };
  }
}

export async function runFirmwareProbe(
  options: { device: string; json?: boolean },
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  let report: FirmwareReport;
  try {
    report = await probeFirmware(options.device);
  } catch (error) {
    return reportFailure('firmware-probe', error, io.stderr);
  }
  if (options.json) {
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  }
  const lines = [
    `firmware:    ${report.firmware ?? 'unknown (the boot banner did not say)'}`,
    `MicroPython: ${report.micropython} (${report.machine})`,
    `jumperless module: ${report.functions.length} functions`,
    ...wrap(report.functions.join(' '), 96).map((line) => `  ${line}`),
    'tool groups:',
  ];
  for (const group of report.groups) {
    if (group.unusable.length === 0) lines.push(`  ${group.group.padEnd(12)} all ${group.tools} tools`);
    else
      lines.push(
        `  ${group.group.padEnd(12)} ${group.tools - group.unusable.length} of ${group.tools} tools; this firmware lacks ${[...new Set(group.unusable.flatMap((u) => u.missing))].join(', ')} (for ${group.unusable.map((u) => u.tool).join(', ')}): update the firmware`,
      );
  }
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}
