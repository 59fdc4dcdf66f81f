/**
 * `evaluate`: runs a candidate agent over recorded runs and keeps the
 * evaluation record (docs/architecture/evaluations.md#evaluations). It
 * resolves the runs once and writes them with the spec, so the evaluation
 * can be made again; runs the cases a few at a time, each written with the
 * totals that count it as soon as it is done; and stops between cases when
 * its signal fires, leaving the evaluation `interrupted`. Resumed by its id,
 * it runs only the cases not written yet.
 */
import { randomBytes } from "node:crypto";
import { ErrandError } from "@errand/core";
import { type Agent, agentVersion, type Model } from "@errand/runtime";
import { modelIdentity } from "@errand/runtime/ops";
import type { EventStore } from "@errand/store";
import { DEFAULT_PRICE_TABLE, type PriceTable, responsePricer } from "../budgets/price-table.js";
import type { FlowControlOptions } from "../flow-control/flow-options.js";
import {
  type Evaluation,
  type EvaluationCase,
  EvaluationSetName,
  type EvaluationSpec,
  type EvaluationState,
  RunFilter,
  type RunSelection,
  totalsOf,
  type UnrecordedCallPolicy,
} from "./evaluation-record.js";
import type { EvaluationStore } from "./evaluation-store.js";
import {
  type FleetCandidate,
  type FleetContext,
  fleetCandidate,
  liveCandidateVersion,
} from "./fleet-candidate.js";
import { inProcessCandidate } from "./in-process-candidate.js";
import type { CollectRuns } from "./recorded-children.js";
import { type CaseRunner, type RunCandidate, runCase } from "./run-case.js";
import { defaultScorers, type Scorer } from "./scorers.js";
import { type ListRuns, type ReadSet, selectRuns } from "./select-runs.js";

/** How many cases run at once by default. */
export const DEFAULT_EVALUATION_CONCURRENCY = 4;

/** Where an evaluation is, told after each case. */
export interface EvaluationProgress {
  evaluationId: string;
  /** Cases in the evaluation. */
  total: number;
  /** Cases finished so far (those of an earlier attempt included). */
  done: number;
  changed: number;
  failed: number;
  /** What the candidate spent so far, in US dollars. */
  costUsd: number;
  /** The case just finished; absent on the first report. */
  lastCase?: EvaluationCase;
}

/** What `errand.evaluate` takes. */
export interface EvaluateOptions {
  /** The recorded runs: their ids, a filter, or a saved set (`{ set: name }`). Required unless `resume` is given. */
  runs?: readonly string[] | RunFilter | { set: string };
  /**
   * The candidate: an agent defined in this process (`defineAgent`), run
   * here; or `{ agent, version? }`, a version that live workers run (default
   * its newest live one), each case fired as a run on the fleet
   * (docs/architecture/evaluations.md#candidates-on-the-fleet).
   */
  agent: Agent | FleetCandidate;
  /** The model an in-process candidate runs with; default the agent's own (required when the agent names its model). */
  model?: Model;
  /** `recorded` (default): tool calls answered from the original run's log; `live`: the tools run. */
  tools?: "recorded" | "live";
  /** What a call the log cannot answer gets: `refuse` (default), `fail` (the case) or `live` (the tool runs). */
  onUnrecorded?: UnrecordedCallPolicy;
  /** Default: the four built-ins (`outputSchemaValid`, `outputEqual`, `jsonFieldDiff`, `textSimilarity`). */
  scorers?: readonly Scorer[];
  /** Cases run at once. Default {@link DEFAULT_EVALUATION_CONCURRENCY}. */
  concurrency?: number;
  /**
   * The workers' `flowControl`: a candidate in this process then asks its
   * model under the fleet's provider rate limits and 429 pauses, shared
   * with the workers (its model must have a `providerKey`). Concurrency
   * limits take leases for runs, which an in-process candidate is not: a
   * candidate held to them runs on live workers. Ignored for those.
   */
  flowControl?: FlowControlOptions;
  /** Prices of an in-process candidate's responses, merged over the default table (a worker prices by its own). */
  prices?: PriceTable;
  /** Labels kept with the evaluation. */
  metadata?: Record<string, string>;
  /** An evaluation to resume: its finished cases are kept, the others run. */
  resume?: string;
  /** Stops the evaluation between cases (the case in progress is dropped): it is left `interrupted`. */
  signal?: AbortSignal;
  /** Told after each case. */
  onProgress?(progress: EvaluationProgress): void;
}

