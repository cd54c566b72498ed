/**
 * Resources (MCP `resources/*`): read-only views a client may attach to its context. Each one is a
 * plain object with a `read` function, so the tool groups and the conformance fixtures add their
 * own next to the board's.
 */
import type { BoardClient } from '../tools/boardClient.js';

export type ResourceBody = { text: string } | { blob: string };

export interface ResourceReadContext {
  board: BoardClient;
  signal: AbortSignal;
}

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description: string;
  mimeType: string;
  /** True when a board change may change it (subscribers then get `notifications/resources/updated`). */
  live?: boolean;
  read(context: ResourceReadContext): Promise<ResourceBody>;
}

/** A family of resources named by an RFC 6570 level-1 template, e.g. `test://template/{id}/data`. */
export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description: string;
  mimeType: string;
  read(uri: string, params: Record<string, string>, context: ResourceReadContext): Promise<ResourceBody>;
}

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
