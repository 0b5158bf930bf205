import fs from "node:fs";
import path from "node:path";

/**
 * PGlite does not lock its data directory, and two processes opening the same one corrupt it.
 * The product therefore keeps `svc.lock` (holding the owner's pid) in the data directory: the
 * process that creates it exclusively owns the embedded database until it exits.
 */
export const LOCK_FILE = "svc.lock";
export const CONTROL_SOCKET = "svc.sock";

export class DataDirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dir} is held by a running server (pid ${pid}). ` +
        `Use the server's control channel (the CLI does this for you), or stop the server first.`,
    );
    this.name = "DataDirLockedError";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The pid of the live process holding the directory, or null when nobody does. */
export function lockHolder(dir: string): number | null {
  let raw: string;
  try {
    raw = fs.readFileSync(path.join(dir, LOCK_FILE), "utf8");
  } catch {
    return null;
  }
  const pid = Number.parseInt(raw.trim(), 10);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : null;
}

const held = new Set<string>();

/** Takes the lock for this process or throws DataDirLockedError. Released when the process exits. */
export function acquireDataDirLock(dir: string): void {
  if (held.has(dir)) return;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
      held.add(dir);
      process.once("exit", () => releaseDataDirLock(dir));
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = lockHolder(dir);
      if (holder === process.pid) {
        held.add(dir);
        return;
      }
      if (holder !== null) throw new DataDirLockedError(dir, holder);
      // A stale lock left by a process that died: remove it and try again.
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`Could not take the lock on ${dir}`);
}

export function releaseDataDirLock(dir: string): void {
  if (!held.delete(dir)) return;
  const file = path.join(dir, LOCK_FILE);
  try {
    if (fs.readFileSync(file, "utf8").trim() === String(process.pid)) fs.rmSync(file, { force: true });
  } catch {
    // already gone
  }
}
