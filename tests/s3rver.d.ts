declare module "@20minutes/s3rver" {
  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  }
  export default class S3rver {
    constructor(options?: S3rverOptions);
    /** Koa's middleware list (S3rver is a Koa application). */
    middleware: unknown[];
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
