/** Resource URIs: matching a URI against an RFC 6570 level-1 template. */

/** Matches a URI against a level-1 template; the parameters, or undefined. */
export function matchTemplate(template: string, uri: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template
    .split(/(\{[A-Za-z0-9_]+\})/)
    .map((part) => {
      const name = /^\{([A-Za-z0-9_]+)\}$/.exec(part)?.[1];
      if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(name);
      return '([^/?#]+)';
    })
    .join('');
  const match = new RegExp(`^${pattern}$`).exec(uri);
  if (!match) return undefined;
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? '')]));
}
