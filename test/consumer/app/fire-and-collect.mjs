// Fires a run of each agent, then collects both once they have settled.
import { createErrand } from "@errand/engine";

const errand = createErrand({ connection: process.env.REDIS_URL });
const greeting = await errand.fire({ agent: "greeter", input: "Ada" });
const report = await errand.fire({ agent: "city-reporter", input: "Lyon" });
const collected = await errand.collect([greeting.runId, report.runId], { waitMs: 30_000 });
console.log(JSON.stringify(collected, null, 2));
// { "total": 2, "succeeded": 2, …, "results": [
//   { "runId": …, "ok": true, "status": "succeeded", "text": "Hello, Ada!" },
//   { "runId": …, "ok": true, "status": "succeeded", "output": { "city": "Lyon", "population": 522250 } } ] }
await errand.close();
