/**
 * The board's "core 0": one worker thread that owns the MicroPython VM, the simulated firmware and
 * the flash, and serves the byte traffic of the USB ports. While a script runs, this thread is busy,
 * so the other ports wait, as on the board (spec §3.3); Ctrl-C reaches a running script through a
 * shared flag that every firmware call and every sleep checks.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { BackchannelPort } from './backchannelPort.js';
import {
  createFirmware,
  type FirmwareHost,
  type InputEvent,
  PyError,
  SERVICE_INTERVAL_MS,
} from './firmware/index.js';
import { FlashTracker, virtualFs } from './flashSync.js';
import { MainPort } from './mainPort.js';
import { firmwareBanner, ReplPort } from './replPort.js';
import { Vm } from './vm.js';
import {
  CONTROL,
  type FromWorker,
  INTERRUPT,
  type PortName,
  RESET_CAUSE,
  type ToWorker,
  type WorkerInit,
} from './workerProtocol.js';

const init = workerData as WorkerInit;
const control = new Int32Array(init.control);
const inputPort = init.inputPort;
const bootTime = performance.now();

function post(message: FromWorker): void {
  parentPort?.postMessage(message);
}

/**
 * Output produced while a message is handled waits until the flash is synced, so that a host that
 * sees a reply and then pulls the power finds the files written before it.
 */
let heldOutput: FromWorker[] | undefined;

function send(port: PortName, data: Uint8Array): void {
  if (data.length === 0) return;
  if (heldOutput) heldOutput.push({ t: 'out', port, data });
  else post({ t: 'out', port, data });
}

function releaseOutput(): void {
  if (!heldOutput) return;
  const held = heldOutput;
  heldOutput = [];
  for (const message of held) post(message);
}

/** Where the VM's stdout currently goes: CDC2 normally, CDC0 while a `>` line runs. */
let vmOutput: number[] = [];
let outputToMain = false;
let repl: ReplPort | undefined;
/** A Ctrl-D reached the running script (Python_Proper.cpp:514-523): soft reset once it ends. */
let resetRequested = false;
/**
 * jl_soft_reboot empties CDC2's receive buffer (JumperlessMicroPythonAPI.cpp:1346-1352): REPL bytes
 * the host sent before that moment are lost.
 */
let replDrainedAt = 0;

const host: FirmwareHost = {
  sleep(ms) {
    const deadline = performance.now() + Math.max(0, ms);
    for (;;) {
      host.checkInterrupt();
      host.pollInputs();
      const left = deadline - performance.now();
      if (left <= 0) return;
      const wake = Atomics.load(control, CONTROL.wake);
      Atomics.wait(control, CONTROL.wake, wake, Math.min(left, 50));
    }
  },
  checkInterrupt() {
    const pending = Atomics.exchange(control, CONTROL.interrupt, 0);
    if (pending & INTERRUPT.softReset) {
      // What the firmware schedules is the SystemExit type; the REPL port frames the result.
      resetRequested = true;
      throw new PyError('SystemExit', '');
    }
    if (pending & INTERRUPT.keyboard) throw new PyError('KeyboardInterrupt', '');
  },
  pollInputs() {
    for (let message = receiveMessageOnPort(inputPort); message; message = receiveMessageOnPort(inputPort)) {
      firmware.applyInput(message.message as InputEvent);
    }
  },
  writeMain(text) {
    send('main', crlf(text));
  },
  now: () => performance.now() - bootTime,
};

let vm: Vm;
const firmware = createFirmware({
  host,
  get fs() {
    return virtualFs(vm.mp.FS);
  },
  ...(init.partsFileText === undefined ? {} : { partsFileText: init.partsFileText }),
  ...(init.noiseSeed === undefined ? {} : { noiseSeed: init.noiseSeed }),
  firmware: init.firmware,
  psram: init.psram,
});

firmware.functions._sleep_ms = (ms) => {
  host.sleep(typeof ms === 'number' ? ms : 0);
  return null;
};
// machine.reset(): a watchdog reboot (modmachine_jl.inc:50-56). The board thread asks for it and
// waits to be ended; it never returns to the script.
firmware.functions._machine_reset = () => {
  publishNow();
  post({ t: 'reboot', cause: 'watchdog' });
  for (;;) Atomics.wait(control, CONTROL.wake, Atomics.load(control, CONTROL.wake), 50);
};
firmware.functions._machine_reset_cause = () =>
  init.resetCause === 'watchdog' ? RESET_CAUSE.watchdog : RESET_CAUSE.powerOn;

function flushVmOutput(): void {
  if (vmOutput.length === 0) return releaseOutput();
  if (outputToMain) {
    send('main', crlf(new TextDecoder().decode(Uint8Array.from(vmOutput))));
    vmOutput = [];
  } else {
    // During boot (module import) there is no REPL yet: the output waits for it.
    repl?.streamOutput();
  }
  releaseOutput();
}

function takeOutput(): Uint8Array {
  const bytes = Uint8Array.from(vmOutput);
  vmOutput = [];
  return bytes;
}

vm = await Vm.create({
  functions: firmware.functions,
  onOutput: (bytes) => {
    for (const b of bytes) vmOutput.push(b);
  },
  beforeCall: () => {
    flushVmOutput();
    // Every module call is a place where the board notices Ctrl-C (spec §3.3).
    host.checkInterrupt();
  },
  heapBytes: init.heapBytes,
  firmware: init.firmware,
});
vmOutput = []; // the VM's own boot banner: the firmware's went out at power-on, to nobody
const flash = new FlashTracker(vm.mp.FS);
flash.load(init.files);
// The firmware is up (flash mounted, state loaded) before MicroPython starts (main.cpp, then
// initMicroPythonProper on the first CDC2 service).
firmware.functions._boot?.();
const { bootPyError } = vm.boot();
vmOutput = []; // what MicroPython prints at init goes to a port nobody listens to yet
flash.changes();

