/**
 * `jumperless-mcp view`: the board in a browser. It finds a jumperless-mcp already serving HTTP
 * on the port (its `GET /` is our page), else starts one on loopback as `start` does, then opens
 * the page with the system's opener (or only prints its address with `--no-open`).
 */
import { spawn } from 'node:child_process';

/** The title our page carries: what tells a jumperless-mcp from anything else on the port. */
const PAGE_MARK = '<title>Jumperless V5</title>';

/** The base URL of a jumperless-mcp serving the view on this loopback port, if one does. */
export async function findViewServer(port: number, host = '127.0.0.1'): Promise<string | undefined> {
  const base = `http://${host}:${port}`;
  try {
    const reply = await fetch(`${base}/`, { signal: AbortSignal.timeout(2000) });
    if (!reply.ok || !/text\/html/.test(reply.headers.get('content-type') ?? '')) return undefined;
    return (await reply.text()).includes(PAGE_MARK) ? base : undefined;
  } catch {
    return undefined;
  }
}

/** How this system opens a URL in the person's browser. */
export function opener(platform: NodeJS.Platform, url: string): [string, string[]] {
  if (platform === 'darwin') return ['open', [url]];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""', url]];
  return ['xdg-open', [url]];
}

/** Opens `url`; says so on stderr when there is no opener (a server without a desktop). */
export function openInBrowser(url: string): void {
  const [command, args] = opener(process.platform, url);
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.once('error', () =>
    process.stderr.write(`jumperless-mcp: could not start ${command}; open ${url}\n`),
  );
  child.unref();
}
