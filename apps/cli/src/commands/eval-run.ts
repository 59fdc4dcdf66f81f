/**
 * `errand eval run`: evaluates a candidate agent of a module against
 * recorded runs (docs/guide/evaluations.md). Progress goes to stderr; Ctrl-C
 * stops between cases and leaves the evaluation to resume with `--resume`.
 */

import type { EvaluateOptions, FleetCandidate } from "@errand/engine";
import type { Agent } from "@errand/runtime";
import { loadAgents } from "../agents-module.js";
import { type ParsedArgs, usageError } from "../args.js";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { DURABILITY_OPTION, durabilityOption } from "../durability.js";
import { withErrand } from "../errand-client.js";
import { evaluationLines, evaluationProgress } from "../evaluation-lines.js";
import { oneOf, RUN_SELECTION_OPTIONS, runSelectionOf } from "../evaluation-runs-args.js";
import { EXIT } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { catchStopSignals } from "../lifecycle.js";
import { modelFromEnv } from "../models.js";
import { writeJson, writeLines } from "../output.js";

const COMMAND = "eval run";
const POLICIES = ["refuse", "fail", "live"] as const;

/** The runs asked for: a saved `--set`, `--run` ids, or a filter. */
function runsOf(args: ParsedArgs): EvaluateOptions["runs"] {
  const set = args.string("set");
  return set === undefined ? runSelectionOf(COMMAND, args) : { set };
}

async function candidateOf(args: ParsedArgs, io: CliIO): Promise<Agent | FleetCandidate> {
  const name = args.string("agent");
  if (args.flag("fleet")) {
    if (name === undefined)
      throw usageError("eval run: --fleet needs --agent <name>, the agent live workers run");
    const version = args.string("version");
    return { agent: name, ...(version === undefined ? {} : { version }) };
  }
  if (args.string("version") !== undefined)
    throw usageError("eval run: --version names a version live workers run: give --fleet too");
  const module = args.string("agents");
  if (module === undefined)
    throw usageError(
      "eval run: --agents <module> names the module of the candidate agent (or --fleet --agent <name> for live workers)",
    );
  const agents = await loadAgents(io, module);
  if (name === undefined && agents.length === 1) return agents[0]!;
  const found = agents.find((agent) => agent.name === name);
  if (found !== undefined) return found;
  const names = agents.map((agent) => agent.name).join(", ");
  throw usageError(`eval run: --agent names the candidate among ${module}'s agents (${names})`);
}

/**
 * `--durability` (else `ERRAND_DURABILITY`) for the runs `--fleet` fires; an
 * evaluation in this process fires none, so there the flag is refused and
 * the variable left alone.
 */
function fleetDurability(args: ParsedArgs, io: CliIO): ReturnType<typeof durabilityOption> {
  if (args.flag("fleet")) return durabilityOption(args, io);
  if (args.string("durability") !== undefined)
    throw usageError("eval run: --durability applies to the runs --fleet fires: give --fleet too");
  return {};
}

/** Tells on stderr the command that resumes `evaluationId` with the candidate `agent` of `args`. */
function interrupted(
  io: CliIO,
  args: ParsedArgs,
  agent: Agent | FleetCandidate,
  evaluationId: string,
): void {
  const name = "name" in agent ? agent.name : agent.agent;
  const candidate = args.flag("fleet")
    ? `--fleet --agent ${name}`
    : `--agents ${args.string("agents")} --agent ${name}`;
  io.stderr.write(
    `interrupted: finish it with errand eval run ${candidate} --resume ${evaluationId}\n`,
  );
}

