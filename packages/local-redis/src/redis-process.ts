/**
 * One `redis-server` daemon that we start, kill, restart and shut down
 * ourselves: bound to loopback on a given port, living in its own directory
 * with its pidfile and logfile there.
 */
import { readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { ErrandError } from "@errand/core";
import { isProcessRunning, waitForProcessExit } from "./process-state.js";
import { type RedisAddress, sendRedisCommand } from "./resp.js";
import { runCommand } from "./run-command.js";
import { waitUntil } from "./wait-until.js";

/** How long a server gets to come up or to go away before we call it broken. */
const STARTUP_TIMEOUT_MS = 15_000;
const EXIT_TIMEOUT_MS = 10_000;

/** Options of {@link RedisProcess}. */
export interface RedisProcessOptions {
  /** The `redis-server` executable. */
  binary: string;
  /** The server's own directory: working dir, pidfile, logfile, AOF. */
  dir: string;
  /** The loopback port to listen on. */
  port: number;
  /** Further configuration, as `--name value` arguments. */
  configArgs: readonly string[];
}

/** The pidfile of the server living in `dir`. */
export function pidfileIn(dir: string): string {
  return join(dir, "redis.pid");
}

/** True for the error {@link RedisProcess.start} throws when another process already holds the port. */
export function isPortInUseError(error: unknown): boolean {
  return error instanceof ErrandError && error.details?.reason === "port_in_use";
}

/** A daemonized `redis-server` on 127.0.0.1, driven through its pidfile. */
export class RedisProcess implements RedisAddress {
  readonly host = "127.0.0.1";
  readonly port: number;
  readonly pidfile: string;
  readonly logfile: string;

  constructor(private readonly options: RedisProcessOptions) {
    this.port = options.port;
    this.pidfile = pidfileIn(options.dir);
    this.logfile = join(options.dir, "redis.log");
  }

  /** The daemon's pid from its pidfile, if it has written one. */
  readPid(): number | undefined {
    try {
      const pid = Number.parseInt(readFileSync(this.pidfile, "utf8").trim(), 10);
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /** The last lines of the server's log, for error messages. */
  logTail(lines = 15, fromByte = 0): string {
    try {
      const text = readFileSync(this.logfile).subarray(fromByte).toString("utf8");
      return text.trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "(no log written)";
    }
  }

  /**
   * Starts the daemon and resolves once it answers on its port as itself
   * (its `INFO` `process_id` matches its pidfile). Rejects with an
   * {@link ErrandError} `redis_unavailable`, whose `details.reason` is
   * `"port_in_use"` when the port was taken.
   */
  async start(): Promise<void> {
    rmSync(this.pidfile, { force: true });
    const logOffset = this.logSize();
    await this.launch();
    const outcome = await waitUntil(() => this.startupOutcome(logOffset), {
      timeoutMs: STARTUP_TIMEOUT_MS,
    });
    if (outcome === "ready") return;
    const tail = this.logTail(15, logOffset);
    if (outcome === "port_in_use") {
      throw new ErrandError("redis_unavailable", `port ${this.port} is already in use`, {
        retryable: true,
        details: { reason: "port_in_use" },
      });
    }
    await this.kill().catch(() => undefined);
    throw new ErrandError(
      "redis_unavailable",
      `redis-server on port ${this.port} did not answer within ${STARTUP_TIMEOUT_MS} ms. Log tail:\n${tail}`,
    );
  }

  /**
   * Sends `signal` (default SIGKILL) to the daemon and resolves once it is gone.
   * Does nothing when it is not running.
   */
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    const pid = this.readPid();
    if (pid === undefined || !isProcessRunning(pid)) return;
    process.kill(pid, signal);
    if (!(await waitForProcessExit(pid, EXIT_TIMEOUT_MS))) {
      throw new ErrandError(
        "redis_unavailable",
        `redis-server pid ${pid} still runs ${EXIT_TIMEOUT_MS} ms after ${signal}`,
      );
    }
    rmSync(this.pidfile, { force: true });
  }

  /** Shuts the daemon down without saving (SHUTDOWN NOSAVE, then SIGKILL if it lingers). */
  async shutdown(): Promise<void> {
    const pid = this.readPid();
    if (pid === undefined || !isProcessRunning(pid)) return;
    // The server closes the connection instead of replying: the rejection is expected.
    await sendRedisCommand(this, ["SHUTDOWN", "NOSAVE"]).catch(() => undefined);
    if (!(await waitForProcessExit(pid, EXIT_TIMEOUT_MS))) await this.kill("SIGKILL");
    rmSync(this.pidfile, { force: true });
  }

  private logSize(): number {
    try {
      return statSync(this.logfile).size;
    } catch {
      return 0;
    }
  }

  /** Runs `redis-server`, which forks the daemon and exits; rejects when it refuses its config. */
  private async launch(): Promise<void> {
    const { binary, dir, configArgs } = this.options;
    const { code, output } = await runCommand(binary, [
      ...["--port", String(this.port), "--bind", this.host, "--dir", dir],
      ...["--pidfile", this.pidfile, "--logfile", this.logfile, "--daemonize", "yes"],
      ...configArgs,
    ]);
    if (code !== 0) {
      throw new ErrandError(
        "redis_unavailable",
        `${binary} exited with code ${code}: ${output || this.logTail()}`,
      );
    }
  }

  private async startupOutcome(logOffset: number): Promise<"ready" | "port_in_use" | undefined> {
    if (/Address already in use/.test(this.logTail(50, logOffset))) return "port_in_use";
    const pid = this.readPid();
    if (pid === undefined) return undefined;
    try {
      const info = await sendRedisCommand(this, ["INFO", "server"], 1_000);
      return info.includes(`process_id:${pid}\r\n`) ? "ready" : undefined;
    } catch {
      return undefined;
    }
  }
}
