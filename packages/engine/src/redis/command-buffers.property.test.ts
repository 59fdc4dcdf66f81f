/**
 * errand's encoding of a command is byte for byte ioredis' own: commands
 * built by ioredis from generated arguments (strings of any code point,
 * lone surrogates included, empty ones, Buffers, numbers, nested arrays,
 * none or many), and arguments far larger than the Buffer pool.
 */
import fc from "fast-check";
import { Command } from "ioredis";
import { describe, expect, it } from "vitest";
import { encodeCommand } from "./command-buffers.js";

/** What ioredis writes for `command`: its string as UTF-8, or its Buffer. */
function ioredisBytes(command: Command): Buffer {
  const writable = command.toWritable({});
  return typeof writable === "string" ? Buffer.from(writable, "utf8") : writable;
}

/** errand's bytes for `command`, once ioredis has built it (its arguments converted). */
function errandBytes(command: Command): Buffer {
  return encodeCommand(command.name, command.args as (string | Buffer)[]);
}

const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constant(""),
);
const bytes = fc.uint8Array({ maxLength: 40 }).map((array) => Buffer.from(array));
const number = fc.oneof(fc.integer(), fc.double());
const scalar = fc.oneof(text, bytes, number);
const argument = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 4 }) },
);
/** Names ioredis has no argument transformer for; a bare generated one may name an `Object` method. */
const commandName = fc.oneof(
  fc.constantFrom("set", "evalsha", "xadd", "zadd"),
  text.map((suffix) => `x${suffix}`),
);

describe("encodeCommand", () => {
  it("writes the bytes ioredis writes, for any arguments ioredis accepts", () => {
    fc.assert(
      fc.property(commandName, fc.array(argument, { maxLength: 30 }), (name, args) => {
        const command = new Command(name, args);
        expect(errandBytes(command).equals(ioredisBytes(command))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("writes arguments of a megabyte, strings of multi-byte characters and Buffers alike", () => {
    const large = [
      "é€😀".repeat(100_000),
      Buffer.alloc(1_000_000, 7),
      "",
      Buffer.alloc(0),
      123_456_789,
    ];
    const command = new Command("set", large);
    const encoded = errandBytes(command);
    expect(encoded.length).toBeGreaterThan(1_900_000);
    expect(encoded.equals(ioredisBytes(command))).toBe(true);
  });
});
