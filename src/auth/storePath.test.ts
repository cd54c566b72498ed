import { describe, expect, it } from 'vitest';
import { defaultTokenStorePath } from './storePath.js';

describe('defaultTokenStorePath', () => {
  it('prefers JUMPERLESS_MCP_TOKENS, then XDG_CONFIG_HOME, then ~/.config', () => {
    expect(
      defaultTokenStorePath({ JUMPERLESS_MCP_TOKENS: '/srv/t.json', XDG_CONFIG_HOME: '/x' }, '/home/a'),
    ).toBe('/srv/t.json');
    expect(defaultTokenStorePath({ XDG_CONFIG_HOME: '/x' }, '/home/a')).toBe('/x/jumperless-mcp/tokens.json');
    expect(defaultTokenStorePath({}, '/home/a')).toBe('/home/a/.config/jumperless-mcp/tokens.json');
    expect(defaultTokenStorePath({ XDG_CONFIG_HOME: 'relative' }, '/home/a')).toBe(
      '/home/a/.config/jumperless-mcp/tokens.json',
    );
  });
});
