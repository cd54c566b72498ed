import { describe, expect, it } from 'vitest';
import type { BoardState } from './state.js';
import type { StateDocument } from './stateDocument.js';

type DeepReadonly<T> = T extends readonly (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

describe('the state document', () => {
  it('is what the simulator writes: the compiler refuses this file otherwise (npm run check)', () => {
    const writtenIsReadable: BoardState extends DeepReadonly<StateDocument> ? true : never = true;
    expect(writtenIsReadable).toBe(true);
  });
});
