/**
 * The Redis Cluster hash slot of a key (CRC16-XMODEM mod 16384, with `{hash tags}`), as the servers
 * compute it: lets the store tell which master a key lives on, so a master that hangs stalls only the
 * commands for its own slots (S17.2).
 */
export function keySlot(key: string): number {
  const open = key.indexOf("{");
  const close = open === -1 ? -1 : key.indexOf("}", open + 1);
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  let crc = 0;
  for (const byte of new TextEncoder().encode(hashed)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}
