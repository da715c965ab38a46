import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';
import { tempDir } from './servers.js';

/** A real S3 HTTP server on loopback (s3rver): it does not check signatures and has no multipart upload. */
export interface TestS3 {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  stop: () => Promise<void>;
}

export async function startS3Server(): Promise<TestS3> {
  const dir = tempDir('s3rver');
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir.path });
  const address = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    stop: async () => {
      await server.close();
      dir.remove();
    },
  };
}
