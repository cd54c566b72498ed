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

const CLIENT_NAMES: Record<Client, string> = {
  claude: 'Claude Code',
  'claude-desktop': 'Claude Desktop',
  cursor: 'Cursor',
  vscode: 'VS Code',
};

/** Every client's snippet for a running HTTP server, and the stdio one for when it is not running. */
export function clientConfigs(url: string): string {
  const blocks = CLIENTS.map((client) => {
    const { where, text } = clientSnippet(client, { http: url });
    return `${CLIENT_NAMES[client]}: ${where}\n${indent(text)}\n`;
  });
  return [
    ...blocks,
    'Without this server running, any client can start its own over stdio instead (this machine):',
    indent(clientSnippet('claude-desktop', { stdio: stdioCommand() }).text),
    '  (add "--sim" to the args for the virtual board)',
  ].join('\n');
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');

export const CLIENTS = ['claude', 'claude-desktop', 'cursor', 'vscode'] as const;
export type Client = (typeof CLIENTS)[number];

/** Where a client finds the server: it starts its own over stdio, or reaches a running one over HTTP. */
export type Target = { stdio: { command: string; args: string[] } } | { http: string };

/** The one snippet a client needs, and where it goes. */
export function clientSnippet(client: Client, target: Target): { where: string; text: string } {
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  if ('http' in target) {
    const url = target.http;
    switch (client) {
      case 'claude':
        return {
          where: 'run in a shell',
          text: `claude mcp add --transport http jumperless ${shellWord(url)}`,
        };
      case 'claude-desktop':
        return {
          where: 'claude_desktop_config.json (it speaks stdio, so mcp-remote bridges to HTTP)',
          text: json({ mcpServers: { jumperless: { command: 'npx', args: ['-y', 'mcp-remote', url] } } }),
        };
      case 'cursor':
        return { where: '~/.cursor/mcp.json', text: json({ mcpServers: { jumperless: { url } } }) };
      case 'vscode':
        return { where: '.vscode/mcp.json', text: json({ servers: { jumperless: { type: 'http', url } } }) };
    }
  }
  const { command, args } = target.stdio;
  switch (client) {
    case 'claude':
      return {
        where: 'run in a shell',
        text: `claude mcp add jumperless -- ${[command, ...args].map(shellWord).join(' ')}`,
      };
    case 'claude-desktop':
      return {
        where: 'claude_desktop_config.json',
        text: json({ mcpServers: { jumperless: { command, args } } }),
      };
    case 'cursor':
      return { where: '~/.cursor/mcp.json', text: json({ mcpServers: { jumperless: { command, args } } }) };
    case 'vscode':
      return {
        where: '.vscode/mcp.json',
        text: json({ servers: { jumperless: { type: 'stdio', command, args } } }),
      };
  }
}

/** A word a POSIX shell takes as it is: quoted when it holds anything but safe characters. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
