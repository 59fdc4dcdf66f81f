/**
 * `errand eval run`: evaluates a candidate agent of a module against
 * recorded runs (docs/guide/evaluations.md). Progress goes to stderr; Ctrl-C
 * stops between cases and leaves the evaluation to resume with `--resume`.
 */

import type { RunFilter } from "@errand/engine";
import type { Agent } from "@errand/runtime";
import { loadAgents } from "../agents-module.js";
import { type ParsedArgs, usageError } from "../args.js";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { withErrand } from "../errand-client.js";
import { evaluationLines, evaluationProgress } from "../evaluation-lines.js";
import { EXIT } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { catchStopSignals } from "../lifecycle.js";
import { modelFromEnv } from "../models.js";
import { writeJson, writeLines } from "../output.js";

const POLICIES = ["refuse", "fail", "live"] as const;
const STATUSES = ["succeeded", "failed", "cancelled"] as const;

function oneOf<T extends string>(
  args: ParsedArgs,
  name: string,
  values: readonly T[],
): T | undefined {
  const value = args.string(name);
  if (value === undefined || (values as readonly string[]).includes(value))
    return value as T | undefined;
  throw usageError(
    `eval run: --${name} must be one of ${values.join(", ")}, not ${JSON.stringify(value)}`,
  );
}

function metadataOf(args: ParsedArgs): Record<string, string> | undefined {
  const pairs = args.strings("metadata");
  if (pairs.length === 0) return undefined;
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf("=");
      if (at < 1)
        throw usageError(`eval run: --metadata takes key=value, not ${JSON.stringify(pair)}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/** The runs asked for: `--run` ids, or a filter from the other options. */
function runsOf(args: ParsedArgs): string[] | RunFilter | undefined {
  const runIds = args.strings("run");
  if (runIds.length > 0) return runIds;
  const agent = args.string("from-agent");
  const status = oneOf(args, "status", STATUSES);
  const since = args.string("since");
  const until = args.string("until");
  const metadata = metadataOf(args);
  const limit = args.integer("limit", { min: 1, max: 1000 }, 100);
  return {
    limit,
    ...(agent === undefined ? {} : { agent }),
    ...(status === undefined ? {} : { status }),
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
    ...(metadata === undefined ? {} : { metadata }),
  };
}

async function candidateOf(args: ParsedArgs, io: CliIO): Promise<Agent> {
  const module = args.string("agents");
  if (module === undefined)
    throw usageError("eval run: --agents <module> names the module of the candidate agent");
  const agents = await loadAgents(io, module);
  const name = args.string("agent");
  if (name === undefined && agents.length === 1) return agents[0]!;
  const found = agents.find((agent) => agent.name === name);
  if (found !== undefined) return found;
  const names = agents.map((agent) => agent.name).join(", ");
  throw usageError(`eval run: --agent names the candidate among ${module}'s agents (${names})`);
}

/** `eval run`. */
export const evalRunCommand: CommandSpec = {
  usage:
    "errand eval run --agents <module> [--agent <name>] [--run <runId>]… [--from-agent <name>] [--status <status>] [--since <time>] [--until <time>] [--metadata key=value]… [--limit N] [--tools recorded|live] [--on-unrecorded refuse|fail|live] [--concurrency N] [--resume <evaluationId>] [--json]",
  description: [
    "Runs the candidate agent (--agent of the --agents module; its model from OPENAI_* like",
    "the worker's) on the input of each recorded run, in this process, and keeps the",
    "evaluation in Redis. The runs: each --run, or the settled runs matching --from-agent,",
    "--status, --since, --until (ISO-8601) and --metadata, newest --limit (default 100).",
    "--tools recorded (default) answers each tool call from the run's log; a call the log",
    "cannot answer is refused (--on-unrecorded refuse, default), fails the case (fail) or",
    "runs the tool (live). Progress (cases done, changed, failed, cost) goes to stderr;",
    "Ctrl-C stops between cases, and --resume <evaluationId> finishes the rest. Prints the",
    "evaluation, changed cases first (--json: the whole record). Exits 1 when a case failed.",
  ].join("\n"),
  options: {
    agents: {
      type: "string",
      value: "<module>",
      description: "the module exporting the candidate agent",
    },
    agent: {
      type: "string",
      value: "<name>",
      description: "the candidate, by name (default: the module's only agent)",
    },
    run: {
      type: "string",
      multiple: true,
      value: "<runId>",
      description: "a recorded run to evaluate",
    },
    "from-agent": { type: "string", value: "<name>", description: "the runs of this agent" },
    status: {
      type: "string",
      value: "<status>",
      description: `the runs that ended so: ${STATUSES.join(", ")}`,
    },
    since: {
      type: "string",
      value: "<time>",
      description: "the runs created at or after this time",
    },
    until: { type: "string", value: "<time>", description: "the runs created before this time" },
    metadata: {
      type: "string",
      multiple: true,
      value: "key=value",
      description: "the runs fired with this label",
    },
    limit: {
      type: "string",
      value: "<N>",
      description: "the most runs a filter takes (default 100, at most 1000)",
    },
    tools: {
      type: "string",
      value: "recorded|live",
      description: "answer tool calls from the log (default) or run the tools",
    },
    "on-unrecorded": {
      type: "string",
      value: "refuse|fail|live",
      description: "what a call the log cannot answer gets (default refuse)",
    },
    concurrency: { type: "string", value: "<N>", description: "cases run at once (default 4)" },
    resume: {
      type: "string",
      value: "<evaluationId>",
      description: "finish an interrupted evaluation",
    },
    ...JSON_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const agent = await candidateOf(args, io);
    const tools = oneOf(args, "tools", ["recorded", "live"] as const);
    const onUnrecorded = oneOf(args, "on-unrecorded", POLICIES);
    const resume = args.string("resume");
    const json = args.flag("json");
    const progress = evaluationProgress(io.stderr, json);
    const stop = new AbortController();
    const signals = catchStopSignals();
    void signals.first.then((signal) => {
      if (signal !== undefined) stop.abort(signal);
    });
    try {
      const model =
        typeof agent.model === "string" ? (await modelFromEnv(io.env)).model : undefined;
      const evaluation = await withErrand(args, io, (errand) =>
        errand.evaluate({
          agent,
          ...(resume === undefined ? { runs: runsOf(args) } : { resume }),
          ...(model === undefined ? {} : { model }),
          ...(tools === undefined ? {} : { tools }),
          ...(onUnrecorded === undefined ? {} : { onUnrecorded }),
          concurrency: args.integer("concurrency", { min: 1, max: 32 }, 4),
          signal: stop.signal,
          onProgress: (p) => progress.report(p),
        }),
      );
      progress.finish();
      if (json) writeJson(io, evaluation);
      else writeLines(io, evaluationLines(evaluation));
      if (evaluation.status === "interrupted") {
        io.stderr.write(
          `interrupted: finish it with errand eval run --agents ${args.string("agents")} --agent ${agent.name} --resume ${evaluation.evaluationId}\n`,
        );
        return EXIT.failure;
      }
      return evaluation.totals.failed > 0 ? EXIT.failure : EXIT.ok;
    } finally {
      signals.release();
    }
  },
};
