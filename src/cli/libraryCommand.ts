/**
 * `jumperless-mcp library install|check|uninstall`: a versioned copy of our board-side helper
 * (`_jlh`, src/device/helper.ts) as a module on the board's flash, only when asked (DESIGN.md: no
 * flash writes unless the user asks). It lives on `sys.path` (/python_scripts/lib), so scripts run
 * on the board itself can `from jumperless_mcp import _jlh`. The server does not load it: it
 * primes the helper into RAM at every connect and reset, which is exact for its own version and
 * needs no flash (a file there may be from another version, or edited on the board).
 */

import { PACKAGE_VERSION } from '../core/version.js';
import { HELPER_SOURCE, HELPER_VERSION } from '../device/helper.js';
import { READ_MAX_BYTES } from '../tools/files.js';
import { type ProgressStream, progressOn } from './progress.js';
import { type CliApp, CliToolError, openCliApp, reportFailure } from './toolRunner.js';

export const LIBRARY_PATH = '/python_scripts/lib/jumperless_mcp.py';

/** The module's text: a header saying what wrote it and the helper version, then the helper. */
export function librarySource(): string {
  return `# jumperless_mcp: the board-side helper of jumperless-mcp ${PACKAGE_VERSION}, installed by
# \`jumperless-mcp library install\`; \`jumperless-mcp library uninstall\` removes it.
VERSION = ${HELPER_VERSION}
${HELPER_SOURCE}`;
}

export type LibraryStatus =
  | { state: 'absent' }
  | { state: 'current'; version: number }
  | { state: 'other'; version: number | null; path: string };

async function status(cli: CliApp): Promise<LibraryStatus> {
  let content: string;
  try {
    const read = await cli.call('file_read', { path: LIBRARY_PATH, max_bytes: READ_MAX_BYTES });
    content = read.encoding === 'utf-8' ? (read.content as string) : '';
  } catch (error) {
    if (error instanceof CliToolError && error.code === 'not_found') return { state: 'absent' };
    throw error;
  }
  const version = /^VERSION = (\d+)$/m.exec(content);
  if (content === librarySource()) return { state: 'current', version: HELPER_VERSION };
  return { state: 'other', version: version ? Number(version[1]) : null, path: LIBRARY_PATH };
}

export async function runLibrary(
  verb: string,
  options: { device: string; json?: boolean },
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream & ProgressStream },
): Promise<number> {
  if (verb !== 'install' && verb !== 'check' && verb !== 'uninstall') {
    io.stderr.write(`jumperless-mcp library: "${verb}" is not one of install, check, uninstall\n`);
    return 2;
  }
  const cli = await openCliApp(options.device);
  const say = (result: Record<string, unknown>, text: string) =>
    io.stdout.write(options.json ? `${JSON.stringify(result)}\n` : `${text}\n`);
  try {
    const before = await status(cli);
    if (verb === 'check') {
      say(
        { path: LIBRARY_PATH, ...before, expected: HELPER_VERSION },
        before.state === 'absent'
          ? `not installed (jumperless-mcp library install puts version ${HELPER_VERSION} at ${LIBRARY_PATH})`
          : before.state === 'current'
            ? `installed: version ${before.version} at ${LIBRARY_PATH}, the one this jumperless-mcp has`
            : `${LIBRARY_PATH} differs from this jumperless-mcp's version ${HELPER_VERSION} (it says ${before.version ?? 'no version'}): jumperless-mcp library install replaces it`,
      );
      return before.state === 'current' ? 0 : 1;
    }
    if (verb === 'uninstall') {
      if (before.state === 'absent') {
        say({ path: LIBRARY_PATH, removed: false }, `nothing to remove: ${LIBRARY_PATH} is not there`);
        return 0;
      }
      await cli.call('file_delete', { path: LIBRARY_PATH });
      say({ path: LIBRARY_PATH, removed: true }, `removed ${LIBRARY_PATH}`);
      return 0;
    }
    if (before.state === 'current') {
      say(
        { path: LIBRARY_PATH, installed: true, version: HELPER_VERSION, changed: false },
        `already installed: version ${HELPER_VERSION} at ${LIBRARY_PATH}`,
      );
      return 0;
    }
    const progress = progressOn(io.stderr, 'library install');
    await cli
      .call('file_write', { path: LIBRARY_PATH, content: librarySource(), overwrite: true }, (done, total) =>
        progress.update(done, total),
      )
      .finally(() => progress.done());
    const after = await status(cli);
    if (after.state !== 'current') throw new Error(`${LIBRARY_PATH} does not hold what was written`);
    say(
      { path: LIBRARY_PATH, installed: true, version: HELPER_VERSION, changed: true },
      `installed version ${HELPER_VERSION} at ${LIBRARY_PATH} (board scripts: from jumperless_mcp import _jlh)`,
    );
    return 0;
  } catch (error) {
    return reportFailure(`library ${verb}`, error, io.stderr);
  } finally {
    await cli.close();
  }
}
