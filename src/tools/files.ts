/**
 * The board's flash filesystem (spec §6.13) through `jfs`. Contents travel as hex both ways: exact
 * bytes, any encoding, and only `[0-9a-f]` inside the Python literal. `jfs.stat` means only the size
 * (a directory stats like a file), so whether a path is a directory is read from its parent's listing,
 * where directories end in `/`.
 */
import { z } from 'zod';
import { FILE_READ_CHUNK } from '../board/limits.js';
import type { BoardClient } from './boardClient.js';
import { checkText } from './oled.js';
import { py } from './py.js';
import { defineTool, ToolError } from './tool.js';

/** Python run on the board, inside `_jlt`. */
export const python = `
def file_kind(p):
    import jfs
    if p == '/':
        return 'dir'
    i = p.rindex('/')
    parent = p[:i] or '/'
    name = p[i + 1:]
    if parent != '/' and _jlt.file_kind(parent) != 'dir':
        return None
    for n in jfs.listdir(parent):
        if n == name:
            return 'file'
        if n == name + '/':
            return 'dir'
    return None
def file_list(p):
    import jfs
    if _jlt.file_kind(p) != 'dir':
        return None
    base = '' if p == '/' else p
    out = []
    for n in jfs.listdir(p):
        out.append([n, 0 if n.endswith('/') else jfs.stat(base + '/' + n)[6]])
    t = jfs.info()
    return [out, t[0], t[2]]
def file_read(p, off, n):
    import jfs, binascii
    k = _jlt.file_kind(p)
    if k != 'file':
        return [k, 0, '']
    size = jfs.stat(p)[6]
    n = max(0, min(n, size - off))
    out = b''
    if n:
        f = jfs.open(p, 'rb')
        try:
            f.seek(off, 0)
            while len(out) < n:
                c = f.read(min(${FILE_READ_CHUNK}, n - len(out)))
                if not c:
                    break
                out += c
        finally:
            f.close()
    return ['file', size, binascii.hexlify(out).decode()]
def file_open(p, mode):
    import jfs
    _jlt.file_close()
    _jlt.fh = jfs.open(p, mode)
def file_put(h):
    import binascii
    return _jlt.fh.write(binascii.unhexlify(h))
def file_close():
    f = getattr(_jlt, 'fh', None)
    _jlt.fh = None
    if f is not None:
        f.close()
def file_size(p):
    import jfs
    return jfs.stat(p)[6] if _jlt.file_kind(p) == 'file' else None
def file_remove(p):
    import jfs
    jfs.remove(p)
    return _jlt.file_kind(p)
`;

