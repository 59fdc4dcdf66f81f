/**
 * `errand fire <agent> --input <json|@file>`: fires runs of an agent and,
 * with `--wait`, waits for their results.
 */
import { ErrandError, type RunResult } from "@errand/core";
import type { Errand, FireManyResult, FireResult, FireSpec } from "@errand/engine";
import { type ParsedArgs, usageError } from "../args.js";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { DURABILITY_OPTION, durabilityOption } from "../durability.js";
import { withErrand } from "../errand-client.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { type FireRequest, readFireRequest } from "../fire-request.js";
import type { CliIO } from "../io.js";
import { metadataOption } from "../metadata-option.js";
import { writeJson, writeLines } from "../output.js";
import { createProgress } from "../progress.js";
import { runDetails } from "../run-details.js";
import { countsLine, resultTable } from "../run-table.js";
import { waitForResults } from "../wait-results.js";

/** Turns a batch every spec of which was refused into the refusal itself. */
function refusalOf(batch: FireManyResult): ErrandError | undefined {
  const first = batch.results[0];
  if (batch.succeeded > 0 || first?.error === undefined) return undefined;
  return new ErrandError(first.error.code as ErrandError["code"], first.error.message);
}

/** What was fired: the runIds, and the answer to print with `--json`. */
interface Fired {
  runIds: string[];
  /** `fire`'s answer for one run, `fireMany`'s batch for `--count`. */
  answer: FireResult | FireManyResult;
}

/** The messages of the answer's warnings (`no_live_worker`), each once. */
function warningsOf(answer: FireResult | FireManyResult): string[] {
  const items = "results" in answer ? answer.results : [answer];
  return [...new Set(items.flatMap((item) => item.warnings ?? []).map(({ message }) => message))];
}

/** What to do about a run that waits for a worker. */
const START_A_WORKER = "start one: errand worker --agents <module>";

/** Fires the request's runs; every refusal (nothing fired) is thrown. */
async function fireRuns(errand: Errand, request: FireRequest): Promise<Fired> {
  const spec: FireSpec = {
    agent: request.agent,
    input: request.input,
    ...(request.outputSchema === undefined ? {} : { outputSchema: request.outputSchema }),
    metadata: request.metadata,
    ...(request.deadlineMs === undefined ? {} : { deadlineMs: request.deadlineMs }),
    ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
    ...(request.priority === undefined ? {} : { priority: request.priority }),
    ...(request.agentVersion === undefined ? {} : { agentVersion: request.agentVersion }),
    ...(request.concurrencyKey === undefined ? {} : { concurrencyKey: request.concurrencyKey }),
    ...(request.tenant === undefined ? {} : { tenant: request.tenant }),
    ...(request.budget === undefined ? {} : { budget: request.budget }),
    ...(request.modelSettings === undefined ? {} : { modelSettings: request.modelSettings }),
  };
  if (request.count === 1) {
    const fired = await errand.fire(spec);
    return { runIds: [fired.runId], answer: fired };
  }
  const batch = await errand.fireMany(Array.from({ length: request.count }, () => spec));
  const refusal = refusalOf(batch);
  if (refusal) throw refusal;
  const runIds = batch.results.flatMap((item) => (item.ok && item.runId ? [item.runId] : []));
  return { runIds, answer: batch };
}

function printFired(io: CliIO, json: boolean, fired: Fired): void {
  if (!json) writeLines(io, fired.runIds);
  else writeJson(io, fired.answer);
}

function printResults(io: CliIO, json: boolean, count: number, results: RunResult[]): void {
  if (count === 1 && results[0] === undefined) return; // it did not settle in time
  if (json) {
    writeJson(io, count === 1 ? results[0] : results);
    return;
  }
  if (count === 1 && results[0] !== undefined) {
    writeLines(io, runDetails(results[0]));
    return;
  }
  const rows = results.map((result) => ({ label: result.runId, result }));
  writeLines(io, [...resultTable("run", rows), "", countsLine(results)]);
}

