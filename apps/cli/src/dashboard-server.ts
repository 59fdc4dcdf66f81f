/**
 * Starting the dashboard for a command (`errand up`, `errand dashboard`): a
 * port another process holds is refused in one line that names the option
 * changing it, with exit code 3, instead of Node's listen error.
 */
import { ErrandError } from "@errand/core";
import {
  createDashboard,
  type Dashboard,
  type DashboardOptions,
  DEFAULT_DASHBOARD_HOST,
  DEFAULT_DASHBOARD_PORT,
} from "@errand/dashboard";
import { systemErrorCode } from "./exit-codes.js";

/**
 * `createDashboard(options)`; a taken port throws `port_in_use` saying to
 * choose another with `portOption` (e.g. `--dashboard-port`). Every other
 * error (`invalid_spec` for a host beyond loopback without a token, …) is
 * thrown as it is.
 */
export async function startDashboard(
  options: DashboardOptions,
  portOption: string,
): Promise<Dashboard> {
  try {
    return await createDashboard(options);
  } catch (error) {
    if (systemErrorCode(error) !== "EADDRINUSE") throw error;
    const host = options.host ?? DEFAULT_DASHBOARD_HOST;
    const port = options.port ?? DEFAULT_DASHBOARD_PORT;
    throw new ErrandError(
      "port_in_use",
      `the dashboard cannot listen on ${host}:${port}: another process holds that port; choose another with ${portOption} <N> (0 picks a free one)`,
      { cause: error },
    );
  }
}
