/**
 * The federation config file (`jumperless-mcp --config bench.json`): the federation's name, the
 * wire format, the list mode and the children. Checked with zod; every error names the file and
 * the path of the bad field (`bench.json: children[1].url: ...`). Relative paths (a stdio
 * child's cwd, a `sim:parts.json`, a socket path) are relative to the file's folder, and a
 * stdio child runs in that folder unless told otherwise.
 *
 *   {
 *     "name": "bench",
 *     "wireFormat": "underscore",            // or "dot", or { "separator": "__" }
 *     "listMode": "full",                    // or "names", "discovery" (default: the client asks)
 *     "outsideLease": "claim:labgrid_place", // or "header:X-Name": who holds a board by `leaseName`
 *     "children": [
 *       { "name": "jumperless-a", "type": "jumperless", "device": "sim", "leaseName": "jumperless-3" },
 *       { "name": "esp32-p4", "type": "stdio", "command": "esp32-mcp", "args": ["--port", "/dev/ttyUSB0"] },
 *       { "name": "scope", "type": "http", "url": "http://10.0.0.7:8000/mcp", "bearerEnv": "SCOPE_TOKEN" },
 *       { "name": "lab", "type": "socket", "path": "/run/user/1000/jumperless-mcp.sock" },
 *       { "name": "shelf", "type": "federation", "children": [ ... ] }
 *     ]
 *   }
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { CAPABILITIES, type Capability } from '../core/capabilities.js';
import { LIST_MODES, type ListMode } from '../core/listModes.js';
import { leaseNameProblem, type OutsideLeaseSource, parseOutsideLeaseSource } from '../core/outsideLease.js';
import { parseDeviceUrl } from '../device/deviceUrl.js';
import { FederationError } from './errors.js';
import { subsystemNameProblem } from './wireNames.js';

interface Common {
  /** kebab-case, unique among its siblings: the prefix of the child's tools. */
  name: string;
  /** Access ring id (kebab-case), reported in health. */
  ring?: string;
}

/** Options of children whose tools the gateway cannot learn a capability or deadline for. */
interface Remote {
  /** What a caller needs for these tools. Default: `jumperless.read` for read-only tools, else `jumperless.io`. */
  capability?: Capability;
  /** The gateway's deadline per call. Default 60 000 ms. */
  timeoutMs?: number;
}

export type ChildConfig =
  | (Common & {
      type: 'jumperless';
      device: string;
      /** The outside lease name this board is bound to (a labgrid place, a Jumpstarter exporter). */
      leaseName?: string;
    })
  | (Common &
      Remote & { type: 'stdio'; command: string; args: string[]; env?: Record<string, string>; cwd: string })
  | (Common & Remote & { type: 'http'; url: string; bearer?: string })
  | (Common & Remote & { type: 'socket'; path: string })
  | (Common & { type: 'federation'; children: ChildConfig[] });

export interface FederationConfig {
  name: string;
  wireFormat: 'underscore' | 'dot' | { separator: string };
  /** Undefined: `full`, or `discovery` for clients that declare `x-deferred-tools`. */
  listMode: ListMode | undefined;
  reconnect?: { initialMs: number; maxMs: number };
  /** Where a caller's outside lease is read from (core/outsideLease.ts); `--outside-lease` overrides it. */
  outsideLease?: OutsideLeaseSource;
  children: ChildConfig[];
}

const kebab = (what: string) =>
  z.string().superRefine((value, context) => {
    const problem = subsystemNameProblem(value, what);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

const common = {
  name: kebab('subsystem name'),
  ring: kebab('ring id').optional(),
};
const remote = {
  capability: z.enum(CAPABILITIES).optional(),
  timeoutMs: z.number().int().min(1).max(3_600_000).optional(),
};
const text = z.string().min(1).max(4096);

const device = text.superRefine((value, context) => {
  try {
    parseDeviceUrl(value);
  } catch (error) {
    context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
  }
});

const httpUrl = text.superRefine((value, context) => {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    context.addIssue({ code: 'custom', message: `"${value}" is not a URL` });
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    context.addIssue({ code: 'custom', message: `use an http:// or https:// URL, not ${url.protocol}` });
  }
});

/** The file's own shape (bearerEnv is resolved away after parsing). */
type FileChild =
  | Exclude<ChildConfig, { type: 'stdio' | 'http' | 'federation' }>
  | (Common &
      Remote & { type: 'stdio'; command: string; args: string[]; env?: Record<string, string>; cwd?: string })
  | (Common & Remote & { type: 'http'; url: string; bearer?: string; bearerEnv?: string })
  | (Common & { type: 'federation'; children: FileChild[] });

const childSchema: z.ZodType<FileChild> = z.lazy(() =>
  z.discriminatedUnion('type', [
    z.strictObject({
      ...common,
      type: z.literal('jumperless'),
      device,
      leaseName: z
        .string()
        .superRefine((value, context) => {
          const problem = leaseNameProblem(value);
          if (problem) context.addIssue({ code: 'custom', message: problem });
        })
        .optional(),
    }),
    z.strictObject({
      ...common,
      ...remote,
      type: z.literal('stdio'),
      command: text,
      args: z.array(z.string().max(4096)).max(256).default([]),
      env: z
        .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'not an environment variable name'), z.string())
        .optional(),
      cwd: text.optional(),
    }),
    z
      .strictObject({
        ...common,
        ...remote,
        type: z.literal('http'),
        url: httpUrl,
        bearer: text.optional(),
        bearerEnv: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'not an environment variable name')
          .optional(),
      })
      .refine((child) => !(child.bearer && child.bearerEnv), {
        message: 'give bearer or bearerEnv, not both',
        path: ['bearerEnv'],
      }),
    z.strictObject({ ...common, ...remote, type: z.literal('socket'), path: text }),
    z.strictObject({ ...common, type: z.literal('federation'), children: children() }),
  ]),
);

