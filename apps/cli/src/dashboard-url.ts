/**
 * Where the dashboard is served, for the `viewUrl` of the runs in a
 * command's answers: `ERRAND_DASHBOARD_URL`. Unset (or empty), answers carry
 * no `viewUrl`; a value that is not an absolute http(s) URL is a usage error
 * (exit code 2).
 */
import { checkDashboardUrl } from "@errand/engine/ops";
import { usageError } from "./args.js";
import type { CliIO } from "./io.js";

/** The environment variable naming the dashboard's URL. */
export const DASHBOARD_URL_VARIABLE = "ERRAND_DASHBOARD_URL";

/** `{ dashboardUrl }` from the environment, or `{}`: spread it into engine options. */
export function dashboardUrlOption(io: CliIO): { dashboardUrl?: string } {
  const url = io.env[DASHBOARD_URL_VARIABLE];
  if (url === undefined || url === "") return {};
  try {
    checkDashboardUrl(url);
  } catch (error) {
    throw usageError(`${DASHBOARD_URL_VARIABLE}: ${(error as Error).message}`);
  }
  return { dashboardUrl: url };
}
