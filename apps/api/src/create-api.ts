/**
 * `createHttpApi`: one API process's server — the context it reads through,
 * the app, and a Node HTTP server listening — and its close, which answers
 * `/readyz` 503, ends the streams, stops the server and closes the context.
 */
import type { AddressInfo } from "node:net";
import { listenUrl } from "@errand/core/ops";
import { isLoopbackHost } from "@errand/dashboard";
import { runEach } from "@errand/engine/ops";
import { serve } from "@hono/node-server";
import { closeApiContext, openApiContext } from "./context.js";
import { openAccess } from "./http/access.js";
import { createApp } from "./http/app.js";
import { type HttpApiOptions, resolveApiOptions } from "./options.js";

/** A running API server. */
export interface HttpApi {
  /** Where it listens: `http://127.0.0.1:4050`. */
  readonly url: string;
  /** Whether a request without a key is answered as the operator's (loopback, not told to ask for keys). */
  readonly keylessIsOperator: boolean;
  /** Stops taking requests, ends open streams and waits, closes its Redis connections. */
  close(): Promise<void>;
}

/**
 * Starts the API on `options.connection`'s Redis, listening on
 * `options.host:options.port`.
 *
 * ```ts
 * const api = await createHttpApi({ connection: process.env.REDIS_URL!, port: 4050 });
 * // curl -X POST http://127.0.0.1:4050/v1/runs -H 'content-type: application/json' -d '{"agent":"greeter","input":"Ada"}'
 * await api.close();
 * ```
 */
export async function createHttpApi(options: HttpApiOptions): Promise<HttpApi> {
  const resolved = resolveApiOptions(options);
  const context = openApiContext(resolved);
  let closing = false;
  const keylessIsOperator = isLoopbackHost(resolved.host) && !resolved.keysOnLoopback;
  const access = openAccess(context, keylessIsOperator);
  const closeAll = () => runEach([() => closeApiContext(context), () => access.keys.close()]);
  const app = createApp(context, access, () => closing);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: resolved.host, port: resolved.port }, () =>
      resolve(started),
    );
    started.once("error", reject);
  }).catch(async (error: unknown) => {
    await closeAll();
    throw error;
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: listenUrl(resolved.host, port),
    keylessIsOperator,
    async close() {
      closing = true;
      await context.streams.closeAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeAll();
    },
  };
}
