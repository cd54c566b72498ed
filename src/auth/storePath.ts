/** Where the token store lives unless a flag says otherwise. */
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * `JUMPERLESS_MCP_TOKENS`, else `$XDG_CONFIG_HOME/jumperless-mcp/tokens.json`, else
 * `~/.config/jumperless-mcp/tokens.json`. The CLI and the server must agree, so both call this.
 */
export function defaultTokenStorePath(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const explicit = env.JUMPERLESS_MCP_TOKENS;
  if (explicit) return explicit;
  // XDG says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const config = env.XDG_CONFIG_HOME?.startsWith('/') ? env.XDG_CONFIG_HOME : join(home, '.config');
  return join(config, 'jumperless-mcp', 'tokens.json');
}
