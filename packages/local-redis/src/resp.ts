/**
 * A one-shot Redis client over a raw TCP socket: enough to PING a server we
 * started, read `INFO` or `CLUSTER INFO`, and ask it to shut down, without
 * making a Redis client library a runtime dependency of this package.
 */
import { connect } from "node:net";
import { ErrandError } from "@errand/core";

/** Where a Redis server listens. */
export interface RedisAddress {
  host: string;
  port: number;
}

/** Encodes a command as a RESP array of bulk strings. */
function encodeCommand(args: readonly string[]): Buffer {
  const parts = [`*${args.length}\r\n`];
  for (const arg of args) parts.push(`$${Buffer.byteLength(arg)}\r\n${arg}\r\n`);
  return Buffer.from(parts.join(""));
}

type ParsedReply = { done: false } | { done: true; ok: boolean; value: string };

/** Parses one complete simple/error/integer/bulk reply from `buffer`, or says it is incomplete. */
function parseReply(buffer: Buffer): ParsedReply {
  const lineEnd = buffer.indexOf("\r\n");
  if (lineEnd < 0) return { done: false };
  const kind = String.fromCharCode(buffer[0] ?? 0);
  const line = buffer.subarray(1, lineEnd).toString();
  if (kind === "+" || kind === ":") return { done: true, ok: true, value: line };
  if (kind === "-") return { done: true, ok: false, value: line };
  if (kind === "$") {
    const length = Number(line);
    if (length < 0) return { done: true, ok: true, value: "" };
    const start = lineEnd + 2;
    if (buffer.length < start + length + 2) return { done: false };
    return { done: true, ok: true, value: buffer.subarray(start, start + length).toString() };
  }
  return { done: true, ok: false, value: `unexpected reply type ${JSON.stringify(kind)}` };
}

/**
 * Sends one command and resolves with its reply as a string (simple, integer
 * or bulk reply). Rejects with an {@link ErrandError} `redis_unavailable` on a
 * connection error, an error reply, a close before the reply, or `timeoutMs`.
 */
export function sendRedisCommand(
  address: RedisAddress,
  args: readonly string[],
  timeoutMs = 2_000,
): Promise<string> {
  const label = `${args[0] ?? ""} to ${address.host}:${address.port}`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address.host, port: address.port });
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (outcome: { value: string } | { error: string; cause?: unknown }) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if ("value" in outcome) resolve(outcome.value);
      else
        reject(
          new ErrandError("redis_unavailable", `${label} failed: ${outcome.error}`, {
            retryable: true,
            cause: outcome.cause,
          }),
        );
    };
    socket.setTimeout(timeoutMs, () => finish({ error: `no reply within ${timeoutMs} ms` }));
    socket.on("connect", () => socket.write(encodeCommand(args)));
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
      const reply = parseReply(received);
      if (!reply.done) return;
      finish(reply.ok ? { value: reply.value } : { error: reply.value });
    });
    socket.on("error", (error) => finish({ error: error.message, cause: error }));
    socket.on("close", () => finish({ error: "connection closed before a reply" }));
  });
}

/** True when the server at `address` answers PING with PONG right now. */
export async function answersPing(address: RedisAddress): Promise<boolean> {
  try {
    return (await sendRedisCommand(address, ["PING"], 1_000)) === "PONG";
  } catch {
    return false;
  }
}
