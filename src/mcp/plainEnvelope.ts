/**
 * The 2026-07-28 per-request `_meta` envelope of a request whose answer cannot depend on it, for
 * the recorded first answers (firstAnswers.ts). What the SDK accepts is wider; this is narrower on
 * purpose: anything else (an experimental capability, which may change the tool list; an icon;
 * a progress token; a key we do not know) is left to the real server, which answers it right or
 * says what is wrong with it. Imports only a JSON test: this runs before anything else is loaded.
 */
import { isRecord } from '../contract/json.js';

const VERSION = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
const ENVELOPE_KEYS = new Set([VERSION, CLIENT_INFO, CAPABILITIES, LOG_LEVEL]);
const LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
const CLIENT_INFO_STRINGS = new Set(['name', 'version', 'title', 'description', 'websiteUrl']);

/**
 * For each capability a client may declare here, the members it may have and what each holds
 * (the SDK's schema for them, which otherwise refuses the request). Not here: `experimental`
 * (how a client asks for another list: discovery mode) and `extensions` (which may change what is
 * served).
 */
const CAPABILITY_MEMBERS: Record<string, Record<string, (held: unknown) => boolean>> = {
  roots: { listChanged: (held) => typeof held === 'boolean' },
  sampling: { context: isRecord, tools: isRecord },
  elicitation: {
    form: (held) => isRecord(held) && (!('applyDefaults' in held) || typeof held.applyDefaults === 'boolean'),
    url: isRecord,
  },
};

/**
 * The protocol version `params` claims when they are exactly a plain envelope (`_meta` and nothing
 * else, holding the version, the client's name and version, plain capabilities and maybe a log
 * level); else undefined.
 */
export function plainEnvelopeVersion(params: unknown): string | undefined {
  if (!isRecord(params) || !onlyKeys(params, (key) => key === '_meta')) return undefined;
  const meta = params._meta;
  if (!isRecord(meta) || !onlyKeys(meta, (key) => ENVELOPE_KEYS.has(key))) return undefined;
  const version = meta[VERSION];
  if (typeof version !== 'string' || !isClientInfo(meta[CLIENT_INFO])) return undefined;
  if (!plainCapabilities(meta[CAPABILITIES])) return undefined;
  if (LOG_LEVEL in meta && !LEVELS.has(meta[LOG_LEVEL] as string)) return undefined;
  return version;
}

/**
 * Whether a 2025 `initialize`'s params are as plain: the version, the client's name and version,
 * plain capabilities. An experimental one is let through here: it changes only the list, which
 * the caller then leaves to the server.
 */
export function plainInitializeParams(params: Record<string, unknown>): boolean {
  const keys = new Set(['protocolVersion', 'capabilities', 'clientInfo']);
  if (!onlyKeys(params, (key) => keys.has(key)) || typeof params.protocolVersion !== 'string') return false;
  const { capabilities } = params;
  if (!isClientInfo(params.clientInfo) || !isRecord(capabilities)) return false;
  const { experimental, ...rest } = capabilities;
  return (experimental === undefined || isRecord(experimental)) && plainCapabilities(rest);
}

function isClientInfo(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.name === 'string' &&
    typeof value.version === 'string' &&
    onlyKeys(value, (key) => CLIENT_INFO_STRINGS.has(key) && typeof value[key] === 'string')
  );
}

function plainCapabilities(value: unknown): boolean {
  if (!isRecord(value)) return false;
  return onlyKeys(value, (name) => {
    const capability = value[name];
    if (!Object.hasOwn(CAPABILITY_MEMBERS, name) || !isRecord(capability)) return false;
    const members = CAPABILITY_MEMBERS[name] as Record<string, (held: unknown) => boolean>;
    return onlyKeys(capability, (member) => {
      const holds = Object.hasOwn(members, member) ? members[member] : undefined;
      return holds?.(capability[member]) === true;
    });
  });
}

function onlyKeys(record: Record<string, unknown>, allowed: (key: string) => boolean): boolean {
  return Object.keys(record).every(allowed);
}
