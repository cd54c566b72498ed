import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordingIsCurrent, sdkVersion } from './recordingCurrent.js';

/**
 * A built tree (dist/ with code and the recording) next to the SDK it resolves (version 9.9.9),
 * in a checkout or in an installed package.
 */
function tree(installed = false) {
  const made = mkdtempSync(join(tmpdir(), 'recording-current-'));
  const top = installed ? join(made, 'node_modules', 'jumperless-mcp') : made;
  mkdirSync(top, { recursive: true });
  const sdk = join(top, 'node_modules', '@modelcontextprotocol', 'server');
  mkdirSync(sdk, { recursive: true });
  writeFileSync(
    join(sdk, 'package.json'),
    JSON.stringify({ name: '@modelcontextprotocol/server', version: '9.9.9', main: 'index.js' }),
  );
  writeFileSync(join(sdk, 'index.js'), '');
  const root = join(top, 'dist');
  mkdirSync(join(root, 'mcp'), { recursive: true });
  const code = join(root, 'mcp', 'server.js');
  const recording = join(root, 'mcp', 'firstAnswers.json');
  writeFileSync(code, '');
  writeFileSync(recording, '{}');
  const at = (file: string, seconds: number) => utimesSync(file, seconds, seconds);
  at(code, 1_000);
  at(recording, 2_000);
  return { root, code, recording, at };
}

describe('whether a recording is current', () => {
  it('names the SDK this tree runs on', () => {
    const installed = JSON.parse(
      readFileSync(
        resolve(import.meta.dirname, '../../node_modules/@modelcontextprotocol/server/package.json'),
        'utf8',
      ),
    );
    expect(sdkVersion()).toBe(installed.version);
  });

  it('is when no code is newer and the SDK is the one that recorded it', () => {
    const { root, recording } = tree();
    expect(recordingIsCurrent(recording, root, '9.9.9')).toBe(true);
  });

  it('is when every file has the same time', () => {
    const { root, code, recording, at } = tree();
    at(code, 500);
    at(recording, 500);
    expect(recordingIsCurrent(recording, root, '9.9.9')).toBe(true);
  });

  it('is, installed, whatever the times npm gave the files; not with another SDK', () => {
    const { root, code, recording, at } = tree(true);
    at(code, 3_000);
    expect(recordingIsCurrent(recording, root, '9.9.9')).toBe(true);
    expect(recordingIsCurrent(recording, root, '9.9.8')).toBe(false);
    expect(recordingIsCurrent(join(root, 'none.json'), root, '9.9.9')).toBe(false);
  });

  it('is not, in a checkout, when a file anywhere in the tree was written after it (tsc alone)', () => {
    const { root, code, recording, at } = tree();
    at(code, 3_000);
    expect(recordingIsCurrent(recording, root, '9.9.9')).toBe(false);
    const other = tree();
    mkdirSync(join(other.root, 'tools', 'deep'), { recursive: true });
    writeFileSync(join(other.root, 'tools', 'deep', 'new.js'), '');
    expect(recordingIsCurrent(other.recording, other.root, '9.9.9')).toBe(false);
  });

  it('is not for another SDK, an unnamed one, or a recording that is not there', () => {
    const { root, recording } = tree();
    expect(recordingIsCurrent(recording, root, '9.9.8')).toBe(false);
    expect(recordingIsCurrent(recording, root, undefined)).toBe(false);
    expect(recordingIsCurrent(join(root, 'none.json'), root, '9.9.9')).toBe(false);
  });
});
