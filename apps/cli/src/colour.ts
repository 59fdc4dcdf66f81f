/**
 * Colours for people: ANSI styles on a terminal, nothing when the output is
 * piped or when `NO_COLOR` is set to anything but the empty string
 * (https://no-color.org), so that what a script reads never carries escape
 * codes.
 */
import type { HeadStatus } from "@errand/store";
import type { CliIO, OutputStream } from "./io.js";

/** The styles the CLI uses. */
export type Style = "green" | "red" | "yellow" | "cyan" | "dim";

/** ANSI SGR codes of each style: the one that turns it on and the one that turns it off. */
const SGR: Readonly<Record<Style, readonly [on: number, off: number]>> = {
  green: [32, 39],
  red: [31, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  dim: [2, 22],
};

/** Styles `text`, or returns it as is when colours are off. */
export type Paint = (style: Style, text: string) => string;

/** Colours on: `text` between the style's codes. */
export const ANSI_PAINT: Paint = (style, text) => {
  const [on, off] = SGR[style];
  return `\x1b[${on}m${text}\x1b[${off}m`;
};

/** Colours off: `text` unchanged. */
export const PLAIN_PAINT: Paint = (_style, text) => text;

/** Whether to colour what goes to `stream`: a terminal, and `NO_COLOR` unset or empty. */
export function colourWanted(stream: OutputStream, env: CliIO["env"]): boolean {
  const noColor = env.NO_COLOR;
  return stream.isTTY === true && (noColor === undefined || noColor === "");
}

/** How to paint what the command writes on stdout. */
export function stdoutPaint(io: CliIO): Paint {
  return colourWanted(io.stdout, io.env) ? ANSI_PAINT : PLAIN_PAINT;
}

/** The colour of each run status: green succeeded, red failed, yellow cancelled, cyan running, dim queued. */
export const STATUS_STYLE: Readonly<Record<HeadStatus, Style>> = {
  queued: "dim",
  running: "cyan",
  succeeded: "green",
  failed: "red",
  cancelled: "yellow",
};
