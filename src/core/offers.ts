/**
 * What a server offers besides tools, for one caller: resources, resource templates, prompts and
 * completions (MCP `resources/*`, `prompts/*`, `completion/complete`). They show the board, so a
 * caller needs `jumperless.read` for them, as for tools: lists are empty without it, a read or a
 * get is refused with the capability-denied error.
 */
import { type Capability, denied } from './capabilities.js';
import type { Dispatcher } from './dispatcher.js';
import { JSONRPC, RpcError } from './errors.js';
import { failureOf } from './failure.js';
import { matchTemplate, type ResourceBody } from './resources.js';
import type { Caller } from './runTool.js';

const READ: Capability = 'jumperless.read';

const mayRead = (caller: Caller) => caller.granted.has(READ);

/** Refuses a caller who may not read `what` (a URI, a prompt's name). */
export function mustRead(caller: Caller, what: string): void {
  if (!mayRead(caller)) throw denied(what, READ, caller.granted);
}

export function listResources(dispatcher: Dispatcher, caller: Caller) {
  if (!mayRead(caller)) return [];
  return dispatcher.resources().map(({ uri, name, title, description, mimeType }) => ({
    uri,
    name,
    ...(title ? { title } : {}),
    description,
    mimeType,
  }));
}

export function listTemplates(dispatcher: Dispatcher, caller: Caller) {
  if (!mayRead(caller)) return [];
  return dispatcher.templates().map(({ uriTemplate, name, title, description, mimeType }) => ({
    uriTemplate,
    name,
    ...(title ? { title } : {}),
    description,
    mimeType,
  }));
}

export type ResourceContents = Array<{ uri: string; mimeType: string } & ResourceBody>;

/**
 * A resource or a templated one by URI. Not found: -32602 with data `{ uri }` (MCP 2026-07-28; a
 * 2025 connection sends it as -32002, mcp/legacyCodes.ts). A failing read is a -32603 with the
 * failure's code, as the resource has no result of its own to carry it.
 */
export async function readResource(
  dispatcher: Dispatcher,
  caller: Caller,
  uri: string,
  signal: AbortSignal,
  options: { yields?: boolean } = {},
): Promise<ResourceContents> {
  mustRead(caller, uri);
  const context = { signal, caller: caller.id, ...(options.yields ? { yields: true } : {}) };
  try {
    const resource = dispatcher.resources().find((r) => r.uri === uri);
    if (resource) return [{ uri, mimeType: resource.mimeType, ...(await resource.read(context)) }];
    for (const template of dispatcher.templates()) {
      const params = matchTemplate(template.uriTemplate, uri);
      if (params)
        return [{ uri, mimeType: template.mimeType, ...(await template.read(uri, params, context)) }];
    }
  } catch (error) {
    throw asRpcError(error, uri);
  }
  throw new RpcError(JSONRPC.invalidParams, `Resource not found: ${uri}`, { uri });
}

/**
 * What a resource draws, read but not drawn (`Resource.source`): for the board view, which draws
 * it off the server's thread. Refused and failing as `readResource` is; a resource with no source
 * is not found.
 */
export async function readResourceSource(
  dispatcher: Dispatcher,
  caller: Caller,
  uri: string,
  signal: AbortSignal,
  options: { yields?: boolean } = {},
): Promise<unknown> {
  mustRead(caller, uri);
  const resource = dispatcher.resources().find((r) => r.uri === uri);
  if (!resource?.source) throw new RpcError(JSONRPC.invalidParams, `No source for resource: ${uri}`, { uri });
  const context = { signal, caller: caller.id, ...(options.yields ? { yields: true } : {}) };
  try {
    return await resource.source(context);
  } catch (error) {
    throw asRpcError(error, uri);
  }
}

/** A failing read is a -32603 with the failure's code, as the resource has no result of its own to carry it. */
function asRpcError(error: unknown, uri: string): RpcError {
  const failure = failureOf(error, uri);
  if (failure instanceof RpcError) return failure;
  return new RpcError(JSONRPC.internalError, failure.message, {
    code: failure.code,
    retryable: failure.retryable,
  });
}

export function listPrompts(dispatcher: Dispatcher, caller: Caller) {
  if (!mayRead(caller)) return [];
  return dispatcher.prompts().map(({ name, title, description, arguments: args }) => ({
    name,
    ...(title ? { title } : {}),
    description,
    ...(args ? { arguments: args.map((a) => ({ ...a })) } : {}),
  }));
}

export function getPrompt(
  dispatcher: Dispatcher,
  caller: Caller,
  name: string,
  args: Record<string, string>,
) {
  mustRead(caller, name);
  const prompt = dispatcher.prompts().find((p) => p.name === name);
  if (!prompt) throw new RpcError(JSONRPC.invalidParams, `Unknown prompt: ${name}`);
  const missing = (prompt.arguments ?? []).filter((a) => a.required && !args[a.name]).map((a) => a.name);
  if (missing.length > 0) {
    throw new RpcError(JSONRPC.invalidParams, `Prompt ${prompt.name} needs ${missing.join(', ')}`, {
      missing,
    });
  }
  return prompt.get(args);
}

/** Suggestions for a prompt argument being typed; nothing for other references. */
export function complete(
  dispatcher: Dispatcher,
  caller: Caller,
  ref: { type: string; name?: string },
  argument: { name: string; value: string },
) {
  const prompt =
    ref.type === 'ref/prompt' && mayRead(caller)
      ? dispatcher.prompts().find((p) => p.name === ref.name)
      : undefined;
  const values = prompt?.complete?.(argument.name, argument.value) ?? [];
  return { values: values.slice(0, 100), total: values.length, hasMore: false };
}
