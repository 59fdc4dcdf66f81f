/**
 * One socket write a turn of the event loop for a connection's commands.
 * ioredis writes each command to its socket as it is issued; its
 * auto-pipelining would gather a turn's commands into one write, but it
 * builds a `Pipeline` for every turn (a copy of every script the connection
 * defined, BullMQ's 52 included), and a promise, a callback and a result
 * slot for every command, even when the turn issued one command, as it
 * mostly does at a steady rate: there, about a quarter of what a run
 * allocated; a few per cent on a backlog, where a turn carries many.
 * Corking the socket instead gives the same one write a turn, for an
 * `Immediate` a turn: the first command written in a turn corks the socket
 * and schedules its uncorking after the turn's I/O callbacks (where
 * auto-pipelining sends its pipeline), and Node hands the turn's commands
 * to the kernel in one `writev`. Commands, replies and their order are
 * ioredis' own, unchanged: ioredis queues a command for its reply as it
 * writes it, corked or not, so a socket lost while corked drops only bytes;
 * its commands wait in that queue with those written and unanswered, and
 * are all sent again, in order, once the connection is ready again.
 */
import type { Socket } from "node:net";
import type { Redis } from "ioredis";

/**
 * Makes every socket `redis` opens (its first, and each after a reconnect)
 * send the commands written in one turn of the event loop in one write.
 * The socket is corked from its first write of a turn until that turn's
 * `setImmediate`; the commands ioredis writes while connecting (before its
 * `connect` event) are written one by one, as before.
 */
export function coalesceWrites(redis: Redis): void {
  redis.on("connect", () => corkEachTurn(redis.stream as Socket));
}

/** Wraps `socket.write` so that a turn's writes stay corked until the turn's `setImmediate`. */
function corkEachTurn(socket: Socket): void {
  const write = socket.write;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  // Its parameters are named, not gathered: a rest array would be one more object a command.
  socket.write = function writeCorked(
    this: Socket,
    chunk: string | Uint8Array,
    encoding?: BufferEncoding | ((error?: Error | null) => void),
    callback?: (error?: Error | null) => void,
  ) {
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(uncork);
    }
    return write.call(this, chunk, encoding as BufferEncoding, callback);
  } as Socket["write"];
}
