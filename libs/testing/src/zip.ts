import { writeFileSync } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';

/** One file of a zip made by writeZip. */
export interface ZipInput {
  readonly name: string;
  readonly data: string | Buffer;
}

/**
 * Writes a zip file the way osv.dev's exports are laid out (deflated entries, a central directory;
 * ZIP64 end records when there are more than 65,535 entries or `zip64` is asked for), so readers
 * are tested on archives they meet in the field without a zip tool on the machine.
 */
export function writeZip(
  path: string,
  files: readonly ZipInput[],
  options: { readonly zip64?: boolean; readonly store?: boolean } = {},
): void {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const data = typeof file.data === 'string' ? Buffer.from(file.data, 'utf8') : file.data;
    const body = options.store === true ? data : deflateRawSync(data);
    const method = options.store === true ? 0 : 8;
    const name = Buffer.from(file.name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, body);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(45, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0800, 8);
    entry.writeUInt16LE(method, 10);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(body.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(name.length, 28);
    if (options.zip64 === true) {
      // The offset through the ZIP64 extra field, as large archives do.
      entry.writeUInt16LE(12, 30);
      entry.writeUInt32LE(0xffffffff, 42);
      const extra = Buffer.alloc(12);
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(8, 2);
      extra.writeBigUInt64LE(BigInt(offset), 4);
      central.push(entry, name, extra);
    } else {
      entry.writeUInt32LE(offset, 42);
      central.push(entry, name);
    }
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(central);
  const zip64 = options.zip64 === true || files.length > 0xffff;
  const tail: Buffer[] = [];
  if (zip64) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE(45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(files.length), 24);
    record.writeBigUInt64LE(BigInt(files.length), 32);
    record.writeBigUInt64LE(BigInt(directory.length), 40);
    record.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? 0xffff : files.length, 8);
  end.writeUInt16LE(zip64 ? 0xffff : files.length, 10);
  end.writeUInt32LE(zip64 ? 0xffffffff : directory.length, 12);
  end.writeUInt32LE(zip64 ? 0xffffffff : offset, 16);
  writeFileSync(path, Buffer.concat([...parts, directory, ...tail, end]));
}
