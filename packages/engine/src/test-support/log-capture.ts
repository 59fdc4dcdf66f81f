/**
 * A pino destination that keeps every line, so a test can wait for a line
 * (an event, not a sleep) and check what was never written. Test-only: not exported.
 */
import { Writable } from "node:stream";
import { createLogger } from "../logger.js";
import type { LogLine } from "./worker-processes.js";

/** Captured log lines and a logger writing to them. */
export interface LogCapture {
  logger: ReturnType<typeof createLogger>;
  /** Every line so far, parsed. */
  lines: LogLine[];
  /** Every line so far, as written. */
  text(): string;
  /** The first line (so far or later) that `matches`. */
  waitFor(matches: (line: LogLine) => boolean): Promise<LogLine>;
}

/** A debug-level engine logger whose lines are captured. */
export function captureLogs(): LogCapture {
  const raw: string[] = [];
  const lines: LogLine[] = [];
  const waiters = new Set<(line: LogLine) => void>();
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split("\n").filter(Boolean)) {
        raw.push(text);
        const line = JSON.parse(text) as LogLine;
        lines.push(line);
        for (const waiter of waiters) waiter(line);
      }
      done();
    },
  });
  return {
    logger: createLogger({ level: "debug", destination }),
    lines,
    text: () => raw.join("\n"),
    waitFor(matches) {
      const seen = lines.find(matches);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => {
        const waiter = (line: LogLine) => {
          if (!matches(line)) return;
          waiters.delete(waiter);
          resolve(line);
        };
        waiters.add(waiter);
      });
    },
  };
}
