import { describe, expect, it } from 'vitest';
import * as board from './index.js';

describe('board public API', () => {
  it('re-exports the main entry points', () => {
    for (const name of [
      'resolveNode',
      'printName',
      'shortName',
      'parseShortName',
      'isBridgeable',
      'Connections',
      'parseColor',
      'buildState',
      'formatState',
      'parseState',
      'formatSlotYaml',
      'parseSlotYaml',
      'isSlot',
    ]) {
      expect(typeof (board as Record<string, unknown>)[name], name).toBe('function');
    }
    expect(board.GND).toBe(100);
    expect(board.MAX_BRIDGES).toBe(128);
  });
});
