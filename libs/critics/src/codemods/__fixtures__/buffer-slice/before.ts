// buf.slice(…) → buf.subarray(…): Node's Buffer#slice is subarray.
export function header(packet: Buffer): Buffer {
  return packet.slice(0, 4);
}

export function tail(packet: Buffer): Buffer {
  return packet.slice(-2);
}

// Stays: Uint8Array#slice copies, and it is not deprecated.
export function copyOf(list: Uint8Array): Uint8Array {
  return list.slice(1);
}