/**
 * `--timeout` in seconds (0: none). It only bounds `--wait`, so without
 * `--wait` it is refused rather than silently ignored.
 */
function waitTimeoutSeconds(args: ParsedArgs): number {
  const timeoutSeconds = args.integer("timeout", { min: 1, max: 7 * 24 * 3600 }, 0);
  if (timeoutSeconds !== 0 && !args.flag("wait")) {
    throw usageError("fire: --timeout applies to --wait: add --wait");
  }
  return timeoutSeconds;
}

async function fireAndWait(
  args: ParsedArgs,
  io: CliIO,
  request: FireRequest,
  timeoutSeconds: number,
): Promise<ExitCode> {
  const json = args.flag("json");
  const durability = durabilityOption(args, io);
  return withErrand(
    args,
    io,
    async (errand) => {
      const fired = await fireRuns(errand, request);
      const { runIds } = fired;
      const firedAll = runIds.length === request.count;
      const warnings = warningsOf(fired.answer);
      for (const warning of warnings) {
        io.stderr.write(`errand: warning: ${warning} (${START_A_WORKER})\n`);
      }
      if (!args.flag("wait")) {
        printFired(io, json, fired);
        return firedAll ? EXIT.ok : EXIT.failure;
      }
      const progress = createProgress({
        total: runIds.length,
        stream: io.stderr,
        silent: json || runIds.length === 1,
      });
      const settled = await waitForResults(errand, runIds, {
        ...(timeoutSeconds === 0 ? {} : { timeoutMs: timeoutSeconds * 1000 }),
        onSettled: (result) => progress.settled(result),
      });
      progress.finish();
      const results = settled.filter((result): result is RunResult => result !== undefined);
      printResults(io, json, request.count, results);
      const pending = runIds.filter((_, i) => settled[i] === undefined);
      if (pending.length > 0) {
        const why = warnings.map((warning) => `; when fired, ${warning}`).join("");
        io.stderr.write(
          `errand: ${pending.length} run(s) still going after ${timeoutSeconds}s: ${pending.join(" ")}${why}\n`,
        );
      }
      const allSucceeded =
        firedAll && pending.length === 0 && results.every((r) => r.status === "succeeded");
      return allSucceeded ? EXIT.ok : EXIT.failure;
    },
    durability,
  );
}