/** `eval run`. */
export const evalRunCommand: CommandSpec = {
  usage:
    "errand eval run (--agents <module> [--agent <name>] | --fleet --agent <name> [--version <version>]) [--set <name> | --run <runId>… | [--from-agent <name>] [--status <status>] [--since <time>] [--until <time>] [--metadata key=value]… [--limit N]] [--tools recorded|live] [--on-unrecorded refuse|fail|live] [--concurrency N] [--resume <evaluationId>] [--durability <acknowledged|replicated>] [--json]",
  description: [
    "Runs the candidate agent (--agent of the --agents module; its model from OPENAI_* like",
    "the worker's) on the input of each recorded run, in this process, and keeps the",
    "evaluation in Redis. With --fleet the candidate is --agent's --version (default its",
    "newest live one) that live workers run: each case is a run on the fleet, refused with",
    "agent_version_unavailable when no worker of that version is live. The runs: a saved",
    "--set (errand eval sets save), each --run, or the settled runs matching --from-agent,",
    "--status, --since, --until (ISO-8601) and --metadata, newest --limit (default 100).",
    "--tools recorded (default) answers each tool call from the run's log; a call the log",
    "cannot answer is refused (--on-unrecorded refuse, default), fails the case (fail) or",
    "runs the tool (live). Progress (cases done, changed, failed, cost) goes to stderr;",
    "Ctrl-C stops between cases, and --resume <evaluationId> finishes the rest. Prints the",
    "evaluation, changed cases first (--json: the whole record). Exits 1 when a case failed.",
    "With --fleet and --durability replicated each case's run is fired as errand fire's is,",
    "once a Redis replica has it; one no replica confirmed in time stops the evaluation",
    "with exit code 3, naming the --resume that fires that case again under the same",
    "idempotency key (answered by the run fired before, once a replica has it).",
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
    fleet: {
      type: "boolean",
      description: "the candidate is --agent as live workers run it, not agent code here",
    },
    version: {
      type: "string",
      value: "<version>",
      description: "with --fleet: the version to evaluate (default the newest live one)",
    },
    set: { type: "string", value: "<name>", description: "the runs of a saved run set" },
    ...RUN_SELECTION_OPTIONS,
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
    ...DURABILITY_OPTION,
    ...JSON_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const agent = await candidateOf(args, io);
    const durability = fleetDurability(args, io);
    const tools = oneOf(COMMAND, args, "tools", ["recorded", "live"] as const);
    const onUnrecorded = oneOf(COMMAND, args, "on-unrecorded", POLICIES);
    const resume = args.string("resume");
    const json = args.flag("json");
    const progress = evaluationProgress(io.stderr, json);
    const stop = new AbortController();
    const signals = catchStopSignals();
    void signals.first.then((signal) => {
      if (signal !== undefined) stop.abort(signal);
    });
    // The evaluation's id, once its first progress report tells it.
    let evaluationId: string | undefined;
    try {
      const model =
        "model" in agent && typeof agent.model === "string"
          ? (await modelFromEnv(io.env)).model
          : undefined;
      const evaluation = await withErrand(
        args,
        io,
        (errand) =>
          errand.evaluate({
            agent,
            ...(resume === undefined ? { runs: runsOf(args) } : { resume }),
            ...(model === undefined ? {} : { model }),
            ...(tools === undefined ? {} : { tools }),
            ...(onUnrecorded === undefined ? {} : { onUnrecorded }),
            concurrency: args.integer("concurrency", { min: 1, max: 32 }, 4),
            signal: stop.signal,
            onProgress: (p) => {
              evaluationId = p.evaluationId;
              progress.report(p);
            },
          }),
        durability,
      ).catch((error: unknown) => {
        // A case that threw (say, a fire no replica confirmed) left the evaluation interrupted.
        if (evaluationId !== undefined) interrupted(io, args, agent, evaluationId);
        throw error;
      });
      progress.finish();
      if (json) writeJson(io, evaluation);
      else writeLines(io, evaluationLines(evaluation));
      if (evaluation.status === "interrupted") {
        interrupted(io, args, agent, evaluation.evaluationId);
        return EXIT.failure;
      }
      return evaluation.totals.failed > 0 ? EXIT.failure : EXIT.ok;
    } finally {
      signals.release();
    }
  },
};
