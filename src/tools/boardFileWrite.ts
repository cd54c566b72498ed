/**
 * Writing a file on the board's flash whole or not at all, for every tool and command that writes
 * one (file_write, `fs put`, script-saving tools): the new content goes to a copy aside in the
 * same folder (`.NAME.jlw`), is read back and checked (size and CRC-32), and only then takes the
 * file's place. The old file is never opened for writing, so it survives any fault (an unplug, a
 * reset, a hang) at any point, and a failure says so.
 *
 * FAT's rename never replaces an existing name (f_rename answers FR_EXIST, ff.cpp:5894-5896, and
 * the board's `os.rename`/`jfs.rename` call it straight, modjumperless.c:5211-5219 and 5690-5698,
 * unlike MicroPython's own VFS, extmod/vfs_fat.c:243-253, which removes the target first: probe
 * files.rename_never_replaces). So the swap is one board job of two renames: the old file steps
 * aside (`.NAME.jlo`), the new copy takes its name, the old one is removed. Between the two renames
 * the old content sits at `.NAME.jlo`; the next write of the file (this one, when the board comes
 * back within moments) puts it back. Dot names never show in the board's listings.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import type { BoardClient } from '../device/board.js';
import { isDeviceError } from '../device/errors.js';
import { py } from '../device/pyLiteral.js';
import { checkFilePath, SEGMENT_MAX } from './boardPath.js';
import type { PythonPart } from './pythonParts.js';

/**
 * Bytes one board job writes: 8 KB of hex plus the JSON result line, small next to the 96 KB heap
 * of a board without PSRAM (JumperlessDefines.h:41-42).
 */
export const WRITE_CHUNK_BYTES = 4096;
/** Bytes one board job reads back (4 KB a read, none of it kept): reading flash is quick. */
const SCAN_JOB_BYTES = 256 * 1024;
/** Bytes one board job copies on the board (an append): writing flash is slower than reading it. */
const COPY_JOB_BYTES = 64 * 1024;
/** A cluster of the V5's FAT volume: a file takes whole ones (FatFS.cpp:250-256, au_size 512). */
const CLUSTER_BYTES = 512;
/** How long a failed write waits for the board to come back to put things in order and say how they are. */
const SETTLE_MS = 5000;

/** Python run on the board, inside `_jlt` (it uses `file_stat` of the files group). */
export const fileWritePython: PythonPart = {
  name: 'file_write',
  source: `
def file_prep(p, d, t, o):
    import jfs
    if _jlt.file_stat(o):
        if _jlt.file_stat(p):
            jfs.remove(o)
        else:
            jfs.rename(o, p)
    if _jlt.file_stat(t):
        jfs.remove(t)
    return [_jlt.file_stat(d), _jlt.file_stat(p), jfs.info()[2]]
def file_put(p, first, off, h):
    import jfs, binascii
    f = jfs.open(p, 'wb' if first else 'r+b')
    try:
        if f.size() != off:
            return -1
        if off:
            f.seek(off)
        if h:
            f.write(binascii.unhexlify(h))
        f.flush()
        return f.size()
    finally:
        f.close()
def file_scan(s, t, off, n, c):
    import jfs, binascii
    try:
        f = jfs.open(s, 'rb')
    except OSError:
        return None
    g = None
    try:
        size = f.size()
        if t:
            g = jfs.open(t, 'r+b' if off else 'wb')
            if g.size() != off:
                return -1
            g.seek(off)
        k = 0
        f.seek(off)
        while k < n and off + k < size:
            b = f.read(min(4096, n - k))
            if not b:
                break
            if g and g.write(b) != len(b):
                return -2
            c = binascii.crc32(b, c)
            k += len(b)
        if g:
            g.flush()
            size = g.size()
        return [size, c, k]
    finally:
        if g:
            g.close()
        f.close()
def file_named(p):
    import jfs
    i = p.rfind('/')
    w = p[i + 1:].lower()
    try:
        for x in jfs.listdir(p[:i] or '/'):
            if x.lower() == w:
                return p[:i + 1] + x
    except Exception:
        pass
    return p
def file_commit(p, t, o, replace):
    import jfs
    n = p
    k = _jlt.file_stat(p) is not None
    if k:
        if not replace:
            return 'exists'
        n = _jlt.file_named(p)
        jfs.rename(p, o)
    jfs.rename(t, n)
    if k:
        jfs.remove(o)
    return _jlt.file_stat(p)
`,
};

