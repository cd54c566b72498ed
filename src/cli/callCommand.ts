/**
 * `jumperless-mcp call TOOL [--args JSON]`: any tool by name through the same pipeline as an MCP
 * `tools/call` (arguments checked, capability gate, deadline, audit). Prints the result's JSON;
 * a tool failure prints its JSON on stderr and exits 1; a refused call (unknown tool, bad
 * arguments) exits 2. Progress of long tools (sweeps) goes to stderr.
 */
import { type ProgressStream, progressOn } from './progress.js';
import { failureText, openCliApp, reportFailure } from './toolRunner.js';

export interface CallOptions {
  device: string;
  args?: string;
  /** Print the whole result (content blocks too), as a client would see it. */
  raw?: boolean;
}

export async function runCall(
  tool: string,
  options: CallOptions,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream & ProgressStream },
): Promise<number> {
  let args: unknown = {};
  if (options.args !== undefined) {
    try {
      args = JSON.parse(options.args);
    } catch (error) {
      io.stderr.write(
        `jumperless-mcp call: --args is not JSON (${error instanceof Error ? error.message : String(error)}): give an object, e.g. --args '{"volts": 1.5}'\n`,
      );
      return 2;
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      io.stderr.write('jumperless-mcp call: --args must be a JSON object, e.g. {"volts": 1.5}\n');
      return 2;
    }
  }
  const cli = await openCliApp(options.device);
  const progress = progressOn(io.stderr, tool);
  try {
    const result = await cli
      .result(tool, args, (done, total, message) => progress.update(done, total, message))
      .finally(() => progress.done());
    if (result.isError) {
      io.stderr.write(`${JSON.stringify(failureText(result))}\n`);
      return 1;
    }
    const shown = options.raw ? result : (result.structuredContent ?? result.content);
    io.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
    return 0;
  } catch (error) {
    return reportFailure('call', error, io.stderr);
  } finally {
    await cli.close();
  }
}
