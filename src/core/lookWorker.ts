/**
 * The board view's renderer thread: turns a telemetry reading into the state document and the
 * picture (tools/resources.ts, the one renderer of `board_picture`), so drawing and compressing a
 * PNG after every change never holds up the server's thread while a tool call waits on it.
 */
import { parentPort } from 'node:worker_threads';
import type { BoardNotes } from '../tools/boardNotes.js';
import { renderTelemetryLook } from './lookRender.js';

// Loading this thread takes a while (more so from TypeScript sources): looks wait until it says so (lookRender.ts).
parentPort?.postMessage({ ready: true });
parentPort?.on('message', (message: { id: number; state: string; leds: number[]; notes?: BoardNotes }) => {
  try {
    parentPort?.postMessage({
      id: message.id,
      look: renderTelemetryLook(message.state, message.leds, message.notes),
    });
  } catch (error) {
    parentPort?.postMessage({
      id: message.id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
});
