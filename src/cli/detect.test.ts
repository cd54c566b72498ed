import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeBoard } from '../../test/support/fakeSysfs.js';
import { runDetect } from './detectCommand.js';

const root = mkdtempSync(join(tmpdir(), 'jl-detect-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function output(): { stream: NodeJS.WritableStream; text: () => string } {
  let text = '';
  return {
    stream: {
      write: (chunk: string) => {
        text += chunk;
        return true;
      },
    } as unknown as NodeJS.WritableStream,
    text: () => text,
  };
}

describe('detect', () => {
  const nodes = [0, 2, 4, 6].map((itf) => {
    const path = join(root, `node${itf}`);
    writeFileSync(path, '');
    return [itf, path] as [number, string];
  });
  const board = fakeBoard(root, 'one', '1-2', nodes);
  const discovery = { platform: 'linux' as const, ...board };

  it('lists each port with what it is and names the one to use', async () => {
    const out = output();
    expect(await runDetect({}, out.stream, discovery)).toBe(0);
    const lines = out.text().split('\n');
    expect(lines[0]).toBe('Jumperless V5 at USB 1-2');
    expect(out.text()).toMatch(/ttyACM0 +CDC0, the menu/);
    expect(out.text()).toMatch(/ttyACM2 +CDC2, the MicroPython raw REPL: the one jumperless-mcp opens/);
    expect(out.text()).toContain(
      `use: jumperless-mcp --device ${join(board.devRoot, 'ttyACM2')}   (or --device auto:1-2)`,
    );
  });

  it('prints JSON, and exits 1 with what to check when there is no board', async () => {
    const out = output();
    expect(await runDetect({ json: true }, out.stream, discovery)).toBe(0);
    const json = JSON.parse(out.text()) as {
      boards: Array<{ location: string; repl: string; ports: unknown[] }>;
    };
    expect(json.boards).toEqual([
      expect.objectContaining({ location: '1-2', repl: join(board.devRoot, 'ttyACM2') }),
    ]);
    expect(json.boards[0]?.ports).toHaveLength(4);
    const none = output();
    const empty = mkdtempSync(join(root, 'empty-'));
    expect(await runDetect({}, none.stream, { platform: 'linux', sysRoot: empty, devRoot: empty })).toBe(1);
    expect(none.text()).toMatch(/^No Jumperless V5 found \(USB 1D50:ACAB\)\. Check the cable/);
  });
});