/** `fire`. */
export const fireCommand: CommandSpec = {
  usage:
    "errand fire <agent> --input <json|@file> [--schema <json|@file>] [--metadata key=value]... [--deadline <seconds>] [--idempotency-key <key>] [--priority <n>] [--agent-version <v>] [--concurrency-key <key>] [--tenant <tenant>] [--budget <json|@file>] [--model-settings <json|@file>] [--count N] [--wait [--timeout <seconds>]] [--durability <acknowledged|replicated>] [--json]",
  description: [
    "Fires a run of <agent> with the given input (inline JSON, or @path to read a file)",
    "and prints its runId. --schema gives the structured output the run must record (a",
    "JSON Schema within the supported subset). --metadata labels the run (repeat it for",
    "more labels); --deadline fails the run with deadline_exceeded when it has not settled",
    "that many seconds after it was fired. --idempotency-key fires at most one run per key",
    "within 24 hours: firing again with the key prints the run fired before (with --json,",
    "its answer says deduplicated: true). --priority puts the run ahead of runs with a",
    "higher number (1 first, 2097151 last; runs without one go before all of them).",
    "--agent-version pins the runs to that version of the agent (default: its newest",
    "live version); a version no worker ever ran is refused. --concurrency-key (e.g. a",
    "tenant) puts the runs under the workers' fleet-wide limit for that key, queued fairly",
    "against other keys' runs. --tenant puts the runs in a tenant: only access keys of",
    "that tenant (or without one) see them.",
    "--budget sets the budget of each run and its tree of descendants, as JSON: any of",
    "tokens, costUsd, steps, runs, and onExceeded (finish-in-flight, the default, or",
    'cancel-tree), e.g. --budget \'{"tokens":200000,"costUsd":1.5}\'. Runs of the tree',
    "stop with budget_exceeded before their next model request once it is spent.",
    "--model-settings gives the runs' model settings over the agent's, as JSON (reasoning,",
    "temperature, topP, maxOutputTokens), e.g. --model-settings '{\"temperature\":0.2}'. A",
    "setting the agent's model refuses, alone or with the agent's own, is refused with",
    "exit code 2 (settings_not_supported), as is a --schema holding a JSON Schema keyword",
    "the model's provider refuses (schema_not_supported).",
    "--count fires that many runs in one batch.",
    "--wait waits until they settle and prints their results (a progress bar on a terminal",
    "when waiting on many); with --json, the RunResult (an array of them with --count).",
    "--timeout bounds that wait and is refused without --wait. With ERRAND_DASHBOARD_URL",
    "set, every run in the --json output carries its viewUrl. A bad --input, --schema or",
    "--metadata, or an agent nobody runs, is refused with exit code 2 before anything is",
    "enqueued. An agent whose workers are all gone is fired all the same, with a warning on",
    "stderr (and warnings in the --json answer): the run waits until one of them starts.",
    "With --wait the exit code is 0 only when every run succeeded. With --durability",
    "replicated a run is printed once a Redis replica has it; one no replica confirmed in",
    "time is refused with exit code 3, naming its runId: it was fired, and firing again",
    "with the same --idempotency-key prints that run once a replica has it.",
  ].join("\n"),
  positionals: [{ name: "agent", description: "the name of a registered agent" }],
  extraArgumentHint: `give the run's input with --input, as JSON (--input '"Ada"' for a text)`,
  options: {
    input: { type: "string", value: "<json|@file>", description: "the run's input" },
    schema: {
      type: "string",
      value: "<json|@file>",
      description: "the JSON Schema of the structured output",
    },
    metadata: metadataOption("a label kept with the run (in its run-queued event)"),
    deadline: {
      type: "string",
      value: "<seconds>",
      description: "fail the run (deadline_exceeded) if it has not settled this long after firing",
    },
    "idempotency-key": {
      type: "string",
      value: "<key>",
      description: "fire at most one run per key (24 h); again, print the run fired before",
    },
    priority: {
      type: "string",
      value: "<n>",
      description: "the run's queue priority: 1 runs first, 2097151 last",
    },
    "agent-version": {
      type: "string",
      value: "<v>",
      description: "the agent version to run on (default: the newest live one)",
    },
    "concurrency-key": {
      type: "string",
      value: "<key>",
      description: "the key (e.g. a tenant) the runs' fleet-wide concurrency is limited under",
    },
    tenant: {
      type: "string",
      value: "<tenant>",
      description: "the tenant the runs belong to (access keys of other tenants never see them)",
    },
    budget: {
      type: "string",
      value: "<json|@file>",
      description: "the budget of the run's tree: tokens, costUsd, steps, runs, onExceeded",
    },
    "model-settings": {
      type: "string",
      value: "<json|@file>",
      description: "the runs' model settings, over the agent's: reasoning, temperature, topP, …",
    },
    count: { type: "string", value: "<N>", description: "fire N runs (default 1)" },
    wait: { type: "boolean", description: "wait for the results" },
    timeout: {
      type: "string",
      value: "<seconds>",
      description: "with --wait, give up waiting after this long (exit 1); needs --wait",
    },
    ...DURABILITY_OPTION,
    ...JSON_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const timeoutSeconds = waitTimeoutSeconds(args);
    const request = await readFireRequest(args, io);
    return fireAndWait(args, io, request, timeoutSeconds);
  },
};
