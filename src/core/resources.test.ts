import { describe, expect, it } from 'vitest';
import { matchTemplate } from './resources.js';

describe('matchTemplate', () => {
  it('extracts parameters', () => {
    expect(matchTemplate('test://template/{id}/data', 'test://template/123/data')).toEqual({ id: '123' });
    expect(matchTemplate('board://net/{index}', 'board://net/6')).toEqual({ index: '6' });
  });
  it('refuses other shapes and treats template punctuation literally', () => {
    expect(matchTemplate('test://template/{id}/data', 'test://template/1/2/data')).toBeUndefined();
    expect(matchTemplate('test://template/{id}/data', 'test://templateX1/data')).toBeUndefined();
    expect(matchTemplate('a.b/{x}', 'aXb/1')).toBeUndefined();
  });
});
