/** One golden history: a run's log and the result it must settle to. */
export interface GoldenHistory {
  /** The file name without `.events.json`. */
  name: string;
  /** The raw events, as committed (validate them with `RunEvent`). */
  events: unknown[];
  /** The committed `RunResult`, as raw JSON. */
  expected: unknown;
}

/** The folder that holds the golden histories. */
export declare const GOLDEN_DIR: string;

/**
 * Every golden history in `dir` (default {@link GOLDEN_DIR}), sorted by name.
 * Throws an `ErrandError` when a history lacks its result file or its events
 * are not a JSON array.
 */
export declare function loadGoldenHistories(dir?: string): GoldenHistory[];
