/**
 * Helper priming: `_jlh` and the namespaces added with `addHelper` live in the board's RAM, so
 * every reset loses them. This keeps track of what is on the board and sends what is missing,
 * before the next job rather than at the reset itself.
 */
import { firmwareOf } from './banner.js';
import { raceDeadline } from './deadlineRace.js';
import { DeviceError } from './errors.js';
import type { SessionStats } from './health.js';
import {
  callSnippet,
  HELPER_CHECK,
  HELPER_NAME,
  HELPER_SOURCE,
  parseMarked,
  RESTORE_FIRMWARE_GLOBALS,
} from './helper.js';
import { pythonError } from './jobErrors.js';
import { encodeCode, encodeExec } from './rawRepl.js';
import type { ExecOutcome } from './replDriver.js';
import type { HelperModule, SessionCore } from './sessionTypes.js';

/** Whether the helpers were on the board before a recovery, to tell afterwards if they survived it. */
export interface PrimedState {
  primed: boolean;
  pending: HelperModule[];
}

export class HelperPrimer {
  private readonly helpers: HelperModule[] = [];
  /** `_jlh` is on the board (and its info read). */
  primed = false;
  /** Before the next prime, put the firmware's names back in the globals (a helper hit a NameError). */
  restoreGlobals = false;
  /** Added helpers still to send, in order. */
  pending: HelperModule[] = [];

  constructor(
    private readonly core: SessionCore,
    private readonly stats: SessionStats,
  ) {}

  /** Something to send before the next job. */
  get needed(): boolean {
    return !this.primed || this.pending.length > 0;
  }

  /** Keeps another helper namespace on the board, sent before the next job and after every reset. */
  add(helper: HelperModule): void {
    encodeCode(helper.source); // refuse bad bytes now, not at some later reconnect
    this.helpers.push(helper);
    this.pending.push(helper);
  }

  /** The board's globals are gone (a reset, a new link): everything is sent again. */
  forget(): void {
    this.primed = false;
    this.pending = [...this.helpers];
  }

  /**
   * After a deep recovery: is the helper still in RAM? Leaving and re-entering raw mode keeps
   * the globals; a reboot does not. Restores the primed state when it survived.
   */
  async survived(before: PrimedState): Promise<boolean> {
    if (!before.primed) return true;
    const present = (await this.bounded(HELPER_CHECK)).stdout.trim() === '1';
    this.primed = present;
    this.pending = present ? before.pending : [...this.helpers];
    return present;
  }

  async prime(): Promise<void> {
    // A repair re-sends everything: the check only sees `_jlh`, not the globals its source binds.
    const repair = this.restoreGlobals;
    if (repair) {
      await this.bounded(RESTORE_FIRMWARE_GLOBALS, true);
      this.restoreGlobals = false;
    }
    if (!this.primed) {
      const present = !repair && (await this.bounded(HELPER_CHECK)).stdout.trim() === '1';
      if (!present) {
        await this.bounded(HELPER_SOURCE, true);
        this.pending = [...this.helpers];
      }
      const info = parseMarked((await this.bounded(callSnippet(`${HELPER_NAME}.info()`), true)).stdout) as {
        micropython?: string;
        machine?: string;
      };
      // The banner (asked for on connect) is the better source; this fills what it did not say.
      this.stats.info = {
        ...(info.micropython ? { micropython: info.micropython } : {}),
        ...(info.machine ? { machine: info.machine, ...firmwareOf(info.machine) } : {}),
        ...this.stats.info,
      };
      this.primed = true;
    }
    while (this.pending.length > 0) {
      const helper = this.pending[0] as HelperModule;
      await this.bounded(helper.source, true);
      this.pending.shift();
    }
  }

  /** An internal exec with the connect timeout; no recovery of its own (the caller drops the link). */
  private async bounded(code: string, mustSucceed = false): Promise<ExecOutcome> {
    const { driver, clock, options, link } = this.core;
    const exec = driver.exec(encodeExec(code));
    exec.catch(() => {});
    const race = await raceDeadline(clock, exec, options.connectTimeoutMs, undefined);
    if (race.kind !== 'done') {
      driver.abandon(new DeviceError('timeout', 'setup step timed out'));
      throw new DeviceError(
        'protocol',
        `${link.id} did not answer a setup step within ${options.connectTimeoutMs} ms`,
      );
    }
    if (mustSucceed && race.outcome.stderr) throw pythonError(race.outcome);
    return race.outcome;
  }
}
