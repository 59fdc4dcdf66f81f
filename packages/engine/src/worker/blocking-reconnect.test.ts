/**
 * `endReconnectsOnceReady` on a stand-in for BullMQ's blocking connection
 * (the way an ioredis Cluster wedges it is in `blocking-reconnect.ts`; it
 * shows only under load after a master restart).
 */
import { describe, expect, it } from "vitest";
import { endReconnectsOnceReady } from "./blocking-reconnect.js";

/** A connection whose reconnect waits until `finish` is called. */
function reconnecting(status: string) {
  const client = { status };
  let finish: (error?: Error) => void = () => undefined;
  const connection = {
    client: Promise.resolve(client),
    reconnect: () =>
      new Promise<void>((resolve, reject) => {
        finish = (error) => (error ? reject(error) : resolve());
      }),
  };
  endReconnectsOnceReady(connection);
  return { connection, client, finish: (error?: Error) => finish(error) };
}

describe("endReconnectsOnceReady", () => {
  it("ends a reconnect whose wait never ends once the client says it is ready", async () => {
    const { connection, client } = reconnecting("reconnecting");
    let ended = false;
    const reconnect = connection.reconnect().then(() => {
      ended = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(ended).toBe(false);
    client.status = "ready";
    await reconnect;
    expect(ended).toBe(true);
  });

  it("ends with BullMQ's own wait when it ends first, failing as it fails", async () => {
    const resolved = reconnecting("connecting");
    const reconnect = resolved.connection.reconnect();
    await new Promise((resolve) => setTimeout(resolve, 10));
    resolved.finish();
    await expect(reconnect).resolves.toBeUndefined();

    const failed = reconnecting("connecting");
    const failing = failed.connection.reconnect();
    await new Promise((resolve) => setTimeout(resolve, 10));
    failed.finish(new Error("Connection is closed."));
    await expect(failing).rejects.toThrow("Connection is closed.");
  });
});
