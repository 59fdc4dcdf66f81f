/**
 * Redis Cluster's hash slot of a key (CRC16-XMODEM of its hash tag, or of
 * the whole key without one, modulo 16,384), computed here so that queue
 * shards can pick their tags without asking a node (docs/architecture/redis-layout.md).
 */

/** How many hash slots a Redis Cluster has. */
export const HASH_SLOTS = 16_384;

const CRC16_TABLE = Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
  return crc & 0xffff;
});

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff]!) & 0xffff;
  return crc;
}

/** The part of `key` that decides its slot: the first non-empty `{…}`, else the whole key. */
function hashedPart(key: string): string {
  const open = key.indexOf("{");
  if (open === -1) return key;
  const close = key.indexOf("}", open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

/** The hash slot of `key`, as `CLUSTER KEYSLOT` answers it. */
export function hashSlot(key: string): number {
  return crc16(Buffer.from(hashedPart(key))) % HASH_SLOTS;
}
