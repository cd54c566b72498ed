import {
  ANONYMOUS_CAPABILITIES,
  CAPABILITIES,
  normalizeCapabilities,
  parseCapabilityList,
} from '../core/capabilities.js';
import { CONFIRM_MODES, type ConfirmMode, DEFAULT_CONFIRM } from '../core/confirmation.js';
import { type ListMode, parseListMode } from '../core/listModes.js';
import { leaseNameProblem, type OutsideLeaseSource, parseOutsideLeaseSource } from '../core/outsideLease.js';
import { checkToolsetNames } from '../core/selection.js';
import { withSimFirmware } from '../device/deviceUrl.js';
import { defaultSocketPath } from '../device/socketPath.js';
import { DEFAULT_HTTP_PORT } from './defaults.js';
import { simFirmware } from './simFirmware.js';

/**
 * One typed Config (STYLE.md §11): defaults, then `JUMPERLESS_MCP_*` environment variables, then
 * command-line flags. The JSDoc of each field is the reference.
 */

export interface Config {
  /**
   * The board: a serial path, `auto`, `auto:<usb-location>`, `tcp://host:port` (alias
   * `socket://`), `rfc2217://host:port`, `sim` or `sim:<parts.json>`. Default `auto`. Env `JUMPERLESS_MCP_DEVICE`, flag `--device`, `--sim`.
   */
  device: string;
  /**
   * Serve Streamable HTTP on this address instead of stdio; undefined = stdio. Default host
   * 127.0.0.1. Env `JUMPERLESS_MCP_HTTP`, flag `--http [host:]port`.
   */
  http: { host: string; port: number } | undefined;
  /** Origins allowed besides loopback and tauri://, exact match. Default none. Env `JUMPERLESS_MCP_ORIGINS` (comma list), flag `--origin` (repeatable). */
  origins: string[];
  /** Append one JSON line per tool call to this file. Default none. Env `JUMPERLESS_MCP_AUDIT`, flag `--audit`. */
  audit: string | undefined;
  /** Highest supply voltage allowed (never above the board's +8 V). Default 8. Env `JUMPERLESS_MCP_MAX_VOLTS`, flag `--max-volts`. */
  maxVolts: number;
  /** Lowest supply voltage allowed (never below the board's -8 V). Default -8. Env `JUMPERLESS_MCP_MIN_VOLTS`, flag `--min-volts`. */
  minVolts: number;
  /**
   * A federation config file (federation/config.ts): serve its children (boards, MCP servers,
   * other jumperless-mcp) behind this one endpoint, tool names prefixed by child. Without it, the
   * single board of `device` with today's names. Default none. Env `JUMPERLESS_MCP_CONFIG`, flag `--config`.
   */
  federation: string | undefined;
  /**
   * What `tools/list` shows: `full`, `names` or `discovery`. Default: `full`, or `discovery` for a
   * client that declares `x-deferred-tools` (a config file may set it too). Env
   * `JUMPERLESS_MCP_LIST_MODE`, flag `--list-mode`.
   */
  listMode: ListMode | undefined;
  /**
   * The bearer token store HTTP checks tokens against (made with `jumperless-mcp tokens create`).
   * Default: the default store (`~/.config/jumperless-mcp/tokens.json`) when that file exists,
   * else none, and a request with a bearer then gets 501. Env `JUMPERLESS_MCP_TOKENS`, flag `--tokens`.
   */
  tokens: string | undefined;
  /**
   * Refuse HTTP requests without a bearer (401). Always on when bound off loopback. Default false.
   * Env `JUMPERLESS_MCP_REQUIRE_TOKEN=1`, flag `--require-token`.
   */
  requireToken: boolean;
  /**
   * What an HTTP caller without a bearer may do (then within `grant`). Default every capability
   * but exec and admin. Env `JUMPERLESS_MCP_ANONYMOUS_CAPS`, flag `--anonymous-caps` (a comma
   * list, `*` for all, `none`).
   */
  anonymousCaps: string[];
  /**
   * The operator allow-list: no caller (stdio, a bearer, an anonymous HTTP caller, a socket
   * `hello`) gets more than this. Default every capability. Env `JUMPERLESS_MCP_GRANT` (comma
   * list), flag `--grant-capability` (repeatable, commas allowed).
   */
  grant: string[];
  /**
   * Also serve the native socket (mode 0600) at this path, next to stdio or HTTP. Default none;
   * `--socket` alone: `$XDG_RUNTIME_DIR/jumperless-mcp.sock`, else a private folder in the temp
   * dir. Env `JUMPERLESS_MCP_SOCKET`, flag `--socket [path]`.
   */
  socket: string | undefined;
  /**
   * Output schemas in `tools/list` (models never see them; results carry `structuredContent`
   * either way). Default false. Env `JUMPERLESS_MCP_OUTPUT_SCHEMAS=1`, flag `--output-schemas`.
   */
  outputSchemas: boolean;
  /**
   * Toolsets on at start (tools/toolsets.ts: wiring, power, measure, io, display, user, slots,
   * files, system, exec); the rest can be turned on with `toolset_enable`. Default all. Env
   * `JUMPERLESS_MCP_TOOLSETS` (comma list), flag `--toolsets`.
   */
  toolsets: string[] | undefined;
  /** Single tools on besides the toolsets'. Env `JUMPERLESS_MCP_TOOLS`, flag `--tools` (comma list). */
  tools: string[];
  /** Tools off by name. Env `JUMPERLESS_MCP_EXCLUDE_TOOLS`, flag `--exclude-tools` (comma list). */
  excludeTools: string[];
  /** Only tools that change nothing. Default false. Env `JUMPERLESS_MCP_READ_ONLY=1`, flag `--read-only`. */
  readOnly: boolean;
  /**
   * When the person at the client is asked before a hazard (core/confirmation.ts): `hazards` asks
   * when the client can, `always` refuses a hazard to a client that cannot ask, `never` never asks.
   * Default hazards. Env `JUMPERLESS_MCP_CONFIRM`, flag `--confirm`.
   */
  confirm: ConfirmMode;
  /** A supply set above this many volts (either sign) asks first. Default 5. Env `JUMPERLESS_MCP_CONFIRM_ABOVE_VOLTS`, flag `--confirm-above-volts`. */
  confirmAboveVolts: number;
  /**
   * Where the board view reads (issue 25): the board's telemetry port (CDC3), so watching never
   * takes a turn at the REPL. `auto` finds it beside the REPL by its answer; `off` reads through the
   * REPL, yielding to every caller; a path names it. Default auto. Env `JUMPERLESS_MCP_TELEMETRY`,
   * flag `--telemetry`.
   */
  telemetry: string;
  /**
   * Where an HTTP caller's outside lease is read (core/outsideLease.ts): `claim:<name>` of its bearer
   * token, or `header:<Name>` from a proxy on this machine. A caller presenting the name a board is
   * bound to holds that board. Default none (a bench's `outsideLease`). Env
   * `JUMPERLESS_MCP_OUTSIDE_LEASE`, flag `--outside-lease`.
   */
  outsideLease: OutsideLeaseSource | undefined;
  /**
   * The outside lease name the single board is bound to (a labgrid place, a Jumpstarter exporter);
   * a bench binds each board with its `leaseName`. Env `JUMPERLESS_MCP_LEASE_NAME`, flag `--lease-name`.
   */
  leaseName: string | undefined;
}

