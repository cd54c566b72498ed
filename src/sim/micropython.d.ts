// Types for the parts of @micropython/micropython-webassembly-pyscript that the simulator uses.
declare module '@micropython/micropython-webassembly-pyscript/micropython.mjs' {
  export interface EmscriptenStat {
    mode: number;
    size: number;
    mtime: Date;
  }
  export interface EmscriptenFs {
    readFile(path: string): Uint8Array;
    writeFile(path: string, data: Uint8Array | string): void;
    readdir(path: string): string[];
    mkdir(path: string): void;
    mkdirTree(path: string): void;
    rmdir(path: string): void;
    unlink(path: string): void;
    rename(from: string, to: string): void;
    stat(path: string): EmscriptenStat;
    isDir(mode: number): boolean;
    analyzePath(path: string): { exists: boolean };
  }
  export interface MicroPython {
    _module: { _mp_sched_keyboard_interrupt(): void };
    FS: EmscriptenFs;
    registerJsModule(name: string, module: Record<string, unknown>): void;
    runPython(code: string): unknown;
    /** A proxy of an imported Python module (its functions callable from JS). */
    pyimport(name: string): unknown;
    replInit(): void;
    /** Returns non-zero when the REPL asks for a soft reset. */
    replProcessChar(chr: number): number;
  }
  export function loadMicroPython(options: {
    heapsize?: number;
    pystack?: number;
    linebuffer?: boolean;
    stdout?: (bytes: Uint8Array) => void;
    stderr?: (bytes: Uint8Array) => void;
  }): Promise<MicroPython>;
}
