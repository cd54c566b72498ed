// Records the first answers of a stdio server from the built one (src/mcp/firstAnswers.ts says why).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const { recordFirstAnswers } = await import('../dist/mcp/recordFirstAnswers.js');
const { FIRST_ANSWERS_FILE } = await import('../dist/mcp/firstAnswers.js');

const env = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('JUMPERLESS_MCP_')),
);
const answers = await recordFirstAnswers({
  command: process.execPath,
  args: [fileURLToPath(new URL('../dist/cli/main.js', import.meta.url)), '--sim'],
  env,
});
writeFileSync(new URL(`../dist/mcp/${FIRST_ANSWERS_FILE}`, import.meta.url), JSON.stringify(answers));
