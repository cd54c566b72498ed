/**
 * The board's flash filesystem (one FAT volume; lib/FatFS as JumperlOS configures it). Contents
 * travel as hex both ways (exact bytes, and only `[0-9a-f]` inside the Python literal), at most
 * TRANSFER_CHUNK_BYTES per board job, and every job opens, works on and closes its own file: no
 * handle outlives a job, so nothing depends on what the board keeps between jobs.
 *
 * What the board does that the tools plan for:
 * - Names match in any case (FatFS ff.cpp:2075-2092): existence and kind come from `os.stat`, never
 *   from comparing listed names, so `/CONFIG.TXT` is found as `/config.txt`.
 * - `os.stat`'s size may come from another entry (JumperlessMicroPythonAPI.cpp:2400-2426); a file's
 *   size is read with `jfs.stat`, which opens it.
 * - Listings are one comma-joined C string cut after 1900 characters, without names starting with
 *   `.` (JumperlessMicroPythonAPI.cpp:2314-2358).
 * - Mode `a` truncates the file (FatFS.h:184-201 makes it FA_CREATE_ALWAYS): appending opens `r+b`
 *   and seeks to the end.
 * - Only 4 open files are tracked; the close() of any other neither flushes nor frees
 *   (JumperlessMicroPythonAPI.cpp:2468, 2664-2672): every write job flushes before it closes.
 */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import type { BoardClient } from '../device/board.js';
import { py } from '../device/pyLiteral.js';
import { fileWritePython, WRITE_CHUNK_BYTES, writeBoardFile } from './boardFileWrite.js';
import { checkFilePath, checkPath, PATH_MAX } from './boardPath.js';
import { checkText } from './oled.js';
import type { PythonPart } from './pythonParts.js';
import { defineDeviceTool } from './tool.js';

export { checkPath, PATH_MAX, SEGMENT_MAX } from './boardPath.js';

/** Bytes one board job reads or writes (boardFileWrite.ts says why). */
export const TRANSFER_CHUNK_BYTES = WRITE_CHUNK_BYTES;

/** Python run on the board, inside `_jlt`. */
export const python: readonly PythonPart[] = [
  {
    name: 'files',
    source: `
def file_stat(p):
    import os, jfs
    try:
        m = os.stat(p)[0]
    except OSError:
        return None
    if m & 0x4000:
        return ['dir', 0]
    return ['file', jfs.stat(p)[6]]
def file_list(p):
    import os, jfs
    try:
        names = [t[0] for t in os.ilistdir(p)]
    except UnicodeError:
        return 'unicode'
    base = '' if p == '/' else p
    cut = len(names) > 0 and names[-1].endswith('...')
    if cut:
        names[-1] = names[-1][:-3]
        if names[-1].endswith('/'):
            names[-1] = names[-1][:-1]
    out = []
    i = 0
    while i < len(names):
        n = names[i]
        j = i + 1
        k = _jlt.file_stat(base + '/' + n)
        while k is None and j < len(names) and j - i < 8:
            n = n + ',' + names[j]
            j += 1
            k = _jlt.file_stat(base + '/' + n)
        if k is None:
            cut = True
            i += 1
        else:
            out.append([n, k[0], k[1]])
            i = j
    t = jfs.info()
    return [out, cut, t[0], t[2]]
def file_chunk(p, off, n):
    import jfs, binascii
    f = jfs.open(p, 'rb')
    try:
        size = f.size()
        data = b''
        if off < size:
            f.seek(off)
            data = f.read(n)
    finally:
        f.close()
    h = binascii.hexlify(data)
    data = None
    return [size, h.decode()]
def file_remove(p):
    import jfs
    jfs.remove(p)
    return _jlt.file_stat(p)
`,
  },
  fileWritePython,
];

export const WRITE_MAX_BYTES = 128 * 1024;
/** A read's most: its base64 (4/3 larger) keeps a result under 50 KB of a model's context. */
export const READ_MAX_BYTES = 32 * 1024;

/** Absolute, e.g. /python_scripts/a.py: the descriptions show the form, so the field needs no words. */
const pathField = z.string().max(PATH_MAX);

const notFound = (path: string): ToolError => new ToolError('not_found', `No file or directory at ${path}.`);

const statSchema = z.tuple([z.enum(['file', 'dir']), z.number()]).nullable();

async function fileStat(board: BoardClient, path: string): Promise<z.infer<typeof statSchema>> {
  return statSchema.parse(await board.call(py`_jlt.file_stat(${path})`));
}

export const fileList = defineDeviceTool({
  name: 'file_list',
  title: 'List a board directory',
  description:
    'List a flash directory, e.g. /python_scripts, with sizes and free space (no dot-files; truncated: entries missing).',
  group: 'files',
  kind: 'read',
  capability: 'jumperless.files',
  timeoutMs: 30_000,
  input: z.object({ path: pathField.default('/') }),
  output: z.object({
    path: z.string(),
    entries: z.array(z.object({ name: z.string(), kind: z.enum(['file', 'dir']), size_bytes: z.number() })),
    truncated: z.boolean(),
    total_bytes: z.number(),
    free_bytes: z.number(),
  }),
  handle: async ({ path }, { board }) => {
    const dir = checkPath(path);
    const kind = await fileStat(board, dir);
    if (kind?.[0] !== 'dir') throw new ToolError('not_found', `No directory at ${dir}.`);
    const reply = z
      .union([
        z.literal('unicode'),
        z.tuple([
          z.array(z.tuple([z.string(), z.enum(['file', 'dir']), z.number()])),
          z.boolean(),
          z.number(),
          z.number(),
        ]),
      ])
      .parse(await board.call(py`_jlt.file_list(${dir})`, { timeoutMs: 25_000 }));
    if (reply === 'unicode') {
      throw new ToolError(
        'unreadable',
        `The board cannot list ${dir}: a name in it is not UTF-8 (made by a computer over USB, for example). Exact paths still work with file_read and file_delete.`,
      );
    }
    const [entries, truncated, total, free] = reply;
    return {
      path: dir,
      entries: entries.map(([name, entryKind, size]) => ({ name, kind: entryKind, size_bytes: size })),
      truncated,
      total_bytes: total,
      free_bytes: free,
    };
  },
});