/** Nobody ever notifies it: waiting on it is a plain sleep of the board thread. */
const idleCell = new Int32Array(new SharedArrayBuffer(4));

/** Sends the held output now, after syncing the flash (so a host that then pulls power finds it). */
function publishNow(): void {
  const changes = flash.changes();
  if (changes.length > 0) post({ t: 'fs', changes });
  releaseOutput();
}

repl = new ReplPort(
  {
    banner: firmwareBanner(init.firmware),
    feed: (byte) => vm.feedRepl(byte),
    takeOutput,
    softReset: () => {
      replDrainedAt = Date.now();
      resetRequested = false;
      // jl_soft_reboot closes every jfs file before the VM goes (JumperlessMicroPythonAPI.cpp:1368).
      firmware.functions._jfs_close_all?.();
      vm.softReset();
      vmOutput = [];
    },
    beforeRun: () => {
      resetRequested = false;
      releaseOutput();
    },
    publish: publishNow,
    scriptRunning: markScriptRunning,
    pause: (ms) => {
      if (ms > 0) Atomics.wait(idleCell, 0, 0, ms);
    },
    takeResetRequest: () => {
      const requested =
        resetRequested || (Atomics.exchange(control, CONTROL.interrupt, 0) & INTERRUPT.softReset) !== 0;
      resetRequested = false;
      return requested;
    },
  },
  (data) => send('repl', data),
);

const mainPort = new MainPort({
  functions: firmware.functions,
  write: (text) => send('main', crlf(text)),
  writeRaw: (data) => send('main', data),
  runPython: (code) => {
    outputToMain = true;
    markScriptRunning(true);
    try {
      const traceback = vm.runFile(code);
      flushVmOutput();
      resetRequested = false;
      if (traceback) send('main', crlf(traceback));
      // After every `>` line the firmware closes all jfs files (spec §2.4).
      firmware.functions._jfs_close_all?.();
    } finally {
      markScriptRunning(false);
      outputToMain = false;
    }
  },
});

const backchannel = new BackchannelPort({
  functions: firmware.functions,
  write: (text) => send('backchannel', crlf(text)),
});

function crlf(text: string): Uint8Array {
  return new TextEncoder().encode(text.replace(/\r?\n/g, '\r\n'));
}

/**
 * While a script runs the host peeks at arriving bytes for Ctrl-C/Ctrl-D, as the firmware does; at any
 * other time (a byte being echoed, an autosave) they are queued for the REPL like any other byte.
 */
function markScriptRunning(running: boolean): void {
  Atomics.store(control, CONTROL.busy, running ? 1 : 0);
}

/** One turn of the board's main loop: `work` (bytes from a port, or nothing), then the flash synced and the output released. */
function mainLoopTurn(work: () => void): void {
  Atomics.add(control, CONTROL.turn, 1);
  heldOutput = [];
  try {
    host.pollInputs();
    work();
  } catch (error) {
    // The firmware must outlive any bug of ours; say what happened on the main port, as the board
    // prints its debug lines there.
    const text = error instanceof Error ? error.message : String(error);
    send('main', crlf(`[sim] internal error: ${text}\n`));
  } finally {
    markScriptRunning(false);
    Atomics.store(control, CONTROL.interrupt, 0);
  }
  const changes = flash.changes();
  if (changes.length > 0) post({ t: 'fs', changes });
  const held = heldOutput;
  heldOutput = undefined;
  for (const message of held) post(message);
}

parentPort?.on('message', (message: ToWorker) => {
  if (message.t !== 'bytes') return;
  if (message.port === 'repl' && message.at <= replDrainedAt) return;
  mainLoopTurn(() => {
    // On 5.7.11 raw-REPL traffic is user input too: it holds the autosave off (firmware.ts).
    if (message.port === 'repl' && firmware.hardware.firmware.behaviour.replTrafficHoldsAutosave) {
      firmware.noteUserInput();
    }
    if (message.port === 'repl') repl.feed(message.data);
    else if (message.port === 'main') {
      // Typing on the main port is user input: the autosave waits for quiet (main.cpp:1084-1091).
      firmware.noteUserInput();
      mainPort.feed(message.data);
    } else if (message.port === 'backchannel') backchannel.feed(message.data);
  });
});

// The main loop's idle services (autosave and the like) run between messages, never during a script.
setInterval(
  () =>
    mainLoopTurn(() => {
      firmware.functions._service?.();
      // bg_start's callback ticks from the main loop, never while a script runs (MpBackground.cpp).
      if (firmware.hardware.bgActive) runBackgroundTick();
    }),
  SERVICE_INTERVAL_MS,
).unref();

/** One bg_start tick: its output goes to the REPL port, as the firmware's mp_plat_print does. */
function runBackgroundTick(): void {
  markScriptRunning(true);
  try {
    const traceback = vm.runFile(`_bg_tick(${Math.floor(host.now())})`);
    if (traceback) firmware.hardware.bgActive = false;
    send('repl', takeOutput());
  } finally {
    markScriptRunning(false);
  }
}

if (vm.bootError) send('main', crlf(`[sim] the jumperless module failed to load:\n${vm.bootError}`));
// The board prints this on CDC2 at power-on, before any host listens; shown here so it is not lost.
if (bootPyError) send('main', crlf(`[sim] boot.py raised:\n${bootPyError}`));
if (init.announceBoot) repl.bootBanner();
post({ t: 'ready' });
