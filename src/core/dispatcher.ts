/**
 * One server's core, the same for one board and for a bench (issue 11 "one app"): the registry
 * over a root subsystem, the server's own tools, the resources and prompts (the root's, with a
 * bench's prefixed, plus the server's own), the audit sink, and the listeners transports follow
 * (board changes for resource updates, link events for log messages). Transports hold one and
 * call `runTool` with it.
 */
import { underscoreFormat, type WireNameTranslator } from '../federation/wireNames.js';
import type { AuditSink } from './audit.js';
import { type ConfirmPolicy, DEFAULT_CONFIRM } from './confirmation.js';
import { OpenQuestions } from './questions.js';
import { buildRegistry, type Registry } from './registry.js';
import type { LogLevel, Prompt, Resource, ResourceTemplate } from './resources.js';
import { createSelection, type Selection, type SelectionOptions, toolsetTool } from './selection.js';
import type { Subsystem } from './subsystem.js';
import type { BoardTelemetry } from './telemetry.js';
import type { AnyTool } from './toolDefinition.js';
import { discoveryTools } from './toolSearch.js';
import { ToolSubsystem } from './toolSubsystem.js';

export interface ServerExtras {
  /** Tools that need no board (fixtures), under their own names. */
  tools?: readonly AnyTool[];
  resources?: readonly Resource[];
  templates?: readonly ResourceTemplate[];
  prompts?: readonly Prompt[];
}

export interface DispatcherOptions {
  /** What the server serves: a board, a bench, or any subsystem. */
  root: Subsystem;
  /** Wire names of dotted (bench) names; default underscores. */
  format?: WireNameTranslator;
  /** The server's own additions, next to the root's. */
  own?: ServerExtras;
  audit?: AuditSink;
  /** Deadline of a tool that names none. Default 10 000 ms. */
  defaultTimeoutMs?: number;
  /** Where registry problems are told (default stderr). */
  log?: (line: string) => void;
  /** Output schemas in `tools/list` and tools_describe (`--output-schemas`); default off. */
  outputSchemas?: boolean;
  /** Which tools are on (toolsets, single tools, read-only); default all. */
  selection?: SelectionOptions;
  /** When a person is asked before a hazard (`--confirm`); default hazards above 5 V. */
  confirm?: ConfirmPolicy;
  /** The board's telemetry port, when it has one (the board view reads there, not at the REPL). */
  telemetry?: () => Promise<BoardTelemetry | undefined>;
}

export interface Dispatcher {
  readonly root: Subsystem;
  readonly registry: Registry;
  /** Where runTool writes each call's audit event: the operator's file and the call listeners. */
  readonly audit: AuditSink | undefined;
  /** Called with every tool call's audit event (the board view's log); returns the unsubscribe. */
  onCall(listener: AuditSink): () => void;
  readonly defaultTimeoutMs: number;
  readonly outputSchemas: boolean;
  readonly selection: Selection;
  readonly confirm: ConfirmPolicy;
  /** Hazard questions open while their calls wait; the board's app may answer them (questions.ts). */
  readonly questions: OpenQuestions;
  resources(): readonly Resource[];
  templates(): readonly ResourceTemplate[];
  /** Prompts by wire name (a bench's carry the device prefix in the wire format). */
  prompts(): readonly Prompt[];
  /** Called with the tool's name after a tool that may change the board succeeded. */
  onBoardChange(listener: (tool: string) => void): () => void;
  boardChanged(tool: string): void;
  /** Called with each tool call that succeeded, its arguments and result (the board view's readings). */
  onResult(listener: ResultListener): () => void;
  /** Undefined while nobody listens, so a call then spends nothing on it. */
  readonly resultSink: ResultListener | undefined;
  /** The board's telemetry port, when it has one open or found; undefined: read through the REPL. */
  telemetry(): Promise<BoardTelemetry | undefined>;
  /** What the root tells about its boards' links (unplugged, back, reset). */
  onLog(listener: (level: LogLevel, text: string) => void): () => void;
  close(): void;
}

