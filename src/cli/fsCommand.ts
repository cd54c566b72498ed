/**
 * `jumperless-mcp fs ls|get|put|rm|dump`: the board's flash from a shell, through the file tools
 * (file_list, file_read, file_delete) and the same dispatch as MCP, so the paths are checked and
 * the bytes travel exactly as for a client. Larger files than one call takes are read in parts;
 * `put` writes a whole file in one call of its own tool (fs_put, on file_write's writer), so a
 * file is replaced whole or not at all whatever its size; `dump` copies a folder tree with
 * progress on stderr.
 */
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { WRITE_CHUNK_BYTES, writeBoardFile } from '../tools/boardFileWrite.js';
import { READ_MAX_BYTES } from '../tools/files.js';
import { defineDeviceTool } from '../tools/tool.js';
import { type ProgressStream, progressOn } from './progress.js';
import { type CliApp, CliToolError, openCliApp, reportFailure } from './toolRunner.js';

/** What one file_read call moves at most (the tool's own limit: a result stays under 50 KB). */
const READ_PART_BYTES = READ_MAX_BYTES;

/**
 * `fs put`'s own tool: a whole local file in one call, whatever its size (file_write takes 128 KB
 * a call, for a model's sake), written by the same writer as file_write. Not in the catalog; its
 * deadline grows with the file (a board job per 4 KB, and the file read back once).
 */
function fsPutTool(size: number) {
  return defineDeviceTool({
    name: 'fs_put',
    title: 'Put a local file on the board',
    description: 'Write a whole file to the flash, replacing it only with overwrite (jumperless-mcp fs put).',
    group: 'files',
    kind: 'write',
    capability: 'jumperless.files',
    timeoutMs: 60_000 + Math.ceil(size / WRITE_CHUNK_BYTES) * 1_000,
    input: z.object({ path: z.string(), content: z.base64(), overwrite: z.boolean() }),
    output: z.object({
      path: z.string(),
      written_bytes: z.number(),
      size_bytes: z.number(),
      replaced: z.boolean(),
    }),
    handle: ({ path, content, overwrite }, { board, progress, signal }) =>
      writeBoardFile(board, path, Buffer.from(content, 'base64'), {
        mode: overwrite ? 'overwrite' : 'create',
        signal,
        progress,
        existsHint: 'add --overwrite to replace it.',
      }),
  });
}

export interface FsOptions {
  device: string;
  json?: boolean;
  overwrite?: boolean;
  out?: string;
}

type Io = { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream & ProgressStream };

interface Entry {
  name: string;
  kind: 'file' | 'dir';
  size_bytes: number;
}

export async function runFs(verb: string, paths: string[], options: FsOptions, io: Io): Promise<number> {
  const usage = USAGE[verb];
  if (!usage) {
    io.stderr.write(`jumperless-mcp fs: "${verb}" is not one of ${Object.keys(USAGE).join(', ')}\n`);
    return 2;
  }
  if (paths.length < usage.min || paths.length > usage.max) {
    io.stderr.write(`jumperless-mcp fs ${verb}: usage: jumperless-mcp fs ${usage.text}\n`);
    return 2;
  }
  const cli = await openCliApp(options.device);
  try {
    switch (verb) {
      case 'ls':
        return await list(cli, paths[0] ?? '/', options, io);
      case 'get':
        return await get(cli, paths[0] as string, paths[1], io);
      case 'put':
        return await put(cli, paths[0] as string, paths[1] as string, options, io);
      case 'rm':
        await cli.call('file_delete', { path: paths[0] });
        io.stderr.write(`removed ${paths[0]}\n`);
        return 0;
      default:
        return await dump(cli, paths[0] as string, options, io);
    }
  } catch (error) {
    return reportFailure(`fs ${verb}`, error, io.stderr);
  } finally {
    await cli.close();
  }
}

const USAGE: Record<string, { min: number; max: number; text: string }> = {
  ls: { min: 0, max: 1, text: 'ls [BOARD_DIR] [--json]' },
  get: { min: 1, max: 2, text: 'get BOARD_FILE [LOCAL_FILE | -]' },
  put: { min: 2, max: 2, text: 'put LOCAL_FILE BOARD_FILE [--overwrite]' },
  rm: { min: 1, max: 1, text: 'rm BOARD_FILE' },
  dump: { min: 1, max: 1, text: 'dump BOARD_DIR [--out LOCAL_DIR]' },
};

async function list(cli: CliApp, path: string, options: FsOptions, io: Io): Promise<number> {
  const listing = await cli.call('file_list', { path });
  if (options.json) {
    io.stdout.write(`${JSON.stringify(listing, null, 2)}\n`);
    return 0;
  }
  for (const entry of listing.entries as Entry[]) {
    const size = entry.kind === 'dir' ? 'dir' : String(entry.size_bytes);
    io.stdout.write(`${size.padStart(9)}  ${entry.name}${entry.kind === 'dir' ? '/' : ''}\n`);
  }
  if (listing.truncated)
    io.stderr.write('(the board lists at most about 1900 characters of names: some are missing)\n');
  io.stderr.write(`${listing.free_bytes} of ${listing.total_bytes} bytes free\n`);
  return 0;
}

/**
 * Reads a whole board file, a part per call. Progress counts bytes of the whole file once the
 * first part's answer gives its size; before that, bytes alone.
 */
