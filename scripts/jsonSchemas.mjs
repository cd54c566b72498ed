// Writes the tools' JSON Schemas next to the built catalog (src/tools/jsonSchemas.ts says why).
import { writeFileSync } from 'node:fs';

const { catalog } = await import('../dist/tools/index.js');
const { precomputeSchemas, SCHEMAS_FILE } = await import('../dist/tools/jsonSchemas.js');

writeFileSync(
  new URL(`../dist/tools/${SCHEMAS_FILE}`, import.meta.url),
  JSON.stringify(precomputeSchemas(catalog)),
);