export type WriteMode = 'create' | 'overwrite' | 'append';

export interface WriteBoardFileOptions {
  /** create: refuse an existing file; overwrite: replace it; append: add to its end (or create). */
  mode: WriteMode;
  /** The call's signal: once it fired, no more board jobs are tried. */
  signal?: AbortSignal;
  /** Bytes of the new content written so far, of all of them. */
  progress?(done: number, total: number): void;
  /** What to say when the file exists and mode is create (the caller's own words: a flag, a field). */
  existsHint?: string;
}

export interface WriteBoardFileResult {
  path: string;
  written_bytes: number;
  size_bytes: number;
  replaced: boolean;
}

/** The two names a write uses beside `file`: the new copy, and the old file while it steps aside. */
export function asideNames(file: string): { temp: string; old: string } {
  const slash = file.lastIndexOf('/');
  const dir = file.slice(0, slash + 1);
  const name = file.slice(slash + 1);
  // Case does not tell FAT names apart, so it does not tell these apart either.
  const stem =
    name.length + 5 <= SEGMENT_MAX
      ? name
      : `${name.slice(0, 50)}~${createHash('sha256').update(name.toLowerCase()).digest('hex').slice(0, 6)}`;
  return { temp: `${dir}.${stem}.jlw`, old: `${dir}.${stem}.jlo` };
}

const statSchema = z.tuple([z.enum(['file', 'dir']), z.number()]).nullable();
const prepSchema = z.tuple([statSchema, statSchema, z.number()]);
const scanSchema = z.union([
  z.literal(-1),
  z.literal(-2),
  z.null(),
  z.tuple([z.number(), z.number(), z.number()]),
]);

/** Where a write stands, for what a failure says about the file. */
type Phase = 'checking' | 'writing' | 'committing';

/**
 * Writes `bytes` to the file at `path` (checked here: checkFilePath) whole or not at all;
 * the board must be the caller's alone meanwhile (a tool's lease). Failures are ToolErrors that
 * say what happened to the file: `details.old_content` is `kept` (the file is as it was) or
 * `unknown` (the board went away while the new copy took its place; see the message).
 */
