/**
 * `jumperless-mcp config claude|claude-desktop|cursor|vscode [--http URL] [--device D]`: the
 * snippet to paste into that client. Without --http the client starts this server over stdio,
 * by the absolute path of this installation (it works before the package is published).
 */
import { CLIENTS, type Client, clientSnippet, stdioCommand } from './clientConfigs.js';

export interface ConfigOptions {
  http?: string;
  device?: string;
}

export function runConfig(
  client: string,
  options: ConfigOptions,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): number {
  if (!(CLIENTS as readonly string[]).includes(client)) {
    io.stderr.write(`jumperless-mcp config: "${client}" is not a client I know: ${CLIENTS.join(', ')}\n`);
    return 2;
  }
  if (options.http !== undefined) {
    let url: URL;
    try {
      url = new URL(options.http);
    } catch {
      io.stderr.write(
        `jumperless-mcp config: --http ${options.http}: give the server's URL, e.g. http://127.0.0.1:8931/mcp\n`,
      );
      return 2;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      io.stderr.write(
        `jumperless-mcp config: --http ${options.http}: the URL must start with http:// or https://\n`,
      );
      return 2;
    }
    if (options.device !== undefined) {
      io.stderr.write(
        "jumperless-mcp config: --device is the running server's to choose; leave it out with --http\n",
      );
      return 2;
    }
  }
  const stdio = stdioCommand();
  const target =
    options.http !== undefined
      ? { http: options.http }
      : {
          stdio: {
            command: stdio.command,
            args: [...stdio.args, ...(options.device ? ['--device', options.device] : [])],
          },
        };
  const snippet = clientSnippet(client as Client, target);
  io.stderr.write(`${snippet.where}:\n`);
  io.stdout.write(`${snippet.text}\n`);
  return 0;
}
