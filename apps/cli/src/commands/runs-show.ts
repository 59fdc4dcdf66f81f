/**
 * `errand runs show <runId>`: a run's result, or where it stands while it runs.
 */
import { foldRun, type RunEvent, runSoFar } from "@errand/core";
import { type Errand, runViewUrl } from "@errand/engine";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { dashboardUrlOption } from "../dashboard-url.js";
import { withErrand } from "../errand-client.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLines } from "../output.js";
import { runDetails, type ShownRun } from "../run-details.js";

/**
 * The run's stored result, or the same fields folded from its log so far;
 * either with its `viewUrl` when `dashboardUrl` is given.
 */
async function viewOf(errand: Errand, runId: string, dashboardUrl?: string): Promise<ShownRun> {
  const result = await errand.result(runId);
  if (result !== undefined) return result;
  const link = dashboardUrl === undefined ? {} : { viewUrl: runViewUrl(dashboardUrl, runId) };
  const log: RunEvent[] = [];
  for await (const event of errand.events(runId)) log.push(event);
  // Settled and not stored by the collector yet, or still going.
  return { ...(await errand.withTreeSpend(runSoFar(foldRun(log, runId)))), ...link };
}

/** `runs show`. */
export const runsShowCommand: CommandSpec = {
  usage: "errand runs show <runId> [--json]",
  description: [
    "Prints the run's RunResult once it has settled; before that, the same fields as far",
    "as its log goes, with status queued or running, and while the run is parked what it",
    "waits for. A run priced by its worker shows its cost; a run with a budget shows what",
    "it spent and what its tree's budget spent and has left. --json prints it as JSON.",
    "With ERRAND_DASHBOARD_URL set, it shows the run's viewUrl, the link to its dashboard page.",
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
