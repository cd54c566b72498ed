/** Ready-to-paste client setups for a running HTTP server (mcp notes §5 "Config snippets"). */

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
    'Without this server running, any client can start its own over stdio instead:',
    indent(json({ mcpServers: { jumperless: { command: 'npx', args: ['-y', 'jumperless-mcp'] } } })),
    '  (add "--sim" to the args for the virtual board)',
  ].join('\n');
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
