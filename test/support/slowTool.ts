/** Test support: a read tool that lets one call in at a time and finishes when `wait` resolves. */
import { z } from 'zod';
import { defineTool } from '../../src/core/toolDefinition.js';

export function slowReadTool(wait: () => Promise<void>) {
  return defineTool({
    name: 'slow_read',
    title: 'Slow read',
    description: 'Waits for the test.',
    group: 'test',
    kind: 'read',
    capability: 'jumperless.read',
    maxConcurrent: 1,
    input: z.object({}),
    output: z.object({ done: z.boolean() }),
    handle: async () => {
      await wait();
      return { done: true };
    },
  });
}
