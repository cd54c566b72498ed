/** The prompt contract: a named, described template of messages with string arguments. */

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