export const DEFAULT_CONFIG: Config = {
  device: 'auto',
  http: undefined,
  origins: [],
  audit: undefined,
  maxVolts: 8,
  minVolts: -8,
  federation: undefined,
  listMode: undefined,
  tokens: undefined,
  requireToken: false,
  anonymousCaps: [...ANONYMOUS_CAPABILITIES],
  grant: normalizeCapabilities(CAPABILITIES),
  socket: undefined,
  outputSchemas: false,
  toolsets: undefined,
  tools: [],
  excludeTools: [],
  readOnly: false,
  confirm: DEFAULT_CONFIRM.mode,
  confirmAboveVolts: DEFAULT_CONFIRM.aboveVolts,
  telemetry: 'auto',
  outsideLease: undefined,
  leaseName: undefined,
};

/** Flags as commander gives them (all optional). */
export interface Flags {
  device?: string;
  sim?: string | boolean;
  /** The virtual board's firmware release (`--firmware`); only with a `sim` device. */
  firmware?: string;
  http?: string | boolean;
  origin?: string[];
  audit?: string;
  maxVolts?: string;
  minVolts?: string;
  config?: string;
  listMode?: string;
  tokens?: string;
  requireToken?: boolean;
  anonymousCaps?: string;
  grantCapability?: string[];
  socket?: string | boolean;
  outputSchemas?: boolean;
  toolsets?: string;
  tools?: string;
  excludeTools?: string;
  readOnly?: boolean;
  confirm?: string;
  confirmAboveVolts?: string;
  telemetry?: string;
  outsideLease?: string;
  leaseName?: string;
}

