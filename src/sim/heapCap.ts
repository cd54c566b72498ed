/**
 * Holds the VM's MicroPython heap at the size the board has. The WebAssembly build grows its GC
 * heap when it fills (a split heap: gc.c gc_try_add_heap asks malloc for a new area at least as big
 * as the heap already is), so without this a script that needs 200 KB works on the virtual board
 * and raises MemoryError on a board without PSRAM (96000 bytes, JumperlessDefines.h:41-42).
 *
 * How: once the VM is up, WebAssembly memory may no longer grow, and the C heap's free space is
 * taken by ballast blocks, so a new GC area (tens of KB at least) finds no room. The JavaScript side
 * of the VM (code and strings passed in, results passed out) still mallocs what it needs: for those
 * calls memory may grow, and a large block it frees becomes ballast again at once.
 */

/** Free C-heap runs smaller than this are left: far below any GC area the VM would ask for. */
const BALLAST_MIN_BYTES = 16 * 1024;
const BALLAST_MAX_BYTES = 1 << 20;

interface EmscriptenHeap {
  _malloc(size: number): number;
  _free(pointer: number): void;
}

/** Whether WebAssembly memory may grow; shared by every VM this thread creates. */
const growth = { allowed: true };
let gateInstalled = false;

/**
 * Wraps the memory-growth import of every WebAssembly module instantiated from now on in this
 * thread. Call before loading MicroPython.
 */
export function installGrowthGate(): void {
  if (gateInstalled) return;
  gateInstalled = true;
  // Typed by hand: the Node types in use do not declare the WebAssembly global's functions.
  const wasm = (globalThis as unknown as { WebAssembly: { instantiate: Instantiate } }).WebAssembly;
  const instantiate = wasm.instantiate;
  wasm.instantiate = function (this: unknown, source, imports) {
    const env = imports?.env;
    const resize = env?.emscripten_resize_heap;
    if (env && typeof resize === 'function') {
      env.emscripten_resize_heap = (size: number) => (growth.allowed ? resize(size) : false);
    }
    return instantiate.call(this, source, imports);
  };
}

type Instantiate = (
  this: unknown,
  source: unknown,
  imports?: { env?: Record<string, unknown> } & Record<string, unknown>,
) => unknown;

/** Freezes the heap of a loaded VM (see the file comment). Returns the ballast size, for tests. */
export function capHeap(heap: EmscriptenHeap): number {
  const malloc = heap._malloc.bind(heap);
  const free = heap._free.bind(heap);
  growth.allowed = false;
  let reserved = 0;
  for (let size = BALLAST_MAX_BYTES; size >= BALLAST_MIN_BYTES; ) {
    if (malloc(size) !== 0) reserved += size;
    else size >>= 1;
  }
  /** Blocks the JavaScript side holds for now, by address, that become ballast once freed. */
  const lent = new Map<number, number>();
  heap._malloc = (size: number) => {
    let pointer = malloc(size);
    if (pointer === 0) {
      growth.allowed = true;
      try {
        pointer = malloc(size);
      } finally {
        growth.allowed = false;
      }
    }
    if (pointer !== 0 && size >= BALLAST_MIN_BYTES) lent.set(pointer, size);
    return pointer;
  };
  heap._free = (pointer: number) => {
    free(pointer);
    const size = lent.get(pointer);
    if (size === undefined) return;
    lent.delete(pointer);
    malloc(size); // the same room, taken back before a GC area can grow into it
  };
  return reserved;
}