function children() {
  return z
    .array(childSchema)
    .min(1, 'a federation needs at least one child')
    .max(64)
    .superRefine((list, context) => {
      const seen = new Set<string>();
      list.forEach((child, index) => {
        if (seen.has(child.name)) {
          context.addIssue({
            code: 'custom',
            message: `a second child named "${child.name}"`,
            path: [index, 'name'],
          });
        }
        seen.add(child.name);
      });
    });
}

const fileSchema = z.strictObject({
  $schema: z.string().optional(),
  name: kebab('federation name'),
  wireFormat: z
    .union(
      [
        z.enum(['underscore', 'dot']),
        z.strictObject({
          separator: z.string().regex(/^[A-Za-z0-9_-]{1,4}$/, 'use 1-4 characters of A-Z a-z 0-9 _ -'),
        }),
      ],
      { error: 'use "underscore", "dot" or {"separator": "__"} (1-4 characters of A-Z a-z 0-9 _ -)' },
    )
    .default('underscore'),
  listMode: z.enum(LIST_MODES).optional(),
  reconnect: z
    .strictObject({
      initialMs: z.number().int().min(10).max(60_000),
      maxMs: z.number().int().min(10).max(600_000),
    })
    .refine((r) => r.initialMs <= r.maxMs, { message: 'initialMs must not exceed maxMs' })
    .optional(),
  outsideLease: z
    .string()
    .transform((value, context) => {
      try {
        return parseOutsideLeaseSource(value, 'outsideLease');
      } catch (error) {
        context.addIssue({
          code: 'custom',
          message: (error as Error).message.replace(/^outsideLease: /, ''),
        });
        return z.NEVER;
      }
    })
    .optional(),
  children: children(),
});

/** `children[1].url`, `name`, `(top)`. */
function pathOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path)
    out += typeof key === 'number' ? `[${key}]` : `${out === '' ? '' : '.'}${String(key)}`;
  return out === '' ? '(top)' : out;
}

/**
 * Checks a parsed JSON value. `where` prefixes messages (the file name); `baseDir` anchors
 * relative paths; `env` resolves `bearerEnv`.
 */
export function parseFederationConfig(
  value: unknown,
  where: string,
  baseDir: string,
  env: NodeJS.ProcessEnv = process.env,
): FederationConfig {
  const parsed = fileSchema.safeParse(value);
  if (!parsed.success) {
    const lines = parsed.error.issues
      .slice(0, 20)
      .map((issue) => `${where}: ${pathOf(issue.path)}: ${issue.message}`);
    throw new FederationError(lines.join('\n'));
  }
  const { name, wireFormat, listMode, reconnect, outsideLease } = parsed.data;
  const problems: string[] = [];
  const place = (child: FileChild, at: string): ChildConfig => {
    switch (child.type) {
      case 'jumperless': {
        const url = parseDeviceUrl(child.device);
        if (url.kind === 'sim' && url.partsFile !== undefined) {
          return { ...child, device: `sim:${anchor(baseDir, url.partsFile)}` };
        }
        return child;
      }
      case 'stdio':
        return { ...child, cwd: anchor(baseDir, child.cwd ?? '.') };
      case 'socket':
        return { ...child, path: anchor(baseDir, child.path) };
      case 'http': {
        const { bearerEnv, ...rest } = child;
        if (bearerEnv === undefined) return rest;
        const bearer = env[bearerEnv];
        if (!bearer)
          problems.push(`${where}: ${at}.bearerEnv: the environment variable ${bearerEnv} is not set`);
        return { ...rest, ...(bearer ? { bearer } : {}) };
      }
      case 'federation':
        return { ...child, children: child.children.map((c, i) => place(c, `${at}.children[${i}]`)) };
    }
  };
  const placed = parsed.data.children.map((child, i) => place(child, `children[${i}]`));
  if (problems.length > 0) throw new FederationError(problems.join('\n'));
  return {
    name,
    wireFormat,
    listMode,
    ...(reconnect ? { reconnect } : {}),
    ...(outsideLease ? { outsideLease } : {}),
    children: placed,
  };
}

/** Reads and checks a config file; every failure is a FederationError that starts with the file name. */
export function loadFederationConfig(path: string, env: NodeJS.ProcessEnv = process.env): FederationConfig {
  let textValue: string;
  try {
    textValue = readFileSync(path, 'utf8');
  } catch (error) {
    throw new FederationError(
      `${path}: cannot read the federation config (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(textValue);
  } catch (error) {
    throw new FederationError(
      `${path}: not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  return parseFederationConfig(value, path, dirname(resolve(path)), env);
}

function anchor(baseDir: string, path: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}
