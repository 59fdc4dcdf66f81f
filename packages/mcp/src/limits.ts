/**
 * The sizes every MCP result of errand keeps to (docs/architecture/mcp.md#sizes):
 * how long a wait lasts, how many runs a page holds, how much of an output
 * travels inline and how large a whole answer may grow. One place, so the
 * docs, the tool descriptions and the tests read the same numbers.
 */

/** How long `wait_runs` waits by default, and at most, in seconds: under the tool-call timeouts of MCP clients. */
export const WAIT_SECONDS = { default: 30, max: 60 } as const;

/** How many runs one page of `wait_runs` holds by default, and at most. */
export const WAIT_PAGE_LIMITS = { default: 20, max: 50 } as const;

/** How many events one page of `get_run` holds by default, and at most. */
export const EVENT_PAGE_LIMITS = { default: 20, max: 100 } as const;

/** How many waiting runs one page of `list_waiting` holds by default, and at most. */
export const WAITING_PAGE_LIMITS = { default: 20, max: 100 } as const;

/** The most runs one `start_runs`, `wait_runs` or `cancel_runs` call takes. */
export const MAX_BATCH_RUNS = 500;

/**
 * How many characters of an output's JSON, or of a text, travel inline: at
 * `detail: "summary"` and at `detail: "full"`. A longer value is cut there,
 * flagged `outputTruncated` / `textTruncated`, and referenced by
 * `errand://runs/<runId>/result`, the resource that returns the whole.
 */
export const INLINE_CHARS = { summary: 500, full: 8_000 } as const;

/** How many characters of one event's data `get_run` shows inline. */
export const EVENT_DATA_CHARS = 2_000;

/**
 * The most bytes one tool answer takes as a JSON-RPC message: a page of
 * `wait_runs` ends early (`hasMore`, `nextCursor`) rather than pass it.
 */
export const ANSWER_BYTE_BUDGET = 64 * 1024;

/** How often a waiting `wait_runs` looks again and reports progress, in ms. */
export const PROGRESS_INTERVAL_MS = 1_000;
