/**
 * `jumperless-mcp state [--json]`: the board state (supplies, nets, GPIO, overlays) as the
 * `state_get` tool reads it, through the same dispatch as MCP, with its fingerprint.
 * `state diff FILE` and `state apply FILE`: a declared state (desiredState.ts) against the board.
 */
import { readFileSync } from 'node:fs';
import type { StateSummary } from '../tools/boardState.js';
import { withPowerOnSupplies } from '../tools/state.js';
import {
  applySteps,
  boardFingerprint,
  type DesiredState,
  declaredFingerprint,
  diffState,
  parseDesiredState,
} from './desiredState.js';
import { openCliApp, reportFailure } from './toolRunner.js';

export interface StateOptions {
  device: string;
  json?: boolean;
}

export async function runState(
  options: StateOptions,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  const cli = await openCliApp(options.device);
  try {
    const state = readBoard(await cli.call('state_get'));
    const fingerprint = boardFingerprint(state);
    io.stdout.write(
      options.json
        ? `${JSON.stringify({ ...state, fingerprint }, null, 2)}\n`
        : `${describeState(state)}fingerprint: ${fingerprint}\n`,
    );
    return 0;
  } catch (error) {
    return reportFailure('state', error, io.stderr);
  } finally {
    await cli.close();
  }
}

type Io = { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };

/** A declaration read from its file; undefined (and the reason on stderr) when it is not one. */
function readDeclaration(file: string, stderr: NodeJS.WritableStream): DesiredState | undefined {
  try {
    return parseDesiredState(readFileSync(file, 'utf8'));
  } catch (error) {
    stderr.write(`state: ${file}: ${(error as Error).message}\n`);
    return undefined;
  }
}

export interface StateReport {
  same: boolean;
  fingerprint: string;
  declared_fingerprint: string;
  differences: string[];
  applied?: string[];
}

function writeReport(report: StateReport, json: boolean | undefined, stdout: NodeJS.WritableStream): void {
  if (json) {
    stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const lines = [
    ...report.differences,
    report.same
      ? `same: fingerprint ${report.fingerprint}`
      : `differs: board ${report.fingerprint}, declared ${report.declared_fingerprint}`,
  ];
  stdout.write(`${lines.join('\n')}\n`);
}

/**
 * `state diff FILE` (changes nothing) and `state apply FILE` (the tool calls that make the board the
 * declaration, then the diff again). Exit 0 when the board matches, 1 when it does not or a call
 * failed (nothing after it is sent), 2 when the file is not a declaration.
 */
export async function runStateDeclared(
  action: 'diff' | 'apply',
  file: string,
  options: StateOptions,
  io: Io,
): Promise<number> {
  const doc = readDeclaration(file, io.stderr);
  if (!doc) return 2;
  const cli = await openCliApp(options.device);
  try {
    const applied: string[] = [];
    if (action === 'apply') {
      const before = readBoard(await cli.call('state_get'));
      for (const step of applySteps(doc, before)) {
        const line = `${step.tool} ${JSON.stringify(step.args)}`;
        await cli.call(step.tool, step.args);
        applied.push(line);
        // Said as it goes: when a later call is refused, what went before is on the screen.
        if (!options.json) io.stdout.write(`applied: ${line}\n`);
      }
    }
    const state = readBoard(await cli.call('state_get'));
    const differences = diffState(doc, state);
    const report: StateReport = {
      same: differences.length === 0,
      fingerprint: boardFingerprint(state),
      declared_fingerprint: declaredFingerprint(doc),
      differences,
      ...(action === 'apply' ? { applied } : {}),
    };
    writeReport(report, options.json, io.stdout);
    return report.same ? 0 : 1;
  } catch (error) {
    return reportFailure(`state ${action}`, error, io.stderr);
  } finally {
    await cli.close();
  }
}

export function describeState(state: StateSummary): string {
  const { power } = state;
  const lines = [
    `supplies: top rail ${power.top_rail} V, bottom rail ${power.bottom_rail} V, DAC0 ${power.dac0} V, DAC1 ${power.dac1} V`,
  ];
  const wired = state.nets.filter((net) => net.nodes.length > 0);
  lines.push(`nets (${wired.length}):`);
  for (const net of wired) {
    const volts = net.voltage === undefined ? '' : ` ${net.voltage} V`;
    lines.push(`  ${String(net.index).padStart(3)} ${net.name}${volts}: ${net.nodes.join(' ')}`);
  }
  const used = state.gpio.filter((pin) => pin.net !== null || pin.direction !== 'input');
  if (used.length > 0) {
    lines.push('gpio:');
    for (const pin of used) {
      lines.push(
        `  ${String(pin.pin).padStart(3)} ${pin.direction} ${pin.pull} ${pin.reading}${pin.net === null ? '' : ` (net ${pin.net})`}`,
      );
    }
  }
  if (state.overlays.length > 0) {
    lines.push(`overlays: ${state.overlays.map((overlay) => overlay.name).join(', ')}`);
  }
  return `${lines.join('\n')}\n`;
}

/** state_get's answer with every supply, those at their power-on 0 V (which it leaves out) included. */
function readBoard(answer: unknown): StateSummary {
  return withPowerOnSupplies(answer as StateSummary) as StateSummary;
}