export async function writeBoardFile(
  board: BoardClient,
  path: string,
  bytes: Uint8Array,
  options: WriteBoardFileOptions,
): Promise<WriteBoardFileResult> {
  const file = checkFilePath(path);
  const { temp, old } = asideNames(file);
  const parent = file.slice(0, file.lastIndexOf('/')) || '/';
  let phase: Phase = 'checking';
  let existed = false;
  /** The file's whole new content, once the copy aside was checked: size and CRC-32. */
  let expected: { size: number; crc: number } | undefined;
  const call = (expression: string) => board.call(expression);
  try {
    const [dir, existing, free] = prepSchema.parse(
      await call(py`_jlt.file_prep(${file}, ${parent}, ${temp}, ${old})`),
    );
    if (dir?.[0] !== 'dir') throw new ToolError('not_found', `No directory ${parent} to write into.`);
    if (existing?.[0] === 'dir') throw new ToolError('is_directory', `${file} is a directory.`);
    existed = existing !== null;
    if (existed && options.mode === 'create') {
      throw new ToolError('exists', `${file} exists${options.existsHint ? `: ${options.existsHint}` : '.'}`);
    }
    const before = existing && options.mode === 'append' ? existing[1] : 0;
    const total = before + bytes.length;
    // The copy aside needs room of its own while the old file still stands.
    const needed = Math.ceil(total / CLUSTER_BYTES) * CLUSTER_BYTES;
    if (needed > free) throw noSpace(file, total, free, existed);

    phase = 'writing';
    let crc = 0;
    for (let done = 0; done < before; ) {
      const copied = scanSchema.parse(
        await call(
          py`_jlt.file_scan(${file}, ${temp}, ${done}, ${Math.min(COPY_JOB_BYTES, before - done)}, ${crc})`,
        ),
      );
      if (copied === -2) throw await spaceRanOut(board, file, temp, total, existed);
      if (copied === -1 || copied === null || copied[2] === 0) throw changed(file);
      crc = copied[1];
      done += copied[2];
    }
    for (let done = 0; done === 0 || done < bytes.length; ) {
      const chunk = bytes.subarray(done, done + WRITE_CHUNK_BYTES);
      const offset = before + done;
      const first = offset === 0;
      const size = z
        .number()
        .parse(
          await call(py`_jlt.file_put(${temp}, ${first}, ${offset}, ${Buffer.from(chunk).toString('hex')})`),
        );
      if (size === -1) throw changed(file);
      if (size < offset + chunk.length) throw await spaceRanOut(board, file, temp, total, existed);
      done += chunk.length;
      options.progress?.(done, bytes.length);
      if (chunk.length === 0) break;
    }
    crc = crc32(bytes, crc);
    // Read back what the flash holds, not what was sent.
    let check = 0;
    for (let done = 0; done < total; ) {
      const scanned = scanSchema.parse(
        await call(py`_jlt.file_scan(${temp}, None, ${done}, ${SCAN_JOB_BYTES}, ${check})`),
      );
      if (!Array.isArray(scanned) || scanned[0] !== total || scanned[2] === 0) throw changed(file);
      check = scanned[1];
      done += scanned[2];
    }
    if (check !== crc) {
      throw new ToolError(
        'not_applied',
        `The copy of ${file} written aside does not read back as written (CRC-32 ${check.toString(16)}, expected ${crc.toString(16)}); ${file} is unchanged. Retry.`,
        { retryable: true, details: { old_content: 'kept' } },
      );
    }

    phase = 'committing';
    expected = { size: total, crc };
    const after = z
      .union([z.literal('exists'), statSchema])
      .parse(await call(py`_jlt.file_commit(${file}, ${temp}, ${old}, ${options.mode !== 'create'})`));
    if (after === 'exists')
      throw new ToolError('exists', `${file} exists${options.existsHint ? `: ${options.existsHint}` : '.'}`);
    if (after?.[0] !== 'file' || after[1] !== total) {
      throw new ToolError(
        'not_applied',
        `${file} holds ${after ? after[1] : 'no'} bytes after the new copy took its place (expected ${total}).`,
      );
    }
    return {
      path: file,
      written_bytes: bytes.length,
      size_bytes: total,
      replaced: existed && options.mode !== 'append',
    };
  } catch (error) {
    if (error instanceof ToolError && (phase === 'checking' || error.options.details?.old_content))
      throw error;
    if (phase === 'checking') {
      const code = isDeviceError(error) ? error.code : 'not_applied';
      throw kept(
        code,
        isDeviceError(error) && error.retryable,
        `${unchanged(file, existed)}: nothing was written yet`,
        message(error),
      );
    }
    return settle(board, {
      file,
      temp,
      old,
      written: bytes.length,
      expected,
      phase,
      existed,
      error,
      options,
    });
  }
}

/**
 * After a write failed past its checks: when the call may still use the board, put the file in
 * order (file_prep: the old file back in place, the copy aside removed) and say how it is; a
 * replacement that did complete before the failure is the write's result after all.
 */
