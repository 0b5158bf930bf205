import path from "node:path";
import { getDb } from "@/db";
import { env, publicBaseUrl } from "@/lib/env";
import { urlSigningSecret } from "@/lib/settings";
import { type FilesystemStorage, filesystemStorage } from "./filesystem";
import { type S3Storage, s3Storage } from "./s3";
import type { Storage } from "./types";

export type {
  DownloadTarget,
  ListedObject,
  ObjectInfo,
  PresignedGet,
  PresignedPut,
  PutOptions,
  Storage,
  UploadTarget,
} from "./types";
export { MAX_PRESIGN_SECONDS, StorageLimitError } from "./types";
export type { FilesystemStorage } from "./filesystem";
export type { S3Storage } from "./s3";

/** Which backend STORAGE_BACKEND (or the presence of S3_BUCKET) chooses. */
export function storageBackend(): "filesystem" | "s3" {
  return env.STORAGE_BACKEND ?? (env.S3_BUCKET ? "s3" : "filesystem");
}

function fromEnv(): FilesystemStorage | S3Storage {
  if (storageBackend() === "s3") {
    if (!env.S3_BUCKET) throw new Error("STORAGE_BACKEND=s3 needs S3_BUCKET");
    if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY))
      throw new Error("set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither");
    return s3Storage({
      bucket: env.S3_BUCKET,
      region: env.S3_REGION,
      endpoint: env.S3_ENDPOINT,
      publicEndpoint: env.S3_PUBLIC_ENDPOINT,
      forcePathStyle: env.S3_FORCE_PATH_STYLE,
      credentials:
        env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
          ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
          : undefined,
    });
  }
  return filesystemStorage({
    root: path.resolve(env.STORAGE_DIR),
    secret: async () => urlSigningSecret(await getDb()),
    uploadBaseUrl: publicBaseUrl,
    downloadBaseUrl: publicBaseUrl,
  });
}

let instance: FilesystemStorage | S3Storage | undefined;

/** The storage backend the environment chooses (one per process). */
export function storage(): Storage {
  instance ??= fromEnv();
  return instance;
}

/** The filesystem backend when it is the one in use (its app-served URLs need the storage route). */
export function filesystemBackend(): FilesystemStorage | null {
  const s = storage() as FilesystemStorage | S3Storage;
  return s.kind === "filesystem" ? s : null;
}
