/**
 * The harness's client calls that failed. The harness is errand's caller:
 * while faults strike it waits on `result` and `collect` like any parent.
 * A wait that rejects is the client failing its caller, not the system
 * failing to recover, so it is kept here with its error (code and message)
 * and reported on its own line, never swallowed; the harness then waits again.
 */
import { isErrandError } from "@errand/core";

/** One client call that failed. */
export interface ClientFailure {
  /** The call: `result`, `collect`. */
  call: string;
  /** The error's code: an `ErrandError`'s code, else the error's name (`ReplyError`, `Error`, …). */
  code: string;
  message: string;
  /** When it failed, in ms since the harness started. */
  atMs: number;
}

/** The failed client calls of one chaos run. */
export class ClientCalls {
  readonly failures: ClientFailure[] = [];

  constructor(private readonly startedAt: number) {}

  /** Keeps `error` as a failure of `call`. */
  failed(call: string, error: unknown): void {
    const code = isErrandError(error)
      ? error.code
      : error instanceof Error
        ? error.name
        : typeof error;
    const message = error instanceof Error ? error.message : String(error);
    this.failures.push({ call, code, message, atMs: Date.now() - this.startedAt });
  }
}
