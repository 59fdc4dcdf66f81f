/**
 * `createDashboard`: starts the dashboard's HTTP server on the deployment
 * whose Redis and prefix it is given, and answers until `close()`.
 */
import type { AddressInfo } from "node:net";
import { listenUrl } from "@errand/core/ops";
import { CLOSE_ALLOWANCE_MS } from "@errand/engine";
import { closeWithin, createRunLogFollower, runEach } from "@errand/engine/ops";
import { serve } from "@hono/node-server";
import { closeDashboardContext, openDashboardContext } from "./context.js";
import { createAdmission } from "./http/admission.js";
import { createApp } from "./http/app.js";
import { loadPageFiles } from "./http/page-files.js";
import { createSecurity } from "./http/security.js";
import { createLiveStreams } from "./live/live-streams.js";
import { createOverviewHub } from "./live/overview-hub.js";
import { type DashboardOptions, resolveOptions } from "./options.js";
import { createOverviewReader } from "./reads/overview.js";
import { createSearchMetadataReader } from "./reads/search-metadata.js";

/** A running dashboard. */
export interface Dashboard {
  /** Where it answers, e.g. `http://127.0.0.1:4040` (the port picked when `port` was 0). */
  readonly url: string;
  /** Where people open it: the `publicUrl` behind a proxy (without a trailing slash), else {@link url}. */
  readonly publicUrl: string;
  /** Whether it refuses actions. */
  readonly readOnly: boolean;
  /**
   * Ends the live streams, stops listening and closes its Redis connections;
   * with Redis unreachable, within `CLOSE_ALLOWANCE_MS` (it cuts them then).
   */
  close(): Promise<void>;
}

/**
 * Starts a dashboard. Throws `invalid_spec` for options that cannot work
 * (a host or public URL beyond loopback without a token, a token shorter
 * than 16 characters, a bad port, a public URL that is not the root of an
 * http(s) origin), `redis_unavailable` for a `connection` that names no
 * Redis (an unset `REDIS_URL`), and the listen error when the port is taken.
 *
 * ```ts
 * const dashboard = await createDashboard({ connection: process.env.REDIS_URL! });
 * console.log(`dashboard on ${dashboard.url}`);
 * // …
 * await dashboard.close();
 * ```
 */
export async function createDashboard(options: DashboardOptions): Promise<Dashboard> {
  const resolved = resolveOptions(options);
  const onError = (error: unknown) =>
    resolved.logger.error({ err: error }, "dashboard live stream failed");
  const context = openDashboardContext(resolved);
  const overview = createOverviewReader(context);
  const hub = createOverviewHub(context, overview, onError);
  const live = createLiveStreams(resolved.maxLiveClients, onError);
  const follower = createRunLogFollower(
    {
      keys: context.keys,
      connection: resolved.connection,
      logger: resolved.logger,
      name: "dashboard run follower",
    },
    onError,
  );
  // With Redis unreachable, closing waits for it: past the allowance, the context's connection is cut.
  const closeParts = () =>
    closeWithin({
      close: () =>
        runEach([
          () => live.closeAll(),
          () => follower.close(),
          () => hub.close(),
          () => overview.close(),
          () => closeDashboardContext(context),
        ]),
      withinMs: CLOSE_ALLOWANCE_MS,
      cut: () => context.redis.disconnect(),
      logger: resolved.logger,
    });
  let closing: Promise<void> | undefined;
  try {
    const page = await loadPageFiles();
    const app = createApp({
      context,
      security: createSecurity(resolved),
      overview,
      hub,
      live,
      follower,
      searches: createAdmission(resolved.maxConcurrentSearches),
      searchMetadata: createSearchMetadataReader(context),
      page,
      isClosing: () => closing !== undefined,
    });
    const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const listening = serve(
        { fetch: app.fetch, hostname: resolved.host, port: resolved.port },
        () => resolve(listening),
      );
      listening.once("error", reject);
    });
    const { port } = server.address() as AddressInfo;
    const url = listenUrl(resolved.host, port);
    return {
      url,
      publicUrl: resolved.publicUrl?.origin ?? url,
      readOnly: resolved.readOnly,
      close() {
        closing ??= (async () => {
          const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
          await live.closeAll();
          if ("closeAllConnections" in server) server.closeAllConnections();
          await stopped;
          await closeParts();
        })();
        return closing;
      },
    };
  } catch (error) {
    await closeParts();
    throw error;
  }
}
