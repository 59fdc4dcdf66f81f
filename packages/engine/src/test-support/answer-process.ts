/**
 * The entry of a child process that answers one waitpoint, for the engine's
 * tests: another process than the test's and the workers'. Configured
 * through the environment: `REDIS_URL`, `ERRAND_PREFIX`, `TOKEN`, `ANSWER`
 * (JSON), `ANSWERED_BY`. Prints one JSON line, `{ ok: true, completed }` or
 * `{ ok: false, error }`. Test-only: not exported.
 */
import { isErrandError } from "@errand/core";
import { createErrand } from "../client/client.js";

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined) throw new Error(`the answering process needs ${name}`);
  return value;
}

const errand = createErrand({
  connection: requiredEnv("REDIS_URL"),
  prefix: requiredEnv("ERRAND_PREFIX"),
});
try {
  const completed = await errand.waitpoints.complete(
    requiredEnv("TOKEN"),
    JSON.parse(requiredEnv("ANSWER")),
    { answeredBy: requiredEnv("ANSWERED_BY") },
  );
  process.stdout.write(`${JSON.stringify({ ok: true, completed })}\n`);
} catch (error) {
  const shape = isErrandError(error) ? error.toJSON() : { message: String(error) };
  process.stdout.write(`${JSON.stringify({ ok: false, error: shape })}\n`);
} finally {
  await errand.close();
}
