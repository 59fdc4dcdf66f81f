/**
 * A collector in a process of its own, for tests that kill it. Argument: the
 * collector's options as JSON (connection URL, prefix, shards, consumer, …;
 * the reaper is off). Prints `ready` once started; stops cleanly on SIGTERM.
 * Test-only: not exported.
 */
import { type CollectorOptions, createCollector } from "../create-collector.js";

const options = JSON.parse(process.argv[2] ?? "{}") as CollectorOptions;
const collector = createCollector({ ...options, reaper: false });
await collector.start();
process.stdout.write("ready\n");
process.once("SIGTERM", () => {
  void collector.stop().then(() => process.exit(0));
});