async function readWhole(
  cli: CliApp,
  path: string,
  onBytes?: (done: number, total?: number) => void,
): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total: number | undefined;
  for (let offset = 0; ; ) {
    const part = await cli.call(
      'file_read',
      { path, offset_bytes: offset, max_bytes: READ_PART_BYTES },
      (done) => onBytes?.(offset + done, total),
    );
    const bytes = Buffer.from(part.content as string, part.encoding === 'base64' ? 'base64' : 'utf8');
    parts.push(bytes);
    offset += bytes.length;
    total = part.size_bytes as number;
    onBytes?.(offset, total);
    if (!part.truncated || bytes.length === 0) return Buffer.concat(parts);
  }
}

async function get(cli: CliApp, path: string, local: string | undefined, io: Io): Promise<number> {
  const progress = progressOn(io.stderr, `get ${path}`);
  const bytes = await readWhole(cli, path, (done, total) => progress.update(done, total)).finally(() =>
    progress.done(),
  );
  if (local === undefined || local === '-') io.stdout.write(bytes);
  else {
    writeFileSync(local, bytes);
    io.stderr.write(`${path} -> ${local} (${bytes.length} bytes)\n`);
  }
  return 0;
}

async function put(cli: CliApp, local: string, path: string, options: FsOptions, io: Io): Promise<number> {
  const bytes = readFileSync(local);
  const progress = progressOn(io.stderr, `put ${path}`);
  try {
    await cli.run(
      fsPutTool(bytes.length),
      { path, content: bytes.toString('base64'), overwrite: options.overwrite === true },
      (done) => progress.update(done, bytes.length),
    );
  } finally {
    progress.done();
  }
  io.stderr.write(`${local} -> ${path} (${bytes.length} bytes)\n`);
  return 0;
}

/** Copies a board folder and everything under it into a local folder. */
async function dump(cli: CliApp, dir: string, options: FsOptions, io: Io): Promise<number> {
  const progress = progressOn(io.stderr, `dump ${dir}`);
  const files: Array<{ path: string; size: number }> = [];
  const folders: string[] = [];
  const walk = async (path: string): Promise<void> => {
    const listing = await cli.call('file_list', { path });
    if (listing.truncated)
      io.stderr.write(`dump: the board's listing of ${path} is cut short: some names are missing\n`);
    for (const entry of listing.entries as Entry[]) {
      // A name is one path segment: never let one climb out of the local folder.
      if (entry.name === '.' || entry.name === '..' || /[\\/]/.test(entry.name)) {
        io.stderr.write(`dump: skipped ${JSON.stringify(entry.name)} in ${path}: not a plain name\n`);
        continue;
      }
      const child = `${path === '/' ? '' : path}/${entry.name}`;
      if (entry.kind === 'dir') {
        folders.push(child);
        await walk(child);
      } else files.push({ path: child, size: entry.size_bytes });
      progress.update(files.length, undefined, `listing ${child}`);
    }
  };
  const root = dir === '/' ? '/' : dir.replace(/\/$/, '');
  await walk(root);
  const out = resolve(options.out ?? (root === '/' ? 'board' : (root.split('/').at(-1) as string)));
  const local = (path: string) => join(out, ...path.slice(root === '/' ? 1 : root.length + 1).split('/'));
  // Everything the dump would write, checked before anything is: a link already in --out is
  // never followed (it could lead anywhere), and no path leaves --out.
  for (const path of [...folders, ...files.map((file) => file.path)]) insideOut(out, local(path));
  mkdirSync(out, { recursive: true });
  for (const folder of folders) {
    insideOut(out, local(folder));
    mkdirSync(local(folder), { recursive: true });
  }
  const total = files.reduce((sum, file) => sum + file.size, 0);
  let before = 0;
  try {
    for (const file of files) {
      const bytes = await readWhole(cli, file.path, (done) =>
        progress.update(before + done, total, file.path),
      );
      writeInside(out, local(file.path), bytes);
      before += file.size;
      progress.update(before, total, file.path);
    }
  } finally {
    progress.done(`${files.length} files, ${total} bytes -> ${out}`);
  }
  if (options.json) io.stdout.write(`${JSON.stringify({ out, files, folders }, null, 2)}\n`);
  return 0;
}

/**
 * Refuses `target` unless it lies under `out` and nothing on the way from `out` to it (itself
 * included) is a symbolic link; what does not exist yet is fine (the dump makes it). `out`
 * itself is the user's to choose.
 */
function insideOut(out: string, target: string): void {
  const rest = relative(out, target);
  if (rest === '' || rest.startsWith('..') || resolve(out, rest) !== target) {
    throw new CliToolError('bad_path', `${target} is not inside ${out}; nothing was written`, {});
  }
  let at = out;
  for (const part of rest.split(sep)) {
    at = join(at, part);
    let link: boolean;
    try {
      link = lstatSync(at).isSymbolicLink();
    } catch {
      return;
    }
    if (link) {
      throw new CliToolError(
        'unsafe_destination',
        `${at} is a symbolic link already in ${out}: dump never writes through one (it could lead anywhere); remove it or dump into an empty folder`,
        {},
      );
    }
  }
}

/** Writes a dumped file without following a link that appeared since the check (O_NOFOLLOW). */
function writeInside(out: string, target: string, bytes: Buffer): void {
  insideOut(out, target);
  const fd = openSync(
    target,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0),
    0o644,
  );
  try {
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
  } finally {
    closeSync(fd);
  }
}