/** `--firmware` picks the virtual board's release; a real board runs its own. */
export function simWithFirmware(device: string, firmware: string): string {
  if (!device.startsWith('sim')) {
    throw new Error("--firmware chooses the virtual board's firmware: use it with --sim or --device sim");
  }
  simFirmware(firmware);
  return withSimFirmware(device, firmware);
}

export function resolveConfig(flags: Flags, env: NodeJS.ProcessEnv = process.env): Config {
  const config: Config = {
    ...DEFAULT_CONFIG,
    origins: [],
    anonymousCaps: [...DEFAULT_CONFIG.anonymousCaps],
    grant: [...DEFAULT_CONFIG.grant],
  };
  const e = (name: string) => {
    const value = env[`JUMPERLESS_MCP_${name}`];
    return value === undefined || value === '' ? undefined : value;
  };
  if (e('DEVICE')) config.device = e('DEVICE') as string;
  if (e('HTTP')) config.http = parseHttp(e('HTTP') as string);
  if (e('ORIGINS'))
    config.origins = (e('ORIGINS') as string)
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
  if (e('AUDIT')) config.audit = e('AUDIT');
  if (e('MAX_VOLTS')) config.maxVolts = parseVolts(e('MAX_VOLTS') as string, 'JUMPERLESS_MCP_MAX_VOLTS');
  if (e('MIN_VOLTS')) config.minVolts = parseVolts(e('MIN_VOLTS') as string, 'JUMPERLESS_MCP_MIN_VOLTS');

  if (flags.device !== undefined) config.device = flags.device;
  if (flags.sim !== undefined && flags.sim !== false)
    config.device = flags.sim === true ? 'sim' : `sim:${flags.sim}`;
  if (flags.firmware !== undefined) config.device = simWithFirmware(config.device, flags.firmware);
  if (flags.http !== undefined && flags.http !== false) {
    config.http =
      flags.http === true ? { host: '127.0.0.1', port: DEFAULT_HTTP_PORT } : parseHttp(flags.http);
  }
  if (flags.origin?.length) config.origins = [...config.origins, ...flags.origin];
  if (flags.audit !== undefined) config.audit = flags.audit;
  if (flags.maxVolts !== undefined) config.maxVolts = parseVolts(flags.maxVolts, '--max-volts');
  if (flags.minVolts !== undefined) config.minVolts = parseVolts(flags.minVolts, '--min-volts');
  if (e('CONFIG')) config.federation = e('CONFIG');
  if (flags.config !== undefined) config.federation = flags.config;
  if (e('LIST_MODE')) config.listMode = parseListMode(e('LIST_MODE') as string, 'JUMPERLESS_MCP_LIST_MODE');
  if (flags.listMode !== undefined) config.listMode = parseListMode(flags.listMode, '--list-mode');
  if (config.federation && (flags.device !== undefined || (flags.sim !== undefined && flags.sim !== false))) {
    throw new Error('--config serves the boards its children name: leave out --device and --sim');
  }
  if (e('TOKENS')) config.tokens = e('TOKENS');
  if (flags.tokens !== undefined) config.tokens = flags.tokens;
  if (e('REQUIRE_TOKEN')) config.requireToken = /^(1|true|yes)$/i.test(e('REQUIRE_TOKEN') as string);
  if (flags.requireToken) config.requireToken = true;
  if (e('ANONYMOUS_CAPS'))
    config.anonymousCaps = parseCaps(e('ANONYMOUS_CAPS') as string, 'JUMPERLESS_MCP_ANONYMOUS_CAPS');
  if (flags.anonymousCaps !== undefined)
    config.anonymousCaps = parseCaps(flags.anonymousCaps, '--anonymous-caps');
  if (e('GRANT')) config.grant = parseCaps(e('GRANT') as string, 'JUMPERLESS_MCP_GRANT');
  if (flags.grantCapability?.length)
    config.grant = parseCaps(flags.grantCapability.join(','), '--grant-capability');
  if (e('SOCKET')) config.socket = e('SOCKET');
  if (flags.socket !== undefined && flags.socket !== false)
    config.socket = flags.socket === true ? defaultSocketPath(env) : flags.socket;
  const yes = (text: string | undefined) => text !== undefined && /^(1|true|yes)$/i.test(text);
  if (e('OUTPUT_SCHEMAS')) config.outputSchemas = yes(e('OUTPUT_SCHEMAS'));
  if (flags.outputSchemas) config.outputSchemas = true;
  if (e('READ_ONLY')) config.readOnly = yes(e('READ_ONLY'));
  if (flags.readOnly) config.readOnly = true;
  const confirm = flags.confirm ?? e('CONFIRM');
  if (confirm !== undefined)
    config.confirm = parseConfirm(
      confirm,
      flags.confirm === undefined ? 'JUMPERLESS_MCP_CONFIRM' : '--confirm',
    );
  const above = flags.confirmAboveVolts ?? e('CONFIRM_ABOVE_VOLTS');
  if (above !== undefined) {
    const what =
      flags.confirmAboveVolts === undefined ? 'JUMPERLESS_MCP_CONFIRM_ABOVE_VOLTS' : '--confirm-above-volts';
    config.confirmAboveVolts = Math.abs(parseVolts(above, what));
  }
  const telemetry = flags.telemetry ?? e('TELEMETRY');
  if (telemetry !== undefined) config.telemetry = telemetry;
  const toolsets = flags.toolsets ?? e('TOOLSETS');
  if (toolsets !== undefined) {
    config.toolsets = checkToolsetNames(
      commaList(toolsets),
      flags.toolsets === undefined ? 'JUMPERLESS_MCP_TOOLSETS' : '--toolsets',
    );
  }
  const tools = flags.tools ?? e('TOOLS');
  if (tools !== undefined) config.tools = commaList(tools);
  const excluded = flags.excludeTools ?? e('EXCLUDE_TOOLS');
  if (excluded !== undefined) config.excludeTools = commaList(excluded);
  const outside = flags.outsideLease ?? e('OUTSIDE_LEASE');
  if (outside !== undefined)
    config.outsideLease = parseOutsideLeaseSource(
      outside,
      flags.outsideLease === undefined ? 'JUMPERLESS_MCP_OUTSIDE_LEASE' : '--outside-lease',
    );
  const leaseName = flags.leaseName ?? e('LEASE_NAME');
  if (leaseName !== undefined) {
    const what = flags.leaseName === undefined ? 'JUMPERLESS_MCP_LEASE_NAME' : '--lease-name';
    const problem = leaseNameProblem(leaseName);
    if (problem) throw new Error(`${what}: ${problem}`);
    if (config.federation)
      throw new Error(`${what} binds the single board: with --config, give each board its "leaseName"`);
    config.leaseName = leaseName;
  }
  if (config.minVolts > config.maxVolts) {
    throw new Error(`the minimum voltage ${config.minVolts} V is above the maximum ${config.maxVolts} V`);
  }
  return config;
}

