/**
 * Resources and prompts (MCP `resources/*`, `prompts/*`) as plain objects with their own `read` or
 * `get`: a board's are bound to that board, so a bench offers each board's under its own prefix.
 */

/** The levels of MCP `notifications/message` the server sends about its boards. */
export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error';

export type ResourceBody = { text: string } | { blob: string };

export interface ResourceReadContext {
  signal: AbortSignal;
  /** Who reads: board jobs take this caller's turn. */
  caller: string;
  /** The board view reading: its turn comes only when no caller waits for the board. */
  yields?: boolean;
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
  /**
   * What `read` draws, read but not drawn: plain data (structured-clonable) for a reader that draws
   * it elsewhere. The board view reads the board's state this way once per look and draws the
   * state document and the picture from it on its renderer thread (core/view.ts), where two reads
   * would read the board twice and draw the picture on the server's thread.
   */
  source?(context: ResourceReadContext): Promise<unknown>;
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

export type PromptContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text: string } };

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: PromptContent;
}

export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description: string;
  arguments?: readonly PromptArgument[];
  get(args: Record<string, string>): { description?: string; messages: PromptMessage[] };
  /** Suggestions for an argument being typed (`completion/complete`). */
  complete?(argument: string, value: string): string[];
}

export const userText = (text: string): PromptMessage => ({ role: 'user', content: { type: 'text', text } });

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
