/**
 * Paths on the board's flash as the file tools take them: absolute, printable ASCII, FAT's rules
 * per name, and names that list exactly.
 */
import { FILE_NAME_MAX } from '../board/limits.js';
import { ToolError } from '../core/errors.js';

/**
 * FAT names: no `\ : * ? " < > |`, no control bytes; we also keep to printable ASCII, as the board
 * cannot list a folder holding a name that is not UTF-8.
 */
const SEGMENT = /^[\x20-\x7e]+$/;
const FAT_FORBIDDEN = /[\\:*?"<>|]/;
/**
 * A 64-character name can be made, but the board lists it with whatever follows its 64-byte name
 * buffer (FatFSDirImpl::_lfn, FatFS.h:462, is not terminated then): one less keeps listings exact.
 */
export const SEGMENT_MAX = FILE_NAME_MAX - 1;
export const PATH_MAX = 255;

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
    if (segment.length > SEGMENT_MAX) bad(`a name on the board holds at most ${SEGMENT_MAX} characters`);
    if (segment !== segment.trim() || segment.endsWith('.'))
      bad('names cannot start or end with a space or end with a dot');
  }
  return trimmed;
}

/** A file's path (checkPath, not a folder, no comma in its name): the path without a trailing `/`. */
export function checkFilePath(path: string): string {
  const file = checkPath(path);
  if (file === '/' || path.endsWith('/'))
    throw new ToolError('bad_path', `${path} names a directory, not a file.`);
  if (file.slice(file.lastIndexOf('/') + 1).includes(',')) {
    // jl_fs_listdir joins names with commas: such a name lists as two on the board, everywhere.
    throw new ToolError('bad_path', `${file} refused: the board lists a name with a comma as two names.`);
  }
  return file;
}