/** FAT names: no `\ : * ? " < > |`, no control bytes; we also keep to printable ASCII. */
const SEGMENT = /^[\x20-\x7e]+$/;
const FAT_FORBIDDEN = /[\\:*?"<>|]/;
export const PATH_MAX = 255;
export const WRITE_MAX_BYTES = 128 * 1024;
export const READ_MAX_BYTES = 64 * 1024;
/** Bytes per write job: 16 KB of hex in one snippet, small for the board's heap. */
const WRITE_CHUNK_BYTES = 8 * 1024;

/** Absolute, printable, no `.`/`..` segments, no FAT-forbidden characters; returns it without a trailing `/`. */
export function checkPath(path: string): string {
  const bad = (why: string): never => {
    throw new ToolError('bad_path', `Path ${JSON.stringify(path.slice(0, 80))} refused: ${why}.`);
  };
  if (path.length === 0 || path.length > PATH_MAX) bad(`it must be 1-${PATH_MAX} characters`);
  if (!path.startsWith('/')) bad('it must be absolute (start with /)');
  if (path === '/') return path;
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  for (const segment of trimmed.slice(1).split('/')) {
    if (segment === '') bad('it has an empty segment (//)');
    if (segment === '.' || segment === '..') bad('. and .. segments are not allowed');
    if (!SEGMENT.test(segment)) bad('only printable ASCII characters are allowed');
    if (FAT_FORBIDDEN.test(segment)) bad('FAT names cannot hold \\ : * ? " < > |');
    if (segment !== segment.trim() || segment.endsWith('.'))
      bad('names cannot start or end with a space or end with a dot');
  }
  return trimmed;
}

const pathField = z
  .string()
  .max(PATH_MAX)
  .describe('Absolute path on the board, e.g. /python_scripts/blink.py');

const notFound = (path: string): ToolError => new ToolError('not_found', `No file or directory at ${path}.`);

export const fileList = defineTool({
  name: 'file_list',
  title: 'List a board directory',
  description: "List a directory on the board's flash (names, kinds, sizes in bytes) and the free space.",
  group: 'files',
  kind: 'read',
  capability: 'jumperless.files',
  input: z.object({ path: pathField.default('/') }),
  output: z.object({
    path: z.string(),
    entries: z.array(z.object({ name: z.string(), kind: z.enum(['file', 'dir']), size_bytes: z.number() })),
    total_bytes: z.number(),
    free_bytes: z.number(),
  }),
  handle: async ({ path }, { board }) => {
    const dir = checkPath(path);
    const reply = z
      .tuple([z.array(z.tuple([z.string(), z.number()])), z.number(), z.number()])
      .nullable()
      .parse(await board.call(py`_jlt.file_list(${dir})`));
    if (!reply) throw new ToolError('not_found', `No directory at ${dir}.`);
    const entries = reply[0].map(([name, size]) =>
      name.endsWith('/')
        ? { name: name.slice(0, -1), kind: 'dir' as const, size_bytes: 0 }
        : { name, kind: 'file' as const, size_bytes: size },
    );
    return { path: dir, entries, total_bytes: reply[1], free_bytes: reply[2] };
  },
});

export const fileRead = defineTool({
  name: 'file_read',
  title: 'Read a board file',
  description: `Read a file from the board's flash: UTF-8 text, or base64 when the bytes are not text. Up to ${READ_MAX_BYTES} bytes per call from offset_bytes.`,
  group: 'files',
  kind: 'read',
  capability: 'jumperless.files',
  timeoutMs: 30_000,
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
  handle: async ({ path, offset_bytes, max_bytes }, { board }) => {
    const file = checkPath(path);
    const [kind, size, hex] = z
      .tuple([z.enum(['file', 'dir']).nullable(), z.number(), z.string().regex(/^[0-9a-f]*$/)])
      .parse(
        await board.call(py`_jlt.file_read(${file}, ${offset_bytes}, ${max_bytes})`, { timeoutMs: 25_000 }),
      );
    if (kind === null) throw notFound(file);
    if (kind === 'dir') throw new ToolError('is_directory', `${file} is a directory: use file_list.`);
    const bytes = Buffer.from(hex, 'hex');
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

async function fileKind(board: BoardClient, path: string): Promise<'file' | 'dir' | null> {
  return z
    .enum(['file', 'dir'])
    .nullable()
    .parse(await board.call(py`_jlt.file_kind(${path})`));
}

export const fileWrite = defineTool({
  name: 'file_write',
  title: 'Write a board file',
  description: `Write text (UTF-8) or base64 bytes to a file on the board's flash, up to ${WRITE_MAX_BYTES} bytes; refuses to replace an existing file unless overwrite is true. Files such as /config.txt and /slots/*.yaml change how the board behaves.`,
  group: 'files',
  kind: 'write',
  capability: 'jumperless.files',
  timeoutMs: 120_000,
  input: z.object({
    path: pathField,
    content: z
      .string()
      .max(WRITE_MAX_BYTES * 2)
      .describe('Text, or base64 when encoding is base64'),
    encoding: z.enum(['utf-8', 'base64']).default('utf-8'),
    overwrite: z.boolean().default(false).describe('Replace an existing file'),
    append: z.boolean().default(false).describe('Add to the end of an existing file'),
  }),
  output: z.object({
    path: z.string(),
    written_bytes: z.number(),
    size_bytes: z.number(),
    replaced: z.boolean(),
  }),
  handle: async ({ path, content, encoding, overwrite, append }, { board }) => {
    const file = checkPath(path);
    if (file === '/' || path.endsWith('/'))
      throw new ToolError('bad_path', `${path} names a directory, not a file.`);
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
    const parent = file.slice(0, file.lastIndexOf('/')) || '/';
    if ((await fileKind(board, parent)) !== 'dir')
      throw new ToolError('not_found', `No directory ${parent} to write into.`);
    const existing = await fileKind(board, file);
    if (existing === 'dir') throw new ToolError('is_directory', `${file} is a directory.`);
    if (existing === 'file' && !overwrite && !append) {
      throw new ToolError(
        'exists',
        `${file} exists: pass overwrite: true to replace it, or append: true to add to it.`,
      );
    }
    const before =
      existing === 'file' && append ? z.number().parse(await board.call(py`_jlt.file_size(${file})`)) : 0;
    // Closing flushes (about 2 s on the board, spec §9): once per file, and even after a failure
    // or a cancel, with a short job of its own.
    const closeFile = () =>
      board.call('_jlt.file_close()', { signal: AbortSignal.timeout(15_000), timeoutMs: 10_000 });
    await board.call(py`_jlt.file_open(${file}, ${append ? 'ab' : 'wb'})`);
    let written = 0;
    try {
      for (let i = 0; i < bytes.length; i += WRITE_CHUNK_BYTES) {
        const chunk = bytes.subarray(i, i + WRITE_CHUNK_BYTES).toString('hex');
        written += z.number().parse(await board.call(py`_jlt.file_put(${chunk})`));
      }
    } catch (error) {
      await closeFile().catch(() => undefined);
      throw error;
    }
    await closeFile();
    const size = z
      .number()
      .nullable()
      .parse(await board.call(py`_jlt.file_size(${file})`));
    if (size !== before + bytes.length || written !== bytes.length) {
      throw new ToolError(
        'not_applied',
        `${file} holds ${size ?? 'no'} bytes after writing ${bytes.length} (expected ${before + bytes.length}).`,
      );
    }
    return {
      path: file,
      written_bytes: bytes.length,
      size_bytes: size,
      replaced: existing === 'file' && !append,
    };
  },
});

export const fileDelete = defineTool({
  name: 'file_delete',
  title: 'Delete a board file',
  description:
    "Delete a file from the board's flash. It is gone for good; slot files and /config.txt hold the board's setup.",
  group: 'files',
  kind: 'destructive',
  capability: 'jumperless.files',
  input: z.object({ path: pathField }),
  output: z.object({ path: z.string(), deleted: z.boolean() }),
  handle: async ({ path }, { board }) => {
    const file = checkPath(path);
    const kind = file === '/' ? 'dir' : await fileKind(board, file);
    if (kind === null) throw notFound(file);
    if (kind === 'dir')
      throw new ToolError('is_directory', `${file} is a directory; file_delete removes files only.`);
    const after = await board.call(py`_jlt.file_remove(${file})`);
    if (after !== null) throw new ToolError('not_applied', `${file} is still there after deleting it.`);
    return { path: file, deleted: true };
  },
});

export default [fileList, fileRead, fileWrite, fileDelete];
