/** The real CLI serving Streamable HTTP in a child process, and the URL it printed on stderr. */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** `args` are the CLI's (`--sim`, `--config F`, ...); it listens on a free loopback port. */
/** `entry`: the command's entry (default the CLI's; the conformance fixtures' for those tools). */
export async function serveHttpCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  entry = 'src/cli/main.ts',
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args, '--http', '127.0.0.1:0'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((done, fail) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const served = /serving (http:\/\/\S+\/mcp)/.exec(stderr);
      if (served?.[1]) done(served[1]);
    });
    child.once('exit', (code) =>
      fail(new Error(`jumperless-mcp ${args.join(' ')} exited (${code}): ${stderr}`)),
    );
  });
  return { child, url };
}
