/**
 * `jumperless-mcp exec CODE | --file F | --stdin`: runs MicroPython on the board and prints what it
 * printed; a Python error goes to stderr with its traceback and exits 1. Through the process that
 * holds the board when one does (src/share), else on the port itself. Running Python is what
 * `python_exec` does, so it needs what that tool needs: `jumperless.exec` within the operator's
 * grant (JUMPERLESS_MCP_GRANT).
 */
import { readFileSync } from 'node:fs';
import { capabilitiesIn } from '../core/capabilities.js';
import { isDeviceError } from '../device/errors.js';
import { checkDevice, openServedBoard } from './board.js';
import { resolveConfig } from './config.js';

/** The capability `python_exec` needs (src/tools: the exec toolset). */
const EXEC_CAPABILITY = 'jumperless.exec';

export interface ExecOptions {
  file?: string;
  stdin?: boolean;
  device: string;
  timeout: string;
}

export async function runExec(
  code: string | undefined,
  options: ExecOptions,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; stdin?: NodeJS.ReadableStream },
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const sources = [code !== undefined, options.file !== undefined, options.stdin === true].filter(Boolean);
  if (sources.length !== 1) {
    io.stderr.write(
      'jumperless-mcp exec: give the code as an argument, or --file F, or --stdin (one of them)\n',
    );
    return 2;
  }
  const seconds = Number(options.timeout);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    io.stderr.write(`jumperless-mcp exec: --timeout ${options.timeout}: give seconds, 0 < s <= 3600\n`);
    return 2;
  }
  const grant = resolveConfig({}, env).grant;
  if (!capabilitiesIn(grant).has(EXEC_CAPABILITY)) {
    io.stderr.write(
      `jumperless-mcp exec: refused: running Python needs ${EXEC_CAPABILITY}, and the operator's grant (JUMPERLESS_MCP_GRANT=${env.JUMPERLESS_MCP_GRANT ?? ''}) leaves it out\n`,
    );
    return 2;
  }
  let text: string;
  try {
    text =
      code ??
      (options.file !== undefined
        ? readFileSync(options.file, 'utf8')
        : await readAll(io.stdin ?? process.stdin));
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    io.stderr.write(`jumperless-mcp exec: --file ${options.file}: ${why}\n`);
    return 2;
  }
  await checkDevice(options.device);
  const board = await openServedBoard(options.device, 'jumperless-mcp exec', { announce: false });
  try {
    const result = await board.client.exec(text, { timeoutMs: seconds * 1000, owner: 'cli:exec' });
    io.stdout.write(result.stdout);
    if (result.stderr) {
      io.stderr.write(result.stderr.endsWith('\n') ? result.stderr : `${result.stderr}\n`);
      return 1;
    }
    return 0;
  } catch (error) {
    // A Python error is the board's answer: what the code printed before it, then its traceback
    // as the board printed it.
    const details = isDeviceError(error) ? error.toJSON() : {};
    const traceback = details.traceback;
    if (typeof traceback === 'string' && traceback !== '') {
      if (typeof details.stdout === 'string') io.stdout.write(details.stdout);
      io.stderr.write(traceback.endsWith('\n') ? traceback : `${traceback}\n`);
      return 1;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`jumperless-mcp exec: ${isDeviceError(error) ? `${error.code}: ` : ''}${message}\n`);
    return 1;
  } finally {
    await board.close();
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