function commaList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** `8931`, `127.0.0.1:8931`, `[::1]:8931`, `localhost:0`. */
export function parseHttp(text: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65535)
    throw new Error(`cannot listen on "${text}": use [host:]port, e.g. 8931 or 127.0.0.1:8931`);
  return { host: (match[1] ?? '127.0.0.1').replace(/^\[|\]$/g, ''), port };
}

/** `jumperless.read,jumperless.wire`, `*` for all, `none` for nothing; unknown names refused. */
function parseCaps(text: string, what: string): string[] {
  if (text.trim() === 'none') return [];
  const parsed = parseCapabilityList(text);
  if (!parsed.ok) throw new Error(`${what}: ${parsed.message}`);
  return parsed.capabilities;
}

function parseConfirm(text: string, what: string): ConfirmMode {
  const mode = text.trim().toLowerCase();
  if (!(CONFIRM_MODES as readonly string[]).includes(mode))
    throw new Error(`${what}: "${text}" is not one of ${CONFIRM_MODES.join(', ')}`);
  return mode as ConfirmMode;
}

function parseVolts(text: string, what: string): number {
  const volts = Number(text);
  if (text.trim() === '' || !Number.isFinite(volts))
    throw new Error(`${what}: "${text}" is not a number of volts`);
  // The operator may only tighten the board's envelope (spec: supplies -8..+8 V), never widen it.
  if (volts < -8 || volts > 8) {
    throw new Error(`${what}: ${volts} V is outside what the board's supplies can do (-8 to +8 V)`);
  }
  return volts;
}

/** A TCP port for `start --port`: 0-65535 (0 takes a free one). */
export function parsePort(text: string, what: string): number {
  const port = Number(text);
  if (!/^\d{1,5}$/.test(text.trim()) || port > 65535) {
    throw new Error(`${what}: "${text}" is not a TCP port (0-65535; 0 takes a free one)`);
  }
  return port;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
