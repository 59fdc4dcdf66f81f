/**
 * Progress while runs settle, on stderr so stdout stays for results. On a
 * terminal: one line that updates in place, with a bar and the counts by
 * status. Elsewhere: one line per settled run. With `--json`: nothing.
 */
import type { RunResult } from "@errand/core";
import type { OutputStream } from "./io.js";

const BAR_WIDTH = 24;

/** Tells how runs settle. */
export interface Progress {
  /** One more run settled; `label` names it (default its runId). */
  settled(result: RunResult, label?: string): void;
  /** Ends the display (a terminal's line is kept, followed by a newline). */
  finish(): void;
}

/** Options of {@link createProgress}. */
export interface ProgressOptions {
  /** How many runs will settle. */
  total: number;
  /** Where to draw (stderr). */
  stream: OutputStream;
  /** Draw nothing (`--json`). */
  silent: boolean;
}

function bar(done: number, total: number): string {
  const filled = total === 0 ? BAR_WIDTH : Math.round((done / total) * BAR_WIDTH);
  return `[${"█".repeat(filled)}${"░".repeat(BAR_WIDTH - filled)}]`;
}

/** A progress display for `total` runs. */
export function createProgress({ total, stream, silent }: ProgressOptions): Progress {
  const counts = { succeeded: 0, failed: 0, cancelled: 0 };
  let done = 0;
  const line = () =>
    `${bar(done, total)} ${done}/${total} settled · ${counts.succeeded} succeeded · ${counts.failed} failed · ${counts.cancelled} cancelled`;
  if (!silent && stream.isTTY) stream.write(line());
  return {
    settled(result, label) {
      done += 1;
      counts[result.status] += 1;
      if (silent) return;
      if (stream.isTTY) {
        stream.write(`\r\x1b[2K${line()}`);
        return;
      }
      const error = result.error === undefined ? "" : ` (${result.error.code})`;
      stream.write(`${done}/${total} ${label ?? result.runId} ${result.status}${error}\n`);
    },
    finish() {
      if (!silent && stream.isTTY) stream.write("\n");
    },
  };
}