/** What evaluating needs from the client. */
export interface EvaluateContext {
  store: EventStore;
  evaluations: EvaluationStore;
  listRuns: ListRuns;
  readSet: ReadSet;
  collectRuns: CollectRuns;
  /** How a candidate on the fleet fires and follows its cases. */
  fleet: FleetContext;
  /** `model` under the fleet's provider rate limits and pauses of `flowControl`. */
  limitModel(model: Model, flowControl: FlowControlOptions): Model;
  now: () => Date;
}

/** Whether the candidate is a version live workers run, not agent code. */
function isFleetCandidate(candidate: Agent | FleetCandidate): candidate is FleetCandidate {
  return typeof (candidate as Partial<FleetCandidate>).agent === "string";
}

function newEvaluationId(now: Date): string {
  return `ev_${now.getTime().toString(36)}${randomBytes(5).toString("hex")}`;
}

function selectionOf(runs: EvaluateOptions["runs"]): RunSelection {
  if (runs === undefined) {
    throw new ErrandError(
      "invalid_spec",
      "evaluate needs runs: a list of runIds or a filter ({ agent, status, since, until, metadata, limit })",
    );
  }
  if (Array.isArray(runs)) {
    if (runs.length === 0) throw new ErrandError("invalid_spec", "evaluate was given no runIds");
    return { runIds: [...runs] };
  }
  if ("set" in runs) {
    const parsed = EvaluationSetName.safeParse(runs.set);
    if (!parsed.success)
      throw new ErrandError(
        "invalid_spec",
        `invalid runs: ${JSON.stringify(runs.set)} is not a set name`,
      );
    return { set: parsed.data };
  }
  const parsed = RunFilter.safeParse(runs);
  if (parsed.success) return { filter: parsed.data };
  const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  throw new ErrandError("invalid_spec", `invalid runs filter: ${issues.join("; ")}`);
}

/** The name an in-process candidate's responses are priced by: the model's own, without its provider (`openai:gpt-4o` → `gpt-4o`). */
function pricedModelName(agent: Agent, model: Model | undefined): string {
  if (model !== undefined) return modelIdentity(model).model;
  return typeof agent.model === "string" ? agent.model : modelIdentity(agent.model).model;
}

function checkScorers(scorers: readonly Scorer[]): void {
  const names = new Set<string>();
  for (const { name } of scorers) {
    if (names.has(name))
      throw new ErrandError(
        "invalid_spec",
        `two scorers are named ${name}: give each a name of its own`,
      );
    names.add(name);
  }
}

async function openSpec(
  context: EvaluateContext,
  options: EvaluateOptions,
  candidate: EvaluationSpec["candidate"],
  scorers: readonly Scorer[],
): Promise<{ spec: EvaluationSpec; cases: EvaluationCase[] }> {
  if (options.resume !== undefined) {
    const kept = await context.evaluations.read(options.resume);
    if (kept === undefined)
      throw new ErrandError("not_found", `there is no evaluation ${options.resume}`);
    const same =
      kept.candidate.agent === candidate.agent &&
      kept.candidate.version === candidate.version &&
      (kept.candidate.runsOn ?? "process") === candidate.runsOn;
    if (!same) {
      throw new ErrandError(
        "invalid_spec",
        `evaluation ${options.resume} evaluates ${kept.candidate.agent}@${kept.candidate.version} (in ${kept.candidate.runsOn ?? "process"}), not ${candidate.agent}@${candidate.version} (in ${candidate.runsOn}): resume it with the same candidate, or start a new evaluation`,
      );
    }
    const { cases, status: _status, updatedAt: _updatedAt, totals: _totals, ...spec } = kept;
    return { spec, cases };
  }
  const createdAt = context.now();
  const runs = selectionOf(options.runs);
  const spec: EvaluationSpec = {
    evaluationId: newEvaluationId(createdAt),
    createdAt: createdAt.toISOString(),
    runs,
    runIds: await selectRuns(context.listRuns, context.store, context.readSet, runs),
    candidate,
    tools: options.tools ?? "recorded",
    onUnrecorded: options.onUnrecorded ?? "refuse",
    scorers: scorers.map((s) => s.name),
    metadata: options.metadata ?? {},
  };
  await context.evaluations.create(spec, stateOf(context, "running", []));
  return { spec, cases: [] };
}

function stateOf(
  context: EvaluateContext,
  status: EvaluationState["status"],
  cases: readonly EvaluationCase[],
): EvaluationState {
  return { status, updatedAt: context.now().toISOString(), totals: totalsOf(cases) };
}

