import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { crc32, inflateRawSync } from 'node:zlib';
import { RloopError } from '@rloop/contracts';

// A reader for the zip files osv.dev publishes (`<ecosystem>/all.zip`): the central directory
// (ZIP64 included: npm's export holds more than 65,535 records), stored or deflated entries, each
// checked against its CRC. Node's zlib does the inflating, so no dependency is needed for it.

/** A zip file that cannot be read (truncated download, not a zip, a feature we do not read). */
export class ZipFormatError extends RloopError {
  constructor(path: string, message: string) {
    super('ADVISORIES.ZIP_FORMAT', `${path}: ${message}`);
  }
}

export interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localHeaderOffset: number;
  readonly encrypted: boolean;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX32 = 0xffffffff;

/** An open zip file; read its entries' data with `read`, close it when done. */
export class ZipFile {
  private constructor(
    readonly path: string,
    private readonly fd: number,
    readonly entries: readonly ZipEntry[],
  ) {}

  /** Opens a zip file and reads its central directory. */
  static open(path: string): ZipFile {
    const fd = openSync(path, 'r');
    try {
      return new ZipFile(path, fd, readCentralDirectory(path, fd));
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** An entry's uncompressed bytes, checked against its CRC-32. */
  read(entry: ZipEntry): Buffer {
    if (entry.encrypted) throw new ZipFormatError(this.path, `${entry.name} is encrypted`);
    const header = readAt(this.fd, entry.localHeaderOffset, 30);
    if (header.readUInt32LE(0) !== LOCAL) throw new ZipFormatError(this.path, `no local header for ${entry.name}`);
    const start = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
    const raw = readAt(this.fd, start, entry.compressedSize);
    if (raw.length !== entry.compressedSize)
      throw new ZipFormatError(this.path, `${entry.name} is cut short (the file is truncated)`);
    let data: Buffer;
    if (entry.method === 0) data = raw;
    else if (entry.method === 8) {
      try {
        data = inflateRawSync(raw);
      } catch (error) {
        throw new ZipFormatError(
          this.path,
          `${entry.name} does not inflate: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    } else
      throw new ZipFormatError(
        this.path,
        `${entry.name} uses compression method ${entry.method} (only stored and deflated entries are read)`,
      );
    if (data.length !== entry.size || crc32(data) !== entry.crc)
      throw new ZipFormatError(this.path, `${entry.name} fails its CRC check (the file is damaged)`);
    return data;
  }

  close(): void {
    closeSync(this.fd);
  }
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const n = readSync(fd, buffer, read, length - read, position + read);
    if (n === 0) break;
    read += n;
  }
  return read === length ? buffer : buffer.subarray(0, read);
}

function readCentralDirectory(path: string, fd: number): ZipEntry[] {
  const size = fstatSync(fd).size;
  // The end record is 22 bytes plus a comment of at most 65,535.
  const tailLength = Math.min(size, 22 + 0xffff);
  const tail = readAt(fd, size - tailLength, tailLength);
  let at = -1;
  for (let i = tail.length - 22; i >= 0; i -= 1) {
    if (tail.readUInt32LE(i) === EOCD) {
      at = i;
      break;
    }
  }
  if (at < 0)
    throw new ZipFormatError(path, 'not a zip file (no end of central directory: truncated, or another format)');
  let count = tail.readUInt16LE(at + 10);
  let directorySize = tail.readUInt32LE(at + 12);
  let directoryOffset = tail.readUInt32LE(at + 16);
  const locatorAt = size - tailLength + at - 20;
  if (locatorAt >= 0 && readAt(fd, locatorAt, 4).readUInt32LE(0) === ZIP64_LOCATOR) {
    const zip64At = Number(readAt(fd, locatorAt + 8, 8).readBigUInt64LE(0));
    const record = readAt(fd, zip64At, 56);
    if (record.readUInt32LE(0) !== ZIP64_EOCD) throw new ZipFormatError(path, 'damaged ZIP64 end record');
    count = Number(record.readBigUInt64LE(32));
    directorySize = Number(record.readBigUInt64LE(40));
    directoryOffset = Number(record.readBigUInt64LE(48));
  }
  if (directoryOffset + directorySize > size)
    throw new ZipFormatError(path, 'the central directory lies past the end of the file (truncated)');
  const directory = readAt(fd, directoryOffset, directorySize);
  const entries: ZipEntry[] = [];
  let p = 0;
  for (let i = 0; i < count; i += 1) {
    if (p + 46 > directory.length || directory.readUInt32LE(p) !== CENTRAL)
      throw new ZipFormatError(path, `damaged central directory at entry ${i + 1} of ${count}`);
    const flags = directory.readUInt16LE(p + 8);
    const nameLength = directory.readUInt16LE(p + 28);
    const extraLength = directory.readUInt16LE(p + 30);
    const commentLength = directory.readUInt16LE(p + 32);
    let compressedSize = directory.readUInt32LE(p + 20);
    let entrySize = directory.readUInt32LE(p + 24);
    let offset = directory.readUInt32LE(p + 42);
    const name = directory.toString('utf8', p + 46, p + 46 + nameLength);
    // ZIP64 sizes and offset live in extra field 0x0001, in this order, for the fields set to 0xFFFFFFFF.
    let e = p + 46 + nameLength;
    const extraEnd = e + extraLength;
    while (e + 4 <= extraEnd) {
      const id = directory.readUInt16LE(e);
      const length = directory.readUInt16LE(e + 2);
      if (id === 0x0001) {
        let q = e + 4;
        if (entrySize === MAX32) {
          entrySize = Number(directory.readBigUInt64LE(q));
          q += 8;
        }
        if (compressedSize === MAX32) {
          compressedSize = Number(directory.readBigUInt64LE(q));
          q += 8;
        }
        if (offset === MAX32) offset = Number(directory.readBigUInt64LE(q));
      }
      e += 4 + length;
    }
    entries.push({
      name,
      method: directory.readUInt16LE(p + 10),
      crc: directory.readUInt32LE(p + 16),
      compressedSize,
      size: entrySize,
      localHeaderOffset: offset,
      encrypted: (flags & 1) === 1,
    });
    p = extraEnd + commentLength;
  }
  return entries;
}
