/**
 * `start_runs` (docs/architecture/mcp.md#tools): fires a batch of runs, each
 * item on its own (a bad item fails alone, with its code, `retryable` and
 * fix), and answers at once with every started run's `runId`, `status` and
 * `viewUrl`, a `nextAction` that waits for exactly the runs started and,
 * when items failed for a reason that may pass, a `retryAction` that sends
 * exactly those again. An item `{ retryOf: runId }` fires that run's spec
 * again (`retried-spec.ts`).
 */
import { MAX_RUN_PRIORITY } from "@errand/core";
import { batch } from "@errand/core/ops";
import type { FireSpec } from "@errand/engine";
import { z } from "zod";
import { MAX_BATCH_RUNS } from "../limits.js";
import { fixOf, itemFailure, startedRunFix } from "../results/tool-answer.js";
import type { ErrandMcpServices } from "../server/errand-services.js";
import type { ErrandTool } from "../server/register-tools.js";
import { retriedSpec } from "./retried-spec.js";
import { TOOL_NAMES } from "./tool-names.js";

/** One run to start, as the caller writes it. Checked by errand's preflight, item by item. */
const StartItem = z.object({
  agent: z
    .string()
    .optional()
    .describe("The agent to run (list_agents names them). Required unless retryOf is given."),
  input: z
    .unknown()
    .optional()
    .describe("The run's input: any JSON value matching the agent's inputSchema. Default null."),
  outputSchema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "The JSON Schema of the structured output the run must record (strict: every property required, additionalProperties false).",
    ),
  idempotencyKey: z
    .string()
    .optional()
    .describe(
      "Starts at most one run per key (kept 24 h): sending it again answers with that run, deduplicated: true.",
    ),
  priority: z
    .number()
    .int()
    .optional()
    .describe(
      `Queue priority: 1 runs first, ${MAX_RUN_PRIORITY} last. Default: before all of them.`,
    ),
  budget: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "The budget of the run and its descendants: { tokens?, costUsd?, steps?, runs?, onExceeded?: finish-in-flight | cancel-tree }.",
    ),
  metadata: z
    .record(z.string(), z.string())
    .optional()
    .describe("Labels kept with the run, as strings."),
  retryOf: z
    .string()
    .optional()
    .describe(
      "Fire this earlier run's agent, input and schema again (as a retryAction suggests); the other fields are ignored.",
    ),
});
type StartItem = z.infer<typeof StartItem>;

const StartRunsArgs = z.object({
  runs: z.array(StartItem).min(1).max(MAX_BATCH_RUNS).describe("The runs to start, one per item."),
});

/** The answer's entry of one item. */
interface StartedItem {
  ok: boolean;
  agent?: string;
  runId?: string;
  status?: "queued";
  deduplicated?: true;
  retryOf?: string;
  warnings?: unknown[];
  viewUrl?: string;
  error?: { code: string; message: string; fix: string };
  retryable?: boolean;
}

/** A failed item's entry. */
function failedItem(
  item: StartItem,
  code: string,
  message: string,
  retryable: boolean,
): StartedItem {
  return {
    ok: false,
    ...(item.agent === undefined ? {} : { agent: item.agent }),
    ...(item.retryOf === undefined ? {} : { retryOf: item.retryOf }),
    error: { code, message, fix: fixOf(code) },
    retryable,
  };
}

/**
 * The entry of an item refused after its run `runId` was started all the
 * same: it names the run (so nextAction waits for it), and it is retryable
 * only when fired under an idempotency key (`spec`'s, or `retryOf`'s), which
 * answers that run rather than start a second one.
 */
function startedButFailedItem(
  item: StartItem,
  spec: FireSpec,
  runId: string,
  error: { code: string; message: string },
  retryable: boolean,
): StartedItem {
  const keyed = spec.idempotencyKey !== undefined;
  return {
    ...failedItem(item, error.code, error.message, retryable && keyed),
    runId,
    error: { ...error, fix: startedRunFix(runId, keyed) },
  };
}

/** The fire spec of `item`, or why there is none. */
async function specOf(
  services: ErrandMcpServices,
  item: StartItem,
): Promise<FireSpec | StartedItem> {
  if (item.retryOf !== undefined) {
    try {
      return await retriedSpec(services.errand, item.retryOf);
    } catch (error) {
      const { error: failure, retryable } = itemFailure(
        error,
        TOOL_NAMES.startRuns,
        services.reportUnexpected,
      );
      return failedItem(item, failure.code, failure.message, retryable);
    }
  }
  if (item.agent === undefined || item.agent === "") {
    return failedItem(item, "invalid_spec", "an item needs an agent (or retryOf)", false);
  }
  const { retryOf: _none, input, ...rest } = item;
  return { ...rest, agent: item.agent, input: input ?? null } as FireSpec;
}

/** The `start_runs` tool over `services`. */
export function startRunsTool(services: ErrandMcpServices): ErrandTool<typeof StartRunsArgs> {
  return {
    name: TOOL_NAMES.startRuns,
    title: "Start runs",
    description:
      "Starts runs of agents in the background, one per item of runs, and answers at once: { total, succeeded, failed, results: [{ ok, agent, runId, status, viewUrl?, deduplicated?, error?: { code, message, fix }, retryable? }], nextAction, retryAction? }. A bad item fails alone; the others start. Follow nextAction (wait_runs over exactly the runs started) to get their results; when retryAction is present, it sends exactly the failed items that may succeed if sent again. A failed item with a runId was started all the same: its fix says what to do.",
    args: StartRunsArgs,
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    async run({ runs }) {
      const prepared = await Promise.all(runs.map((item) => specOf(services, item)));
      const specs = prepared.filter(
        (entry): entry is FireSpec => "agent" in entry && !("ok" in entry),
      );
      const fired = specs.length === 0 ? [] : (await services.errand.fireMany(specs)).results;
      let next = 0;
      const results = prepared.map((entry, index): StartedItem => {
        if ("ok" in entry) return entry;
        const item = runs[index] as StartItem;
        const outcome = fired[next++];
        if (outcome?.ok === false && outcome.runId !== undefined && outcome.error !== undefined) {
          const fields = { code: outcome.error.code, message: outcome.error.message };
          const target = { ...item, agent: entry.agent };
          const retryable = outcome.retryable ?? false;
          return startedButFailedItem(target, entry, outcome.runId, fields, retryable);
        }
        if (outcome === undefined || !outcome.ok || outcome.runId === undefined) {
          return failedItem(
            { ...item, agent: entry.agent },
            outcome?.error?.code ?? "internal",
            outcome?.error?.message ?? "it was not fired",
            outcome?.retryable ?? false,
          );
        }
        return {
          ok: true,
          agent: entry.agent,
          runId: outcome.runId,
          status: "queued",
          ...(outcome.deduplicated ? { deduplicated: true as const } : {}),
          ...(item.retryOf === undefined ? {} : { retryOf: item.retryOf }),
          ...(outcome.warnings === undefined ? {} : { warnings: outcome.warnings }),
          ...(outcome.viewUrl === undefined ? {} : { viewUrl: outcome.viewUrl }),
        };
      });
      const started = results.flatMap((result) =>
        result.runId === undefined ? [] : [result.runId],
      );
      const again = runs.filter((_, index) => results[index]?.retryable === true);
      return {
        ...batch(results),
        ...(started.length === 0
          ? {}
          : { nextAction: { tool: TOOL_NAMES.waitRuns, args: { runIds: started } } }),
        ...(again.length === 0
          ? {}
          : { retryAction: { tool: TOOL_NAMES.startRuns, args: { runs: again } } }),
      };
    },
  };
}
