/**
 * Launching `redis-server` daemons from PATH on free loopback ports, each in a
 * fresh temporary directory, retrying when another process grabs the port
 * between our pick and the server's bind.
 */
import { accessSync, constants } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { ErrandError } from "@errand/core";
import { cleanUpAtExitLater, forgetAtExit } from "./exit-cleanup.js";
import { findFreePort } from "./free-port.js";
import { watchOwner } from "./owner-watchdog.js";
import { isPortInUseError, pidfileIn, RedisProcess } from "./redis-process.js";

const PORT_ATTEMPTS = 5;

/** The full path of `command` on PATH, if it is there and executable. */
export function findOnPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

/** A launched daemon with its directory. */
export interface LaunchedRedis {
  process: RedisProcess;
  dir: string;
  /** Shuts the daemon down if it runs, then starts it again on the same port and directory. */
  restart(): Promise<void>;
  /** Shuts the daemon down and removes its directory. Idempotent. */
  dispose(): Promise<void>;
}

/**
 * Starts `binary` on a free loopback port in a new temporary directory.
 * `configArgs` is called once per attempt (so it can pick more free ports,
 * such as a cluster bus port). The server never outlives this process: an
 * exit hook kills it when the process exits without disposing of it, and a
 * watchdog process (see `owner-watchdog.ts`) when the process is killed.
 */
export async function launchLocalRedis(
  binary: string,
  configArgs: () => Promise<string[]> | string[],
): Promise<LaunchedRedis> {
  const dir = await mkdtemp(join(tmpdir(), "errand-redis-"));
  const watchdog = watchOwner(dir, pidfileIn(dir));
  try {
    const server = await startOnFreePort(binary, dir, configArgs);
    cleanUpAtExitLater(server, dir);
    let disposed = false;
    return {
      process: server,
      dir,
      async restart() {
        if (disposed) {
          throw new ErrandError("redis_unavailable", "restart() after stop(): the server is gone");
        }
        await server.shutdown();
        await server.start();
      },
      async dispose() {
        if (disposed) return;
        disposed = true;
        await server.shutdown();
        forgetAtExit(server);
        await rm(dir, { recursive: true, force: true });
        watchdog.release();
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    watchdog.release();
    throw error;
  }
}

async function startOnFreePort(
  binary: string,
  dir: string,
  configArgs: () => Promise<string[]> | string[],
): Promise<RedisProcess> {
  for (let attempt = 1; ; attempt++) {
    const server = new RedisProcess({
      binary,
      dir,
      port: await findFreePort(),
      configArgs: await configArgs(),
    });
    try {
      await server.start();
      return server;
    } catch (error) {
      if (!isPortInUseError(error) || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}
