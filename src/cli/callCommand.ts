/**
 * `jumperless-mcp call TOOL [--args JSON] [--out FILE]`: any tool by name through the same
 * pipeline as an MCP `tools/call` (arguments checked, capability gate, deadline, audit). Prints
 * the result's JSON; an image in the result (board_picture, oled_show) goes to `--out FILE`, or
 * a line on stderr says it is there. A tool failure prints its JSON on stderr and exits 1; a
 * refused call (unknown tool, bad arguments) exits 2. Progress of long tools (sweeps) goes to stderr.
 */
import { writeFileSync } from 'node:fs';
import type { ToolResult } from '../core/render.js';
import { type ProgressStream, progressOn } from './progress.js';
import { failureText, openCliApp, reportFailure } from './toolRunner.js';

export interface CallOptions {
  device: string;
  args?: string;
  /** Print the whole result (content blocks too), as a client would see it. */
  raw?: boolean;
  /** Write the result's image here (a second image to FILE-2.png, and so on). */
  out?: string;
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
    return saveImages(tool, result, options, io.stderr);
  } catch (error) {
    return reportFailure('call', error, io.stderr);
  } finally {
    await cli.close();
  }
}

/** Writes the result's images to `--out`, or says on stderr that there are some and how to get them. */
function saveImages(
  tool: string,
  result: ToolResult,
  options: Pick<CallOptions, 'out' | 'raw'>,
  stderr: NodeJS.WritableStream,
): number {
  const images = result.content.flatMap((block) =>
    block.type === 'image' ? [{ data: Buffer.from(block.data, 'base64'), mimeType: block.mimeType }] : [],
  );
  if (options.out === undefined) {
    if (images.length > 0 && !options.raw) {
      const what = images.map((image) => `${image.mimeType}, ${image.data.length} bytes`).join('; ');
      stderr.write(
        `jumperless-mcp call: the result holds ${images.length === 1 ? 'an image' : `${images.length} images`} (${what}): add --out FILE.png to write it\n`,
      );
    }
    return 0;
  }
  if (images.length === 0) {
    stderr.write(`jumperless-mcp call: ${tool}'s result holds no image to write to ${options.out}\n`);
    return 1;
  }
  images.forEach((image, index) => {
    const path = index === 0 ? (options.out as string) : numbered(options.out as string, index + 1);
    writeFileSync(path, image.data);
    stderr.write(`jumperless-mcp call: wrote ${path} (${image.mimeType}, ${image.data.length} bytes)\n`);
  });
  return 0;
}

/** `picture.png`, 2 -> `picture-2.png`. */
function numbered(path: string, n: number): string {
  const dot = path.lastIndexOf('.');
  return dot > path.lastIndexOf('/') && dot > 0
    ? `${path.slice(0, dot)}-${n}${path.slice(dot)}`
    : `${path}-${n}`;
}
