// Extracts named entries of a zip file with Node alone, for machines without unzip (slim images):
//   node unzip-entries.js <zip> <destination> <entry>...
// Enough for get-kube-tool.sh's layer.zip: stored or deflated entries, no zip64, no encryption.
// The caller checks the SHA-256 of what comes out.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { inflateRawSync } from 'node:zlib';

const [zipPath, destination, ...wanted] = process.argv.slice(2);
const zip = readFileSync(zipPath);
const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
if (eocd < 0) throw new Error(`${zipPath}: no end-of-central-directory record`);
const entries = zip.readUInt16LE(eocd + 10);
let at = zip.readUInt32LE(eocd + 16);
const found = new Set();
for (let i = 0; i < entries; i++) {
  if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`${zipPath}: bad central directory entry ${i}`);
  const method = zip.readUInt16LE(at + 10);
  const compressedSize = zip.readUInt32LE(at + 20);
  const nameLength = zip.readUInt16LE(at + 28);
  const extraLength = zip.readUInt16LE(at + 30);
  const commentLength = zip.readUInt16LE(at + 32);
  const localHeader = zip.readUInt32LE(at + 42);
  const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
  at += 46 + nameLength + extraLength + commentLength;
  if (!wanted.includes(name)) continue;
  const start = localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
  const data = zip.subarray(start, start + compressedSize);
  if (method !== 0 && method !== 8) throw new Error(`${name}: compression method ${method} is not supported`);
  const target = join(destination, name);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, method === 8 ? inflateRawSync(data) : data);
  found.add(name);
}
const missing = wanted.filter((name) => !found.has(name));
if (missing.length > 0) throw new Error(`${zipPath}: no ${missing.join(', ')}`);
