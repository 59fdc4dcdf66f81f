/**
 * `viewUrl` (docs/architecture/tool-results.md#the-result-vocabulary): wherever an answer returns a run and the reader was
 * given a dashboard URL (`dashboardUrl`), the run carries a link to its page
 * on the dashboard. The link depends on who reads, not on the run, so it is
 * never stored: it is added to each answer as it is made. Without a
 * dashboard URL, answers carry no `viewUrl` field at all.
 */
import { ErrandError, type RunResult } from "@errand/core";
import { isRunId } from "@errand/core/ops";

/** A `RunResult` as the reads answer it: the stored result, plus `viewUrl` when a dashboard URL is configured. */
export type LinkedRunResult = RunResult & { viewUrl?: string };

/**
 * The link to `runId`'s page on the dashboard served at `dashboardUrl`: the
 * page's hash route `#/runs/<runId>` under the dashboard's own path, which
 * is kept, with a trailing slash added when it has none
 * (`https://ops.example/errand` → `https://ops.example/errand/#/runs/<runId>`);
 * its query is kept, a hash is replaced. The one place such a link is built.
 * Throws an {@link ErrandError} `invalid_spec` for a URL that is not
 * absolute `http:` or `https:`.
 */
export function runViewUrl(dashboardUrl: string, runId: string): string {
  const url = parseDashboardUrl(dashboardUrl);
  if (!url.pathname.endsWith("/")) url.pathname = `${url.pathname}/`;
  url.hash = `/runs/${encodeURIComponent(runId)}`;
  return url.href;
}

/**
 * Checks a dashboard URL where it is configured. Throws an
 * {@link ErrandError} `invalid_spec` for a URL that is not absolute `http:`
 * or `https:`.
 */
export function checkDashboardUrl(dashboardUrl: string): void {
  parseDashboardUrl(dashboardUrl);
}

function parseDashboardUrl(dashboardUrl: string): URL {
  const url = URL.canParse(dashboardUrl) ? new URL(dashboardUrl) : undefined;
  if (url?.protocol !== "http:" && url?.protocol !== "https:") {
    throw new ErrandError(
      "invalid_spec",
      `dashboardUrl must be the absolute http(s) URL the dashboard is served at, not ${JSON.stringify(dashboardUrl)}`,
      { details: { dashboardUrl } },
    );
  }
  return url;
}

/** Adds `viewUrl` to the runs of answers; adds nothing when no dashboard URL is configured. */
export interface RunLinks {
  /**
   * `run` with its `viewUrl`; unchanged without a dashboard, and for an
   * entry whose `runId` is missing (a refused spec) or is not a run id.
   */
  run<Run extends { runId?: string; viewUrl?: string }>(run: Run): Run;
  /** `answer` with each of its `results` linked like {@link RunLinks.run}. */
  results<Answer extends { results: readonly { runId?: string; viewUrl?: string }[] }>(
    answer: Answer,
  ): Answer;
}

/**
 * The links to the dashboard at `dashboardUrl`, or links that add nothing
 * when it is undefined. Throws an {@link ErrandError} `invalid_spec` for a
 * URL {@link runViewUrl} refuses, so a bad one fails where it is configured.
 */
export function runLinks(dashboardUrl: string | undefined): RunLinks {
  if (dashboardUrl !== undefined) checkDashboardUrl(dashboardUrl);
  const run = <Run extends { runId?: string; viewUrl?: string }>(linked: Run): Run =>
    dashboardUrl === undefined || linked.runId === undefined || !isRunId(linked.runId)
      ? linked
      : { ...linked, viewUrl: runViewUrl(dashboardUrl, linked.runId) };
  return {
    run,
    results: (answer) =>
      dashboardUrl === undefined ? answer : { ...answer, results: answer.results.map(run) },
  };
}
