import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { snapshotProcessEnv } from "@/lib/runtime/process-env";

describe("snapshotProcessEnv (server start)", () => {
  it("makes process.env a plain copy that child processes still inherit", () => {
    const before = { ...process.env };
    snapshotProcessEnv();
    const snapshot = process.env;
    // A plain object: what the workflow SDK enumerates per call is no longer the OS environment.
    expect(Object.getOwnPropertyDescriptor(process, "env")?.value).toBe(snapshot);
    expect({ ...process.env }).toEqual(before);
    snapshotProcessEnv();
    expect(process.env).toBe(snapshot);
    // Set after the snapshot: seen by JavaScript and by a child process given no env of its own.
    process.env.SVC_SNAPSHOT_PROBE = "after";
    const child = execFileSync(process.execPath, ["-e", "process.stdout.write(process.env.SVC_SNAPSHOT_PROBE ?? '-')"]);
    expect(child.toString()).toBe("after");
    delete process.env.SVC_SNAPSHOT_PROBE;
    expect("SVC_SNAPSHOT_PROBE" in process.env).toBe(false);
  });

  it("enumerates as an ordinary object (no copy of the OS environment per enumeration)", () => {
    snapshotProcessEnv();
    // The OS-backed object coerces assigned values to strings; a plain object keeps them as given.
    (process.env as Record<string, unknown>).SVC_SNAPSHOT_NUMBER = 1;
    expect(typeof (process.env as Record<string, unknown>).SVC_SNAPSHOT_NUMBER).toBe("number");
    delete process.env.SVC_SNAPSHOT_NUMBER;
  });
});
