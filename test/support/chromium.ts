/**
 * A real headless browser for the view's tests: Debian's `chromium` driven by playwright-core
 * through its `executablePath` (no browser download). `CHROMIUM_PATH` names another binary.
 * Absent, `missingChromium` says so in one line, and the tests that need it fail with it.
 */
import { existsSync } from 'node:fs';

const CANDIDATES = ['/usr/lib/chromium/chromium', '/usr/bin/chromium', '/usr/bin/chromium-browser'];

export function chromiumPath(): string | undefined {
  const given = process.env.CHROMIUM_PATH;
  if (given) return existsSync(given) ? given : undefined;
  return CANDIDATES.find((path) => existsSync(path));
}

export const missingChromium =
  'no chromium here: install the Debian package chromium (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH';
