/**
 * Progress of long CLI work (fs dump, library install, a sweep from `call`) on stderr: a bar
 * redrawn in place on a terminal, plain lines otherwise (a log or a pipe keeps every line, and
 * no control characters end up in it). stdout stays the command's data.
 */

export interface Progress {
  /** `done` of `total` (total unknown: a spinner on a terminal), with what is being done. */
  update(done: number, total?: number, message?: string): void;
  /** Ends the bar's line (a terminal) and says the last word, if any. */
  done(message?: string): void;
}

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const SPINNER = ['|', '/', '-', '\\'];
const BAR_WIDTH = 24;

export function progressOn(stream: ProgressStream, label: string): Progress {
  return stream.isTTY ? terminalProgress(stream, label) : lineProgress(stream, label);
}

function terminalProgress(stream: ProgressStream, label: string): Progress {
  let frame = 0;
  let drawn = false;
  // A pty nobody sized says 0 columns: take the usual 80 then.
  const width = () => Math.max(20, (stream.columns || 80) - 1);
  return {
    update(done, total, message) {
      let gauge: string;
      if (total !== undefined && total > 0) {
        const share = Math.min(1, Math.max(0, done / total));
        const filled = Math.round(share * BAR_WIDTH);
        gauge = `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${Math.round(share * 100)}%`;
      } else {
        gauge = `${SPINNER[frame++ % SPINNER.length]} ${done}`;
      }
      const line = `${label} ${gauge}${message ? ` ${message}` : ''}`.slice(0, width());
      // \r and clear-to-end: the bar is redrawn in place, never scrolled.
      stream.write(`\r${line}\x1b[K`);
      drawn = true;
    },
    done(message) {
      if (drawn) stream.write('\r\x1b[K');
      if (message) stream.write(`${label} ${message}\n`);
      drawn = false;
    },
  };
}

/** One line per tenth of the work (or per new message), so a log is readable and short. */
function lineProgress(stream: ProgressStream, label: string): Progress {
  let lastTenth = -1;
  let lastMessage: string | undefined;
  return {
    update(done, total, message) {
      if (total !== undefined && total > 0) {
        const tenth = Math.floor((Math.min(done, total) / total) * 10);
        if (tenth === lastTenth && message === lastMessage) return;
        lastTenth = tenth;
        lastMessage = message;
        stream.write(
          `${label}: ${done}/${total} (${Math.round((Math.min(done, total) / total) * 100)}%)${message ? ` ${message}` : ''}\n`,
        );
        return;
      }
      if (message === lastMessage) return;
      lastMessage = message;
      stream.write(`${label}: ${done}${message ? ` ${message}` : ''}\n`);
    },
    done(message) {
      if (message) stream.write(`${label}: ${message}\n`);
    },
  };
}
