/**
 * bench/view.ts's open pages, in a process of their own as a browser's are: `count` readers of the
 * event stream, each parsing every event as a page does. Tells its parent (IPC) `ready` once every
 * page has its first look, then the time each later look reaches the first page (`at`, ms since
 * the epoch, high resolution, comparable across processes). Ends when told `close`.
 *
 *   (forked by bench/view.ts) viewPages.ts <events url> <count>
 */
const [url, count] = [process.argv[2] as string, Number(process.argv[3] ?? 10)];
const send = (message: { t: 'ready' } | { t: 'look'; at: number; bytes: number }) => process.send?.(message);
const controllers: AbortController[] = [];
let ready = 0;

async function page(index: number): Promise<void> {
  const controller = new AbortController();
  controllers.push(controller);
  const reply = await fetch(url, { signal: controller.signal });
  const reader = (reply.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let first = true;
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
    if (done) return;
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.slice(block.indexOf('\ndata: ') + 7);
      if (!block.startsWith('event: board')) {
        if (block.startsWith('event:')) JSON.parse(data);
        continue;
      }
      const at = performance.timeOrigin + performance.now();
      JSON.parse(data);
      if (first) {
        first = false;
        if (++ready === count) send({ t: 'ready' });
      } else if (index === 0) send({ t: 'look', at, bytes: Buffer.byteLength(block) });
    }
  }
}

for (let i = 0; i < count; i++) void page(i);
process.on('message', (message) => {
  if (message !== 'close') return;
  for (const controller of controllers) controller.abort();
  process.exit(0);
});