export const fileRead = defineDeviceTool({
  name: 'file_read',
  title: 'Read a board file',
  description:
    'Read a flash file: text, or base64 if binary; max_bytes a call from offset_bytes (truncated: more left).',
  group: 'files',
  kind: 'read',
  capability: 'jumperless.files',
  timeoutMs: 120_000,
  input: z.object({
    path: pathField,
    offset_bytes: z.number().int().min(0).max(0x7fffffff).default(0),
    max_bytes: z
      .number()
      .int()
      .min(1)
      .max(READ_MAX_BYTES)
      .default(16 * 1024),
  }),
  output: z.object({
    path: z.string(),
    size_bytes: z.number(),
    offset_bytes: z.number(),
    read_bytes: z.number(),
    encoding: z.enum(['utf-8', 'base64']),
    content: z.string(),
    truncated: z.boolean(),
  }),
  handle: async ({ path, offset_bytes, max_bytes }, { board, progress }) => {
    const file = checkPath(path);
    const found = await fileStat(board, file);
    if (found === null) throw notFound(file);
    if (found[0] === 'dir') throw new ToolError('is_directory', `${file} is a directory: use file_list.`);
    const size = found[1];
    const want = Math.max(0, Math.min(max_bytes, size - offset_bytes));
    const chunks: Buffer[] = [];
    for (let done = 0; done < want; ) {
      const n = Math.min(TRANSFER_CHUNK_BYTES, want - done);
      const [now, hex] = z
        .tuple([z.number(), z.string().regex(/^[0-9a-f]*$/)])
        .parse(await board.call(py`_jlt.file_chunk(${file}, ${offset_bytes + done}, ${n})`));
      if (now !== size) {
        throw new ToolError('changed', `${file} changed while it was read (${size} bytes, then ${now}).`);
      }
      const chunk = Buffer.from(hex, 'hex');
      if (chunk.length === 0) break;
      chunks.push(chunk);
      done += chunk.length;
      progress(done, want);
    }
    const bytes = Buffer.concat(chunks);
    let content: string;
    let encoding: 'utf-8' | 'base64' = 'utf-8';
    try {
      content = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      content = bytes.toString('base64');
      encoding = 'base64';
    }
    return {
      path: file,
      size_bytes: size,
      offset_bytes,
      read_bytes: bytes.length,
      encoding,
      content,
      truncated: offset_bytes + bytes.length < size,
    };
  },
});

export const fileWrite = defineDeviceTool({
  name: 'file_write',
  title: 'Write a board file',
  description:
    'Write text or base64 to a flash file, e.g. /python_scripts/a.py (existing: overwrite or append). /config.txt and /slots/*.yaml steer the board.',
  group: 'files',
  kind: 'write',
  capability: 'jumperless.files',
  timeoutMs: 120_000,
  input: z.object({
    path: pathField,
    content: z.string().max(WRITE_MAX_BYTES * 2),
    encoding: z.enum(['utf-8', 'base64']).default('utf-8'),
    overwrite: z.boolean().default(false),
    append: z.boolean().default(false),
  }),
  output: z.object({
    path: z.string(),
    written_bytes: z.number(),
    size_bytes: z.number(),
    replaced: z.boolean(),
  }),
  hazard: ({ path, overwrite, append }) =>
    overwrite && !append ? `Write ${path} on the board, replacing the file if it exists?` : undefined,
  handle: async ({ path, content, encoding, overwrite, append }, { board, progress, signal }) => {
    const file = checkFilePath(path);
    let bytes: Buffer;
    if (encoding === 'base64') {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(content) || content.length % 4 !== 0) {
        throw new ToolError('bad_content', 'content is not valid base64.');
      }
      bytes = Buffer.from(content, 'base64');
    } else {
      checkText(content, 'content');
      bytes = Buffer.from(content, 'utf8');
    }
    if (bytes.length > WRITE_MAX_BYTES) {
      throw new ToolError(
        'too_large',
        `${bytes.length} bytes is over the ${WRITE_MAX_BYTES}-byte limit of one write.`,
      );
    }
    return writeBoardFile(board, file, bytes, {
      mode: append ? 'append' : overwrite ? 'overwrite' : 'create',
      signal,
      progress,
      existsHint: 'pass overwrite: true to replace it, or append: true to add to it.',
    });
  },
});

export const fileDelete = defineDeviceTool({
  name: 'file_delete',
  title: 'Delete a board file',
  description: 'Delete a flash file for good (slot files and /config.txt hold the setup).',
  group: 'files',
  kind: 'destructive',
  capability: 'jumperless.files',
  input: z.object({ path: pathField }),
  output: z.object({ path: z.string(), deleted: z.boolean() }),
  hazard: ({ path }) => `Delete ${path} on the board for good?`,
  handle: async ({ path }, { board }) => {
    const file = checkPath(path);
    const found = await fileStat(board, file);
    if (found === null) throw notFound(file);
    if (found[0] === 'dir')
      throw new ToolError('is_directory', `${file} is a directory; file_delete removes files only.`);
    const after = await board.call(py`_jlt.file_remove(${file})`);
    if (after !== null) throw new ToolError('not_applied', `${file} is still there after deleting it.`);
    return { path: file, deleted: true };
  },
});

export default [fileList, fileRead, fileWrite, fileDelete];
