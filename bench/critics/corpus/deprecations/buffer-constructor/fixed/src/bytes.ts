export function zeroed(size: number): Buffer {
  return Buffer.alloc(size);
}
