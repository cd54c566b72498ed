/** Ready-to-paste client setups for a running HTTP server (mcp notes §5 "Config snippets"). */
import { fileURLToPath } from 'node:url';

/**
 * How a client starts this very server over stdio: node with the absolute path of our entry (and
 * tsx when running from the sources), so the snippet works as pasted before the package is published.
 */
export function stdioCommand(): { command: string; args: string[] } {
  const here = import.meta.url;
  const fromSource = here.endsWith('.ts');
  const entry = fileURLToPath(new URL(fromSource ? './main.ts' : './main.js', here));
  const args = fromSource ? ['--import', import.meta.resolve('tsx'), entry] : [entry];
  return { command: process.execPath, args };
}

export function clientConfigs(url: string): string {
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  return [
    'Claude Code:',
    `  claude mcp add --transport http jumperless ${url}`,
    '',
    'Claude Desktop (claude_desktop_config.json; it speaks stdio, so bridge with mcp-remote):',
    indent(json({ mcpServers: { jumperless: { command: 'npx', args: ['-y', 'mcp-remote', url] } } })),
    '',
    'Cursor (~/.cursor/mcp.json):',
    indent(json({ mcpServers: { jumperless: { url } } })),
    '',
    'VS Code (.vscode/mcp.json):',
    indent(json({ servers: { jumperless: { type: 'http', url } } })),
    '',
    'Without this server running, any client can start its own over stdio instead (this machine):',
    indent(json({ mcpServers: { jumperless: stdioCommand() } })),
    '  (add "--sim" to the args for the virtual board)',
  ].join('\n');
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
