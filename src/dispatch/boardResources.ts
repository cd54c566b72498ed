/**
 * The board's resources (state, nets, node map, API reference, picture) come from the tools layer
 * (src/tools/resources.ts); this adapts them to the resource contract transports serve.
 */
import { Buffer } from 'node:buffer';
import { boardResources as toolResources } from '../tools/resources.js';
import type { Resource } from './resources.js';

export function boardResources(): Resource[] {
  return toolResources.map((resource) => ({
    uri: resource.uri,
    name: resource.name,
    title: resource.title,
    description: resource.description,
    mimeType: resource.mimeType,
    live: resource.changesWithBoard,
    read: async ({ board, signal }) => {
      const content = await resource.read(board, { signal });
      return 'text' in content
        ? { text: content.text }
        : { blob: Buffer.from(content.blob).toString('base64') };
    },
  }));
}
