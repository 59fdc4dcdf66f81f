/**
 * Replays every golden history through the built `@errand/core`: validates
 * each event, folds the log, settles it and compares the result with the
 * committed one. Prints one table row per history and exits 1 on any mismatch.
 *
 * Usage: `node test/golden/replay.mjs` (after building @errand/core).
 */
import { isDeepStrictEqual } from "node:util";

const core = await import("@errand/core").catch((error) => {
  process.stderr.write(
    "replay needs the built @errand/core: run `npx turbo run build --filter @errand/core` first.\n",
  );
  throw error;
});
const { loadGoldenHistories } = await import("./histories.mjs");

const OUTCOME_WIDTH = 48;

/** Shortens `text` to the outcome column, on one line. */
function clip(text) {
  const line = text.replaceAll("\n", " ");
  return line.length <= OUTCOME_WIDTH ? line : `${line.slice(0, OUTCOME_WIDTH - 1)}…`;
}

/** What a settled run came to, in a few words: its output, text or error code. */
function outcomeOf(result) {
  if (result.status !== "succeeded") return result.error?.code ?? "(no error)";
  if ("output" in result) return clip(JSON.stringify(result.output));
  return clip(JSON.stringify(result.text ?? ""));
}

/** Folds one history; never throws: a broken history is a mismatch with a reason. */
function replay({ name, events, expected }) {
  try {
    const log = events.map((event) => core.RunEvent.parse(event));
    const result = core.settleRun(core.foldRun(log));
    if (result === undefined) {
      return { name, status: "(unsettled)", outcome: "", steps: "", matches: false };
    }
    const actual = JSON.parse(JSON.stringify(result));
    const matches = isDeepStrictEqual(actual, expected);
    return { name, ...summary(result), matches, ...(matches ? {} : { actual, expected }) };
  } catch (error) {
    const reason = core.isErrandError(error) ? error.code : "invalid";
    return { name, status: "(error)", outcome: reason, steps: "", matches: false, error };
  }
}

function summary(result) {
  return { status: result.status, outcome: outcomeOf(result), steps: String(result.steps) };
}

function printTable(rows) {
  const header = { name: "history", status: "status", outcome: "output / error", steps: "steps" };
  const widths = Object.fromEntries(
    Object.keys(header).map((key) => [
      key,
      Math.max(...[header, ...rows].map((r) => r[key].length)),
    ]),
  );
  const line = (row, mark) =>
    [
      row.name.padEnd(widths.name),
      row.status.padEnd(widths.status),
      row.outcome.padEnd(widths.outcome),
      row.steps.padStart(widths.steps),
      mark,
    ].join("  ");
  process.stdout.write(`${line(header, "matches")}\n`);
  for (const row of rows) process.stdout.write(`${line(row, row.matches ? "✓" : "✗")}\n`);
}

function printMismatches(rows) {
  for (const row of rows.filter((r) => !r.matches)) {
    process.stdout.write(`\n✗ ${row.name}\n`);
    if (row.error) process.stdout.write(`  ${row.error.message ?? row.error}\n`);
    if (row.actual) {
      process.stdout.write(`  expected: ${JSON.stringify(row.expected)}\n`);
      process.stdout.write(`  actual:   ${JSON.stringify(row.actual)}\n`);
    }
  }
}

const rows = loadGoldenHistories().map(replay);
printTable(rows);
printMismatches(rows);
const failures = rows.filter((row) => !row.matches).length;
process.stdout.write(
  `\n${rows.length - failures} of ${rows.length} golden histories settle to their committed result.\n`,
);
process.exitCode = failures === 0 ? 0 : 1;
