/**
 * The board view's renderer thread: turns a reading of the board (telemetry or REPL) into the state
 * document and the picture (tools/resources.ts, the one renderer of `board_picture`), so drawing and compressing a
 * PNG after every change never holds up the server's thread while a tool call waits on it.
 */
import { parentPort } from 'node:worker_threads';
import { type LookSource, renderLook } from './lookRender.js';

// Loading this thread takes a while (more so from TypeScript sources): looks wait until it says so (lookRender.ts).
parentPort?.postMessage({ ready: true });
parentPort?.on('message', (message: { id: number; source: LookSource }) => {
  try {
    parentPort?.postMessage({
      id: message.id,
      look: renderLook(message.source),
    });
  } catch (error) {
    parentPort?.postMessage({
      id: message.id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
});
