export function zeroed(size: number): Buffer {
  return new Buffer(size); // VULN: deprecation
}
