/**
 * What a tool call returns on every transport (STYLE.md §4, DESIGN.md §3): the content blocks, the
 * JSON object and the failure shape, and the one renderer of both, so stdio, HTTP and the socket
 * send the same bytes. Pure.
 */

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource_link'; uri: string; name: string; mimeType?: string; description?: string }
  | {
      type: 'resource';
      resource:
        | { uri: string; mimeType?: string; text: string }
        | { uri: string; mimeType?: string; blob: string };
    };

export interface ToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: true;
  [key: string]: unknown;
}

/** What a tool failure says: a machine code, one actionable sentence, whether a retry may help. */
export interface ToolFailure {
  code: string;
  message: string;
  retryable: boolean;
  [detail: string]: unknown;
}

/** A successful call: the JSON text mirror first, then any pictures or other content. */
export function renderResult(data: Record<string, unknown>, extra: readonly ContentBlock[] = []): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }, ...extra], structuredContent: data };
}

/**
 * A failed call. No `structuredContent`: clients check it against the tool's output schema even
 * on errors (the SDK's Client.callTool), so the failure travels only as the JSON text.
 */
export function renderFailure(failure: ToolFailure): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(failure) }], isError: true };
}
