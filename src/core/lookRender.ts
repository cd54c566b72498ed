/**
 * A telemetry reading drawn as the view shows it: the state document (with the bridges each net's
 * nodes make) and `board_picture`'s PNG, from the same snapshot. Run on the renderer thread
 * (lookWorker.ts); inline only when that thread cannot start.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { BoardNotes } from '../tools/boardNotes.js';
import { renderBoardPng, renderStateJson } from '../tools/resources.js';
import { snapshotFromTelemetry } from '../tools/snapshot.js';

export interface RenderedLook {
  state: unknown;
  /** PNG, base64. */
  picture: string;
}

/**
 * A look is drawn again at every change while anyone watches, and its PNG goes only to the pages
 * over their stream: zlib level 3 draws it in about 1 ms instead of level 9's 15-29 ms (of a 30-50 ms
 * look; bench/view.ts), for 16 KB instead of 6 KB. `board_picture` keeps the smallest file.
 */
const LOOK_PNG = { level: 3 };

export function renderTelemetryLook(
  state: string,
  leds: readonly number[],
  notes?: BoardNotes,
): RenderedLook {
  const snapshot = { ...snapshotFromTelemetry(state, leds), ...(notes ? { notes } : {}) };
  return {
    state: JSON.parse(renderStateJson(snapshot)),
    picture: Buffer.from(renderBoardPng(snapshot, LOOK_PNG)).toString('base64'),
  };
}

export interface LookRenderer {
  /** Starts the thread ahead of the first look (it takes a while to load). */
  start(): void;
  render(state: string, leds: readonly number[], notes?: BoardNotes): Promise<RenderedLook>;
  close(): void;
}

/**
 * How long a look waits for the renderer thread to load before it is drawn inline. Drawing inline
 * holds the server's thread 30-50 ms a look, which is what the thread is for: while it loads (up to
 * seconds from TypeScript sources on a busy machine) the first looks wait rather than stall tool
 * calls; inline is for a thread that cannot start or never says it is ready.
 */
const READY_WAIT_MS = 10_000;

/** A renderer thread, started at the first look and ended by `close()`. */
export function lookRenderer(): LookRenderer {
  let worker: Worker | undefined;
  let ready = false;
  let failed = false;
  // Settles when the thread says it is ready or fails; a new one for each thread started.
  let settled: Promise<void> = Promise.resolve();
  let settle = () => {};
  let nextId = 1;
  const pending = new Map<
    number,
    { resolve: (look: RenderedLook) => void; reject: (error: Error) => void }
  >();
  const start = (): Worker | undefined => {
    if (worker || failed) return worker;
    try {
      worker = startWorker();
    } catch {
      failed = true;
      return undefined;
    }
    settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    worker.unref();
    worker.on('message', (message: { id: number; look?: RenderedLook; error?: string; ready?: true }) => {
      if (message.ready) {
        ready = true;
        settle();
        return;
      }
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.look) waiter?.resolve(message.look);
      else waiter?.reject(new Error(message.error ?? 'the renderer said nothing'));
    });
    worker.on('error', (error) => {
      failed = true;
      ready = false;
      worker = undefined;
      settle();
      for (const waiter of pending.values()) waiter.reject(error);
      pending.clear();
    });
    return worker;
  };
  return {
    start: () => void start(),
    async render(state, leds, notes) {
      if (start() && !ready) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          settled,
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, READY_WAIT_MS);
          }),
        ]);
        clearTimeout(timer);
      }
      const thread = worker;
      if (!thread || !ready) return renderTelemetryLook(state, leds, notes);
      const id = nextId++;
      return new Promise<RenderedLook>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        thread.postMessage({ id, state, leds: [...leds], notes });
      });
    },
    close() {
      void worker?.terminate();
      worker = undefined;
      ready = false;
      settle();
    },
  };
}

/** From TypeScript sources (tests, benches) the thread goes through tsx, as the virtual board's does. */
function startWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./lookWorker.js', import.meta.url));
  const tsxPackage = createRequire(import.meta.url).resolve('tsx/package.json');
  const tsx = pathToFileURL(join(tsxPackage, '..', 'dist/esm/api/index.mjs')).href;
  const entry = new URL('./lookWorker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true });
}
