/**
 * Run ids: sortable by creation time, URL-safe, never containing `:` and
 * never all digits (BullMQ reads an all-digit job id as its own counter), with
 * the run's shard written into the id so that finding a run's keys needs no
 * lookup table.
 *
 * Layout (29 characters, Crockford base32 upper case after the marker):
 *
 * ```
 * R 01JD5X8K2M 0F 3ZC8W9QH7N5TB2KD
 * │ │          │  └ 16 chars: 80 random bits
 * │ │          └ 2 chars: the shard, 0…1023
 * │ └ 10 chars: creation time in ms since the Unix epoch, zero-padded
 * └ the marker "R": the id is never all digits, and its format is versioned
 * ```
 *
 * The time prefix has a fixed width and the alphabet is in ASCII order, so the
 * lexicographic order of ids is the order of their creation times (ids of the
 * same millisecond are ordered by shard, then randomly). Pure: time and
 * randomness come in as arguments.
 */
import { ErrandError } from "./errors.js";

/** Crockford's base32 alphabet: digits then letters without I, L, O, U, in ASCII order. */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const MARKER = "R";
const TIME_CHARS = 10;
const SHARD_CHARS = 2;
const RANDOM_CHARS = 16;
const SHARD_START = MARKER.length + TIME_CHARS;
const RANDOM_START = SHARD_START + SHARD_CHARS;

/** The length of every run id. */
export const RUN_ID_LENGTH = RANDOM_START + RANDOM_CHARS;

/** How many shards a run id can name: shards are 0 … `MAX_SHARDS - 1`. */
export const MAX_SHARDS = ALPHABET.length ** SHARD_CHARS;

/** The latest creation time a run id can carry, in ms since the epoch (year 37,648). */
export const MAX_RUN_ID_TIME_MS = ALPHABET.length ** TIME_CHARS - 1;

/** How many random bytes {@link newRunId} consumes (at least this many must be given). */
export const RUN_ID_RANDOM_BYTES = (RANDOM_CHARS * 5) / 8;

const RUN_ID_PATTERN = new RegExp(`^${MARKER}[${ALPHABET}]{${RUN_ID_LENGTH - MARKER.length}}$`);

/** What {@link newRunId} needs: the shard, the clock and the randomness, all from outside. */
export interface NewRunIdInput {
  /** The shard the run lives on, 0 … {@link MAX_SHARDS} − 1. */
  shard: number;
  /** The creation time, ms since the Unix epoch (e.g. `Date.now()`). */
  nowMs: number;
  /** At least {@link RUN_ID_RANDOM_BYTES} random bytes (e.g. `crypto.randomBytes(10)`). */
  random: Uint8Array;
}

/** `value` as `width` base32 digits, most significant first. `value` must fit. */
function encodeNumber(value: number, width: number): string {
  let text = "";
  let rest = value;
  for (let i = 0; i < width; i++) {
    text = ALPHABET[rest % 32] + text;
    rest = Math.floor(rest / 32);
  }
  return text;
}

/** The first `chars × 5` bits of `bytes` as base32 digits. */
function encodeBits(bytes: Uint8Array, chars: number): string {
  let text = "";
  let buffer = 0;
  let bits = 0;
  let index = 0;
  while (text.length < chars) {
    if (bits < 5) {
      buffer = ((buffer << 8) | (bytes[index] ?? 0)) & 0xfff;
      bits += 8;
      index += 1;
    }
    bits -= 5;
    text += ALPHABET[(buffer >> bits) & 31];
  }
  return text;
}

function invalid(message: string, details: Record<string, unknown>): ErrandError {
  return new ErrandError("invalid_spec", message, { details });
}

/**
 * A new run id for a run on `shard`, created at `nowMs`. Throws an
 * {@link ErrandError} `invalid_spec` for a shard outside 0 … {@link MAX_SHARDS} − 1,
 * a time outside 0 … {@link MAX_RUN_ID_TIME_MS}, or too few random bytes.
 */
export function newRunId({ shard, nowMs, random }: NewRunIdInput): string {
  if (!Number.isInteger(shard) || shard < 0 || shard >= MAX_SHARDS) {
    throw invalid(`a run's shard must be an integer from 0 to ${MAX_SHARDS - 1}, not ${shard}`, {
      shard,
    });
  }
  if (!Number.isInteger(nowMs) || nowMs < 0 || nowMs > MAX_RUN_ID_TIME_MS) {
    throw invalid(`a run id's time must be whole ms since the epoch, not ${nowMs}`, { nowMs });
  }
  if (random.length < RUN_ID_RANDOM_BYTES) {
    throw invalid(`a run id needs ${RUN_ID_RANDOM_BYTES} random bytes, not ${random.length}`, {
      randomBytes: random.length,
    });
  }
  return (
    MARKER +
    encodeNumber(nowMs, TIME_CHARS) +
    encodeNumber(shard, SHARD_CHARS) +
    encodeBits(random, RANDOM_CHARS)
  );
}

/** True when `value` is a well-formed run id. */
export function isRunId(value: unknown): value is string {
  return typeof value === "string" && RUN_ID_PATTERN.test(value);
}

/** The characters `start … end` of a well-formed `runId`, read as a base32 number. */
function readField(runId: string, start: number, end: number): number {
  if (!isRunId(runId)) throw invalid(`not a run id: ${JSON.stringify(runId)}`, { runId });
  let value = 0;
  for (const char of runId.slice(start, end)) value = value * 32 + ALPHABET.indexOf(char);
  return value;
}

/** The shard written into `runId`. Throws an {@link ErrandError} `invalid_spec` for a malformed id. */
export function shardOfRunId(runId: string): number {
  return readField(runId, SHARD_START, RANDOM_START);
}

/** The creation time written into `runId`, in ms since the epoch. Throws like {@link shardOfRunId}. */
export function createdAtOfRunId(runId: string): number {
  return readField(runId, MARKER.length, SHARD_START);
}