/** Who the candidate is, as the spec records it; for one on the fleet, its live version (refused when none is live). */
async function candidateOf(
  context: EvaluateContext,
  options: EvaluateOptions,
): Promise<EvaluationSpec["candidate"]> {
  const { agent } = options;
  if (isFleetCandidate(agent)) {
    // Resumed without a version, it goes on with the version it began with.
    const version =
      agent.version ??
      (options.resume === undefined
        ? undefined
        : (await context.evaluations.read(options.resume))?.candidate.version);
    return {
      agent: agent.agent,
      version: await liveCandidateVersion(context.fleet, {
        agent: agent.agent,
        ...(version === undefined ? {} : { version }),
      }),
      runsOn: "fleet",
    };
  }
  if (typeof agent.model === "string" && options.model === undefined) {
    throw new ErrandError(
      "invalid_spec",
      `the candidate ${agent.name} names its model (${agent.model}): pass the Model to run it with as evaluate's model`,
    );
  }
  return { agent: agent.name, version: agentVersion(agent), runsOn: "process" };
}

/** How the cases' candidate runs: here, or on the fleet. */
function candidateRunner(
  context: EvaluateContext,
  options: EvaluateOptions,
  spec: EvaluationSpec,
  signal: AbortSignal,
): RunCandidate {
  const { agent } = options;
  if (isFleetCandidate(agent)) {
    return fleetCandidate(context.fleet, {
      evaluationId: spec.evaluationId,
      agent: spec.candidate.agent,
      version: spec.candidate.version,
      tools: spec.tools,
      onUnrecorded: spec.onUnrecorded,
      signal,
    });
  }
  const priceResponse = responsePricer(
    { ...DEFAULT_PRICE_TABLE, ...options.prices },
    pricedModelName(agent, options.model),
  );
  const model = options.model ?? (typeof agent.model === "string" ? undefined : agent.model);
  const limited =
    model === undefined || options.flowControl === undefined
      ? options.model
      : context.limitModel(model, options.flowControl);
  return inProcessCandidate({
    store: context.store,
    collectRuns: context.collectRuns,
    agent,
    ...(limited === undefined ? {} : { model: limited }),
    ...(priceResponse === undefined ? {} : { priceResponse }),
    tools: spec.tools,
    onUnrecorded: spec.onUnrecorded,
    now: context.now,
    signal,
  });
}

/** Runs (or resumes) an evaluation and returns its record; see {@link EvaluateOptions}. */
export async function evaluate(
  context: EvaluateContext,
  options: EvaluateOptions,
): Promise<Evaluation> {
  const scorers = options.scorers ?? defaultScorers();
  checkScorers(scorers);
  const candidate = await candidateOf(context, options);
  const { spec, cases } = await openSpec(context, options, candidate, scorers);
  const { evaluationId } = spec;
  const signal = options.signal ?? new AbortController().signal;
  const runner: CaseRunner = {
    store: context.store,
    runCandidate: candidateRunner(context, options, spec, signal),
    scorers,
    signal,
  };
  const finished = new Set(cases.map((c) => c.runId));
  const todo = spec.runIds
    .map((runId, index) => ({ runId, index }))
    .filter(({ runId }) => !finished.has(runId));
  const report = (lastCase?: EvaluationCase) => {
    const totals = totalsOf(cases);
    options.onProgress?.({
      evaluationId,
      total: spec.runIds.length,
      done: totals.cases,
      changed: totals.changed,
      failed: totals.failed,
      costUsd: totals.candidate.costUsd,
      ...(lastCase === undefined ? {} : { lastCase }),
    });
  };
  report();
  await context.evaluations.saveState(evaluationId, stateOf(context, "running", cases));
  let broken = false;
  const worker = async () => {
    for (
      let next = todo.shift();
      next !== undefined && !signal.aborted && !broken;
      next = todo.shift()
    ) {
      const evaluationCase = await runCase(runner, next.runId, next.index);
      if (broken) return;
      cases.push(evaluationCase);
      await context.evaluations.saveCase(
        evaluationId,
        evaluationCase,
        stateOf(context, "running", cases),
      );
      report(evaluationCase);
    }
  };
  const concurrency = Math.max(
    1,
    Math.min(options.concurrency ?? DEFAULT_EVALUATION_CONCURRENCY, 32),
  );
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } catch (error) {
    broken = true;
    await context.evaluations.saveState(evaluationId, stateOf(context, "interrupted", cases));
    if (signal.aborted) return (await context.evaluations.read(evaluationId))!;
    throw error;
  }
  const status = cases.length === spec.runIds.length ? "finished" : "interrupted";
  await context.evaluations.saveState(evaluationId, stateOf(context, status, cases));
  return (await context.evaluations.read(evaluationId))!;
}
