/**
 * The API process the HTTP load measure drives: `createHttpApi` on the
 * Redis of `REDIS_URL` under `ERRAND_PREFIX`, on a free loopback port; it
 * prints `listening <url>` once, and closes on SIGTERM. Its own process, so
 * its memory and connections are its own.
 */
import { createHttpApi } from "@errand/api";
import { createLogger } from "@errand/engine/ops";

const api = await createHttpApi({
  connection: process.env.REDIS_URL!,
  prefix: process.env.ERRAND_PREFIX!,
  port: 0,
  maxStreams: 1_000,
  logger: createLogger({ name: "bench-api", level: "warn" }),
});
process.stdout.write(`listening ${api.url}\n`);
process.once("SIGTERM", () => {
  void api.close().then(() => process.exit(0));
});