async function settle(
  board: BoardClient,
  what: {
    file: string;
    temp: string;
    old: string;
    written: number;
    expected: { size: number; crc: number } | undefined;
    phase: Phase;
    existed: boolean;
    error: unknown;
    options: WriteBoardFileOptions;
  },
): Promise<WriteBoardFileResult> {
  const { file, temp, old, expected, phase, existed, error, options } = what;
  const cause = message(error);
  const code = error instanceof ToolError || isDeviceError(error) ? error.code : 'not_applied';
  const retryable = isDeviceError(error)
    ? error.retryable
    : error instanceof ToolError && error.options.retryable === true;
  const parent = file.slice(0, file.lastIndexOf('/')) || '/';
  const until = Date.now() + SETTLE_MS;
  while (!options.signal?.aborted && Date.now() < until) {
    try {
      if (phase === 'committing' && expected) {
        // Did the new copy take the file's place before the board went away?
        const now = scanSchema.parse(await board.call(py`_jlt.file_scan(${file}, None, 0, 0x7fffffff, 0)`));
        if (Array.isArray(now) && now[0] === expected.size && now[1] === expected.crc) {
          await board.call(py`_jlt.file_prep(${file}, ${parent}, ${temp}, ${old})`);
          return { path: file, written_bytes: what.written, size_bytes: now[0], replaced: existed };
        }
      }
      await board.call(py`_jlt.file_prep(${file}, ${parent}, ${temp}, ${old})`);
    } catch (failure) {
      // The board is not back yet: try again shortly. Anything else: say what is certain.
      if (!isDeviceError(failure) || failure.code === 'python_error') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    throw kept(code, retryable, `${unchanged(file, existed)}, and the partial copy was removed`, cause);
  }
  if (phase === 'writing') {
    throw kept(
      code,
      retryable,
      `${unchanged(file, existed)}: only a copy aside was being written, and the next write of ${file} removes it`,
      cause,
    );
  }
  throw new ToolError(
    code,
    `The write to ${file} was cut off while the new copy took its place (${cause}). ${file} holds its old content or the whole new one; if it is missing, its old content is kept at ${old} and the next write of ${file} puts it back. Read ${file} to see which, then retry.`,
    { retryable, details: { old_content: 'unknown', old_copy: old } },
  );
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function unchanged(file: string, existed: boolean): string {
  return existed ? `${file} is unchanged (its old content survived)` : `${file} was not created`;
}

function kept(code: string, retryable: boolean, state: string, cause: string): ToolError {
  return new ToolError(code, `The write was interrupted (${cause}); ${state}. Retry.`, {
    retryable,
    details: { old_content: 'kept' },
  });
}

function changed(file: string): ToolError {
  return new ToolError(
    'changed',
    `The copy of ${file} written aside changed while it was written (another writer of the same file?); ${file} is unchanged. Retry.`,
    { retryable: true, details: { old_content: 'kept' } },
  );
}

function noSpace(file: string, total: number, free: number, existed: boolean): ToolError {
  return new ToolError(
    'no_space',
    `${total} bytes for ${file} do not fit: the flash has ${free} bytes free${existed ? ' (a replaced file needs room for its new copy beside the old one until the copy takes its place)' : ''}. ${existed ? `${file} is unchanged` : 'Nothing was written'}; free some space (file_delete) and retry.`,
    { details: { old_content: 'kept', free_bytes: free, needed_bytes: total } },
  );
}

/** The flash filled while the copy was written (the board's write came up short): the copy goes. */
async function spaceRanOut(
  board: BoardClient,
  file: string,
  temp: string,
  total: number,
  existed: boolean,
): Promise<ToolError> {
  const parent = file.slice(0, file.lastIndexOf('/')) || '/';
  const [, , free] = prepSchema.parse(
    await board.call(py`_jlt.file_prep(${file}, ${parent}, ${temp}, ${asideNames(file).old})`),
  );
  return noSpace(file, total, free, existed);
}

const CRC_TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});

/** CRC-32 as binascii.crc32 computes it, continued from `crc` (zlib.crc32 needs Node 20.15). */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = ~crc;
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return ~c >>> 0;
}
