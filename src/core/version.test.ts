import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';

describe('the package name and version', () => {
  it("are package.json's", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect({ name: PACKAGE_NAME, version: PACKAGE_VERSION }).toEqual({
      name: pkg.name,
      version: pkg.version,
    });
  });
});
