/**
 * `errand runs show <runId>`: a run's result, or where it stands while it runs.
 */
import { foldRun, type RunEvent, settleRun } from "@errand/core";
import { type Errand, runViewUrl } from "@errand/engine";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { dashboardUrlOption } from "../dashboard-url.js";
import { withErrand } from "../errand-client.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLines } from "../output.js";
import { type RunView, runDetails } from "../run-details.js";

/**
 * The run's stored result, or the same fields folded from its log so far;
 * either with its `viewUrl` when `dashboardUrl` is given.
 */
async function viewOf(errand: Errand, runId: string, dashboardUrl?: string): Promise<RunView> {
  const result = await errand.result(runId);
  if (result !== undefined) return result;
  const link = dashboardUrl === undefined ? {} : { viewUrl: runViewUrl(dashboardUrl, runId) };
  const log: RunEvent[] = [];
  for await (const event of errand.events(runId)) log.push(event);
  const state = foldRun(log, runId);
  const settled = settleRun(state);
  if (settled !== undefined) return { ...settled, ...link }; // settled, and the collector has not stored it yet
  return {
    runId,
    agent: state.queued?.agent ?? "",
    status: state.status,
    ...(state.queued?.parentRunId === undefined ? {} : { parentRunId: state.queued.parentRunId }),
    rootRunId: state.queued?.rootRunId ?? runId,
    attempts: state.attempts,
    steps: state.steps.length,
    usage: state.usage,
    createdAt: state.createdAt ?? "",
    ...(state.startedAt === undefined ? {} : { startedAt: state.startedAt }),
    ...link,
  };
}

/** `runs show`. */
export const runsShowCommand: CommandSpec = {
  usage: "errand runs show <runId> [--json]",
  description: [
    "Prints the run's RunResult once it has settled; before that, the same fields as far",
    "as its log goes, with status queued or running. --json prints it as JSON. With",
    "ERRAND_DASHBOARD_URL set, it shows the run's viewUrl, the link to its dashboard page.",
  ].join("\n"),
  positionals: [{ name: "runId", description: "the run" }],
  options: { ...JSON_OPTION, ...CONNECTION_OPTIONS },
  async run(args, io) {
    const runId = args.positional(0, "runId");
    const { dashboardUrl } = dashboardUrlOption(io);
    const view = await withErrand(args, io, (errand) => viewOf(errand, runId, dashboardUrl));
    if (args.flag("json")) writeJson(io, view);
    else writeLines(io, runDetails(view));
    return EXIT.ok;
  },
};
