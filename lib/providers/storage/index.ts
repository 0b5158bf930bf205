import fs from "node:fs/promises";
import path from "node:path";
import { env } from "@/lib/env";

/**
 * Where stored bytes live. The embedded default is a directory (STORAGE_DIR); an S3 adapter
 * implements the same interface when it lands.
 */
export interface Storage {
  put(key: string, bytes: Uint8Array): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
}

function safePath(root: string, key: string): string {
  if (!/^[a-zA-Z0-9/_.-]+$/.test(key) || key.includes("..")) throw new Error(`invalid storage key ${key}`);
  return path.join(root, key);
}

export function filesystemStorage(root: string): Storage {
  return {
    async put(key, bytes) {
      const file = safePath(root, key);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, bytes);
    },
    async get(key) {
      try {
        return await fs.readFile(safePath(root, key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw err;
      }
    },
    async delete(key) {
      await fs.rm(safePath(root, key), { force: true });
    },
  };
}

let instance: Storage | undefined;

export function storage(): Storage {
  instance ??= filesystemStorage(path.resolve(env.STORAGE_DIR));
  return instance;
}
