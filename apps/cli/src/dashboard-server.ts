/**
 * Starting the dashboard for a command (`errand up`, `errand dashboard`): a
 * port another process holds is refused in one line that names the option
 * changing it, with exit code 3, instead of Node's listen error; and the
 * `--public-url` both commands take (else `ERRAND_DASHBOARD_PUBLIC_URL`).
 */
import { ErrandError } from "@errand/core";
import {
  createDashboard,
  type Dashboard,
  type DashboardOptions,
  DEFAULT_DASHBOARD_HOST,
  DEFAULT_DASHBOARD_PORT,
  PUBLIC_URL_ENV,
} from "@errand/dashboard";
import type { ParsedArgs } from "./args.js";
import type { OptionSpec } from "./command-syntax.js";
import { systemErrorCode } from "./exit-codes.js";
import type { CliIO } from "./io.js";

/** `--public-url`: where a reverse proxy (e.g. one terminating TLS) serves the dashboard. */
export const PUBLIC_URL_OPTION: Readonly<Record<string, OptionSpec>> = {
  "public-url": {
    type: "string",
    value: "<url>",
    description: `where a reverse proxy serves the dashboard, e.g. https://errand.example.com (default ${PUBLIC_URL_ENV}; beyond loopback needs ERRAND_DASHBOARD_TOKEN)`,
  },
};

/** `{ publicUrl }` from `--public-url`, else from `ERRAND_DASHBOARD_PUBLIC_URL`, or `{}`. */
export function publicUrlOption(args: ParsedArgs, io: CliIO): { publicUrl?: string } {
  const publicUrl = args.string("public-url") ?? io.env[PUBLIC_URL_ENV];
  return publicUrl ? { publicUrl } : {};
}

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
