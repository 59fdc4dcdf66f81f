/**
 * Each command of a coalesced connection written as one Buffer, encoded in
 * place. ioredis builds a command's RESP as a string by concatenation: per
 * argument a length turned into a string and four pieces joined, a chain of
 * strings the socket then flattens, and encodes again on its write. At a
 * steady rate that was the largest single item of what a run allocated
 * (about a ninth), most of it in script calls (errand's appends, BullMQ's
 * `moveToActive` and `moveToFinished`). Here a command's exact RESP length
 * is counted first (the UTF-8 length of each string, the digits of each
 * length), one Buffer of that size is taken (small ones from Node's shared
 * pool, outside the JavaScript heap) and every piece is written into it:
 * no string is made for an argument, a length or the command.
 *
 * ioredis offers no encoder option; the connection's own `sendCommand`,
 * through which every command it writes passes (its commands, scripts,
 * pipelines and `multi`, those replayed from its offline queue or sent again
 * after a reconnect), hands each command this encoder before ioredis writes
 * it. So does each duplicate of the connection (BullMQ duplicates the one a
 * worker is given for its blocking `BZPOPMIN`). Other clients in the
 * process keep ioredis' own.
 */
import { Command, type Redis } from "ioredis";

const ASTERISK = 0x2a;
const DOLLAR = 0x24;
const CARRIAGE_RETURN = 0x0d;
const LINE_FEED = 0x0a;
const DIGIT_ZERO = 0x30;

/** ioredis' own encoder, which a script command's class calls after picking its form. */
const ioredisToWritable = Command.prototype.toWritable;

/**
 * A script command's arguments while ioredis' script logic picks its form:
 * empty, unless that logic set the first argument (the script or its SHA1).
 */
const scriptForm: Command["args"] = [];

/**
 * Makes every command `redis` writes from now on go out as one Buffer
 * encoded by {@link encodeCommand}, byte for byte what ioredis would send,
 * and every command of each duplicate made of it from now on.
 */
export function encodeCommandsAsBuffers(redis: Redis): void {
  const sendCommand = redis.sendCommand;
  redis.sendCommand = function sendEncoded(this: Redis, command, stream) {
    command.toWritable = toEncodedWritable;
    return sendCommand.call(this, command, stream);
  };
  const duplicate = redis.duplicate;
  redis.duplicate = function duplicateEncoded(this: Redis, override) {
    const copy = duplicate.call(this, override);
    encodeCommandsAsBuffers(copy);
    return copy;
  };
}

/**
 * A command's `toWritable` on an encoding connection. ioredis has turned
 * each argument that is neither a string nor a Buffer (a number, `null`)
 * into a string when it built the command, before any write.
 */
function toEncodedWritable(this: Command, socket: object): Buffer {
  const classToWritable: Command["toWritable"] = Object.getPrototypeOf(this).toWritable;
  if (classToWritable !== ioredisToWritable) pickScriptForm(this, classToWritable, socket);
  return encodeCommand(this.name, this.args as readonly (string | Buffer)[]);
}

/**
 * Lets ioredis decide, as it writes a script command (`defineCommand`'s),
 * between EVAL with the script (the first time on `socket`, or after a
 * NOSCRIPT) and EVALSHA: its command class decides in its `toWritable`,
 * setting the command's name and first argument, then encodes it with
 * ioredis' own. It is run here on {@link scriptForm} in place of the
 * command's arguments, so that what it encodes is a few bytes, and is
 * thrown away.
 */
function pickScriptForm(
  command: Command,
  classToWritable: Command["toWritable"],
  socket: object,
): void {
  const args = command.args;
  command.args = scriptForm;
  try {
    classToWritable.call(command, socket);
  } finally {
    command.args = args;
    const [picked] = scriptForm;
    if (picked !== undefined) args[0] = picked;
    scriptForm.length = 0;
  }
}

/**
 * The RESP of command `name` with `args`, as ioredis writes it: an array of
 * bulk strings, a string as its UTF-8 bytes, a Buffer as its bytes. Its
 * size is counted first, so that it is one Buffer written in place.
 */
export function encodeCommand(name: string, args: readonly (string | Buffer)[]): Buffer {
  let size = 1 + decimalLineSize(args.length + 1) + bulkStringSize(Buffer.byteLength(name));
  for (const arg of args) size += bulkStringSize(byteLength(arg));
  const resp = Buffer.allocUnsafe(size);
  resp[0] = ASTERISK;
  let offset = writeDecimalLine(resp, 1, args.length + 1);
  offset = writeBulkString(resp, offset, name);
  for (const arg of args) offset = writeBulkString(resp, offset, arg);
  return resp;
}

/** The bytes `value` is sent as: its UTF-8 encoding, or itself. */
function byteLength(value: string | Buffer): number {
  return typeof value === "string" ? Buffer.byteLength(value) : value.length;
}

/** The bytes of a bulk string of `length` bytes: `$`, its length, CRLF, the bytes, CRLF. */
function bulkStringSize(length: number): number {
  return 1 + decimalLineSize(length) + length + 2;
}

/** The bytes of `value`'s decimal digits and a CRLF. */
function decimalLineSize(value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits += 1;
  return digits + 2;
}

/** Writes `value` as a bulk string at `start` of `resp`; returns the offset after it. */
function writeBulkString(resp: Buffer, start: number, value: string | Buffer): number {
  const length = byteLength(value);
  resp[start] = DOLLAR;
  let offset = writeDecimalLine(resp, start + 1, length);
  if (typeof value === "string") resp.write(value, offset, length, "utf8");
  else resp.set(value, offset);
  offset += length;
  resp[offset] = CARRIAGE_RETURN;
  resp[offset + 1] = LINE_FEED;
  return offset + 2;
}

/** Writes `value`'s decimal digits and a CRLF at `start` of `resp`; returns the offset after them. */
function writeDecimalLine(resp: Buffer, start: number, value: number): number {
  const end = start + decimalLineSize(value) - 2;
  let rest = value;
  for (let offset = end - 1; offset >= start; offset -= 1) {
    resp[offset] = DIGIT_ZERO + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  resp[end] = CARRIAGE_RETURN;
  resp[end + 1] = LINE_FEED;
  return end + 2;
}
