/**
 * A FirmwareHost on a virtual clock, for tests of firmware functions called directly: `sleep`
 * advances the clock, input events and Ctrl-C fire at chosen times, so blocking waits end
 * deterministically. (The real host is the VM worker; its tests run real MicroPython.)
 */
import { type FirmwareHost, type InputEvent, PyError } from '../../src/sim/firmware/types.js';

export interface ScriptedHost extends FirmwareHost {
  /** Text written to the main port. */
  main: string[];
  /** Delivers `event` to `apply` once the clock reaches `at` ms. */
  at(at: number, event: InputEvent): void;
  /** Raises a Ctrl-C once the clock reaches `at` ms. */
  interruptAt(at: number): void;
  /** Where input events go (set by the test once the firmware exists). */
  apply: (event: InputEvent) => void;
}

export function scriptedHost(): ScriptedHost {
  let clock = 0;
  let interrupt = Number.POSITIVE_INFINITY;
  const events: Array<{ at: number; event: InputEvent }> = [];
  const host: ScriptedHost = {
    main: [],
    apply: () => {},
    at(at, event) {
      events.push({ at, event });
      events.sort((a, b) => a.at - b.at);
    },
    interruptAt(at) {
      interrupt = at;
    },
    sleep(ms) {
      host.checkInterrupt();
      clock += Math.max(0, ms);
      host.pollInputs();
    },
    checkInterrupt() {
      if (clock >= interrupt) {
        interrupt = Number.POSITIVE_INFINITY;
        throw new PyError('KeyboardInterrupt', '');
      }
    },
    pollInputs() {
      while (events.length > 0 && (events[0]?.at ?? Number.POSITIVE_INFINITY) <= clock) {
        const next = events.shift();
        if (next) host.apply(next.event);
      }
    },
    writeMain(text) {
      host.main.push(text);
    },
    now: () => clock,
  };
  return host;
}
