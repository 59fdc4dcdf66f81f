/**
 * Redis unable to persist (`--misconf`): its `dir` moved to a directory that
 * is then removed and an RDB save point set, so its BGSAVE fails and, with
 * `stop-writes-on-bgsave-error` (Redis's default), it refuses every write
 * with `MISCONF` for `--misconf-ms`; then `dir` and `save` are set back and
 * it takes writes again. (Redis is started with `enable-protected-configs`,
 * which `CONFIG SET dir` needs.) What a full disk does to a Redis that saves.
 */
import { mkdtemp, rmdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ErrandError } from "@errand/core";
import type { FaultContext, Injected } from "./fault-context.js";
import { sleep } from "./fault-context.js";
import { configValue, infoField, singleServer } from "./redis-faults.js";

/** How often the fault looks whether the failed BGSAVE is recorded, in ms. */
const SAVE_CHECK_MS = 50;

/** How long Redis may take to record its BGSAVE failed, in ms. */
const SAVE_FAIL_TIMEOUT_MS = 10_000;

/** Whether Redis refuses a write now with `MISCONF`. */
async function refusesWrites(context: FaultContext): Promise<boolean> {
  try {
    await context.admin.set("chaos:misconf:probe", "1");
    return false;
  } catch (error) {
    return error instanceof Error && /^MISCONF\b/.test(error.message);
  }
}

/** Makes Redis's BGSAVE fail, holds for the spell, sets `dir` and `save` back. */
export async function failRedisSaves(context: FaultContext): Promise<Injected> {
  singleServer(context);
  const { admin } = context;
  const [dir, save] = [await configValue(admin, "dir"), await configValue(admin, "save")];
  const gone = await mkdtemp(join(tmpdir(), "errand-misconf-"));
  await admin.config("SET", "dir", gone);
  await rmdir(gone);
  const failedAt = Date.now();
  try {
    await admin.config("SET", "save", "3600 1");
    await admin.bgsave();
    const deadline = Date.now() + SAVE_FAIL_TIMEOUT_MS;
    while ((await infoField(admin, "persistence", "rdb_last_bgsave_status")) !== "err") {
      if (Date.now() > deadline) throw new ErrandError("internal", "BGSAVE never failed");
      await sleep(SAVE_CHECK_MS);
    }
    const writesRefused = await refusesWrites(context);
    await sleep(context.spellMs.misconf);
    return { target: "redis-server", heldMs: Date.now() - failedAt, writesRefused };
  } finally {
    await admin.config("SET", "dir", dir);
    await admin.config("SET", "save", save);
  }
}
