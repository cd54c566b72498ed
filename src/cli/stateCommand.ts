/**
 * `jumperless-mcp state [--json]`: the board state (supplies, nets, GPIO, overlays) as the
 * `state_get` tool reads it, through the same dispatch as MCP.
 */
import type { StateSummary } from '../tools/boardState.js';
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
    const state = (await cli.call('state_get')) as unknown as StateSummary;
    io.stdout.write(options.json ? `${JSON.stringify(state, null, 2)}\n` : describeState(state));
    return 0;
  } catch (error) {
    return reportFailure('state', error, io.stderr);
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