/** A tool call that succeeded: its name, its arguments and its structured result. */
export type ResultListener = (
  tool: string,
  args: unknown,
  result: Record<string, unknown> | undefined,
) => void;

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { root } = options;
  const format = options.format ?? underscoreFormat;
  const own = options.own ?? {};
  // tools_search and tools_describe: hidden, listed only in the names and discovery list modes.
  let registry: Registry | undefined;
  const selection = createSelection(options.selection);
  const meta = [
    ...discoveryTools(() => registry as Registry, options.outputSchemas === true, selection),
    toolsetTool(selection, () => registry?.announce()),
  ];
  registry = buildRegistry({
    root,
    format,
    own: new ToolSubsystem({ name: 'own', tools: [...(own.tools ?? []), ...meta] }),
    ...(options.log ? { log: options.log } : {}),
  });
  const changes = new Set<(tool: string) => void>();
  const results = new Set<ResultListener>();
  const resultFanOut: ResultListener = (tool, args, result) => {
    for (const listener of results) listener(tool, args, result);
  };
  const logs = new Set<(level: LogLevel, text: string) => void>();
  const unwatch = root.watch((event) => {
    if (event.type === 'log') for (const listener of logs) listener(event.level, event.text);
  });
  // The audit sink is undefined while nobody listens, so a call then spends nothing on it.
  const callListeners = new Set<AuditSink>();
  const fileSink = options.audit;
  const fanOut: AuditSink = (event) => {
    fileSink?.(event);
    for (const listener of callListeners) listener(event);
  };
  let audit: AuditSink | undefined = fileSink;
  const wirePrompt = (prompt: Prompt): Prompt =>
    prompt.name.includes('.') ? { ...prompt, name: format.outbound(prompt.name) } : prompt;
  return {
    root,
    registry,
    get audit() {
      return audit;
    },
    onCall(listener) {
      callListeners.add(listener);
      audit = fanOut;
      return () => {
        callListeners.delete(listener);
        if (callListeners.size === 0) audit = fileSink;
      };
    },
    defaultTimeoutMs: options.defaultTimeoutMs ?? 10_000,
    outputSchemas: options.outputSchemas === true,
    selection,
    confirm: options.confirm ?? DEFAULT_CONFIRM,
    questions: new OpenQuestions(),
    resources: () => [...(root.resources?.() ?? []), ...(own.resources ?? [])],
    templates: () => [...(root.templates?.() ?? []), ...(own.templates ?? [])],
    prompts: () => [...(root.prompts?.() ?? []).map(wirePrompt), ...(own.prompts ?? [])],
    onBoardChange(listener) {
      changes.add(listener);
      return () => changes.delete(listener);
    },
    boardChanged(tool) {
      for (const listener of changes) listener(tool);
    },
    onResult(listener) {
      results.add(listener);
      return () => results.delete(listener);
    },
    get resultSink() {
      return results.size > 0 ? resultFanOut : undefined;
    },
    telemetry: async () => (options.telemetry ? options.telemetry().catch(() => undefined) : undefined),
    onLog(listener) {
      logs.add(listener);
      return () => logs.delete(listener);
    },
    close() {
      unwatch();
      registry?.close();
    },
  };
}

/** Where a change goes: to one connection's client, or to every `subscriptions/listen` stream. */
export interface ChangeSink {
  resourceUpdated(uri: string): void;
  toolsChanged(): void;
  log?(level: LogLevel, text: string): void;
}

/** Follows the board (every live resource changes with it), the catalog and the links' events. */
export function followChanges(dispatcher: Dispatcher, sink: ChangeSink): () => void {
  const unfollowBoard = dispatcher.onBoardChange(() => {
    for (const resource of dispatcher.resources()) if (resource.live) sink.resourceUpdated(resource.uri);
  });
  const unfollowTools = dispatcher.registry.onChange(() => sink.toolsChanged());
  const unfollowLogs = sink.log ? dispatcher.onLog((level, text) => sink.log?.(level, text)) : () => {};
  return () => {
    unfollowBoard();
    unfollowTools();
    unfollowLogs();
  };
}
