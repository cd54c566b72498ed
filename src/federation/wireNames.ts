/**
 * Wire names (DESIGN.md §4 "Names", dispatch notes §6): internal names are dotted
 * (`jumperless-a.dac_set`, nested `bench.jumperless.dac_set`); a translator gives the name
 * clients see. Only the outbound direction is a function: the inbound direction is the exact
 * table built from every child's catalog, so a wire name is valid if and only if it is in it
 * (no prefix guessing: `jumperless-a_` is not `jumperless-a.` with an empty tool).
 */
import { FederationError } from './errors.js';

export interface WireNameTranslator {
  /** For messages and health, e.g. `underscore`. */
  readonly label: string;
  /** Internal dotted name -> wire name. */
  outbound(internal: string): string;
  /** Whether wire names may keep dots (only the `dot` format, for clients known to accept them). */
  readonly keepsDots?: boolean;
}

/** The default: dots become `_`. Safe with every client we know of. */
export const underscoreFormat: WireNameTranslator = {
  label: 'underscore',
  outbound: (internal) => internal.replaceAll('.', '_'),
};

/** Identity: for private deployments whose clients accept dots in tool names (MCP 2025-11-25 allows them). */
export const dotFormat: WireNameTranslator = {
  label: 'dot',
  outbound: (internal) => internal,
  keepsDots: true,
};

/** A custom translator that puts `separator` where the dots were, e.g. `__`. */
export function separatorFormat(separator: string): WireNameTranslator {
  if (!/^[A-Za-z0-9_-]{1,4}$/.test(separator)) {
    throw new FederationError(
      `wire name separator ${JSON.stringify(separator)} must be 1-4 characters of A-Z a-z 0-9 _ -`,
    );
  }
  return {
    label: `separator ${JSON.stringify(separator)}`,
    outbound: (internal) => internal.replaceAll('.', separator),
  };
}

export type WireFormatSpec = 'underscore' | 'dot' | { separator: string } | WireNameTranslator;

export function wireFormat(spec: WireFormatSpec = 'underscore'): WireNameTranslator {
  if (spec === 'underscore') return underscoreFormat;
  if (spec === 'dot') return dotFormat;
  if ('separator' in spec) return separatorFormat(spec.separator);
  return spec;
}

/** Longest wire name (the limit several clients enforce). */
export const MAX_WIRE_NAME = 64;

const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Why a subsystem (or ring) name is refused, or undefined when it is fine. kebab-case only: with
 * underscores, the wire name `esp32_p4_some_tool` could be subsystem `esp32_p4` + tool
 * `some_tool` or subsystem `esp32` + tool `p4_some_tool`; the dot->underscore translation never
 * makes a hyphen, so hyphens stay unambiguous (rule D9).
 */
export function subsystemNameProblem(name: string, what = 'subsystem name'): string | undefined {
  if (KEBAB.test(name)) return undefined;
  const shown = JSON.stringify(name);
  if (name.includes('_')) {
    const kebab = name.toLowerCase().replaceAll('_', '-');
    const [head = name, ...rest] = name.split('_');
    return (
      `${what} ${shown} is not kebab-case: use ${JSON.stringify(kebab)}. Underscores are refused because ` +
      `a wire name such as "${name}_some_tool" would be ambiguous: ${what} "${name}" with tool "some_tool", ` +
      `or ${what} "${head}" with tool "${rest.join('_')}_some_tool".`
    );
  }
  if (name.includes('.'))
    return `${what} ${shown} must not contain dots: dots separate names inside a federation`;
  return `${what} ${shown} is not kebab-case: use lower-case letters and digits in words joined by single hyphens, e.g. "esp32-p4"`;
}

export function checkSubsystemName(name: string, what = 'subsystem name'): void {
  const problem = subsystemNameProblem(name, what);
  if (problem) throw new FederationError(problem);
}

/** Why a wire name cannot be sent to clients, or undefined. */
export function wireNameProblem(wire: string, translator: WireNameTranslator): string | undefined {
  if (wire.length === 0) return 'it is empty';
  if (wire.length > MAX_WIRE_NAME) {
    return `it is ${wire.length} characters long (at most ${MAX_WIRE_NAME}); choose a shorter subsystem name`;
  }
  const allowed = translator.keepsDots ? /^[A-Za-z0-9_.-]+$/ : /^[A-Za-z0-9_-]+$/;
  if (!allowed.test(wire)) {
    return `it holds characters outside ${translator.keepsDots ? 'A-Z a-z 0-9 _ - .' : 'A-Z a-z 0-9 _ -'}`;
  }
  return undefined;
}

export interface WireEntry<T> {
  wire: string;
  internal: string;
  item: T;
}

/**
 * The exact inbound table: wire name -> entry. Built once every child has connected, and again
 * whenever a catalog changes.
 */
export class WireTable<T> {
  private constructor(
    private readonly byWire: ReadonlyMap<string, WireEntry<T>>,
    /** Entries left out, each with why (a collision names both tools). */
    readonly problems: readonly string[],
  ) {}

  /**
   * Translates every item's internal name. A wire name two items share, or one clients cannot
   * take, is a problem: the first item keeps a shared name and the others are left out.
   */
  static build<T>(
    items: Iterable<T>,
    internalOf: (item: T) => string,
    translator: WireNameTranslator,
  ): WireTable<T> {
    const byWire = new Map<string, WireEntry<T>>();
    const problems: string[] = [];
    for (const item of items) {
      const internal = internalOf(item);
      const wire = translator.outbound(internal);
      const bad = wireNameProblem(wire, translator);
      if (bad) {
        problems.push(`tool ${internal}: wire name ${JSON.stringify(wire)} is refused: ${bad}`);
        continue;
      }
      const first = byWire.get(wire);
      if (first) {
        problems.push(
          first.internal === internal
            ? `tool ${internal} is offered twice`
            : `tools ${first.internal} and ${internal} would share the wire name ${JSON.stringify(wire)} (${translator.label} format): rename a subsystem`,
        );
        continue;
      }
      byWire.set(wire, { wire, internal, item });
    }
    return new WireTable(byWire, problems);
  }

  /** Throws a FederationError listing every problem; for start-up, where any problem refuses to start. */
  assertClean(): this {
    if (this.problems.length > 0) {
      throw new FederationError(`cannot name the federated tools:\n  ${this.problems.join('\n  ')}`);
    }
    return this;
  }

  /** Exact lookup: undefined for anything not in the table (`subsystem_`, a typo, an internal name). */
  resolve(wire: string): WireEntry<T> | undefined {
    return this.byWire.get(wire);
  }

  entries(): IterableIterator<WireEntry<T>> {
    return this.byWire.values();
  }

  get size(): number {
    return this.byWire.size;
  }
}
