import { desc, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { organizations, subprocessorLists, type Subprocessor } from "@/db/schema";
import { env, inngestHosted } from "@/lib/env";
import { appendEvent } from "@/lib/events/ledger";
import { storageBackend } from "@/lib/providers/storage";
import { jcs, sha256Hex } from "@/lib/trust/jcs";

/**
 * The residency posture (`GET /v1/compliance/residency`), from configuration only. The
 * subprocessor list is what the configuration implies — Amazon SES (`MAIL_TRANSPORT=ses`), an S3
 * service (`STORAGE_BACKEND=s3`), the SMTP relay's host (`MAIL_TRANSPORT=smtp`), Inngest Cloud
 * (Inngest keys without the dev server) — plus the operator's `SUBPROCESSORS`; the embedded
 * defaults have none. Each distinct list gets the next `subprocessorListVersion` (stored in
 * `subprocessor_lists`; versions only increase), and a change appends `subprocessor.changed` to
 * every organization's ledger (partition `residency`) in the same transaction.
 */

const hostOf = (url: string | undefined): string | null => {
  if (!url) return null;
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
};

/** The subprocessors this deployment's configuration implies, and those it declares, by name. */
export function configuredSubprocessors(): Subprocessor[] {
  const list: Subprocessor[] = [];
  if (env.MAIL_TRANSPORT === "ses") {
    list.push({
      name: "Amazon Web Services (SES)",
      purpose: "Outbound email delivery and delivery outcomes",
      location: env.SES_REGION,
      jurisdiction: "US",
      url: "https://aws.amazon.com/compliance/sub-processors/",
      source: "configuration",
    });
  }
  if (env.MAIL_TRANSPORT === "smtp") {
    list.push({
      name: `SMTP relay ${hostOf(env.SMTP_RELAY_URL) ?? ""}`.trim(),
      purpose: "Outbound email relay",
      location: "unknown",
      jurisdiction: null,
      url: null,
      source: "configuration",
    });
  }
  if (storageBackend() === "s3") {
    const host = hostOf(env.S3_ENDPOINT);
    list.push(
      host
        ? {
            name: `S3-compatible storage ${host}`,
            purpose: "Attachment and file storage",
            location: env.S3_REGION,
            jurisdiction: null,
            url: null,
            source: "configuration",
          }
        : {
            name: "Amazon Web Services (S3)",
            purpose: "Attachment and file storage",
            location: env.S3_REGION,
            jurisdiction: "US",
            url: "https://aws.amazon.com/compliance/sub-processors/",
            source: "configuration",
          },
    );
  }
  if (inngestHosted() && env.INNGEST_EVENT_KEY && env.INNGEST_SIGNING_KEY && !env.INNGEST_DEV) {
    list.push({
      name: "Inngest",
      purpose: "Workflow orchestration (event payloads)",
      location: "us",
      jurisdiction: "US",
      url: "https://www.inngest.com/",
      source: "configuration",
    });
  }
  for (const d of env.SUBPROCESSORS)
    list.push({
      name: d.name,
      purpose: d.purpose,
      location: d.location,
      jurisdiction: d.jurisdiction?.toUpperCase() ?? null,
      url: d.url ?? null,
      source: "declared",
    });
  return list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export interface PublishedList {
  version: number;
  subprocessors: Subprocessor[];
  updatedAt: Date;
  changed: boolean;
}

/**
 * Makes `list` the published one: a no-op when it equals the latest version; otherwise the next
 * version and `subprocessor.changed` for every organization, in one transaction serialized by an
 * advisory lock (concurrent processes agree on one version per change). The first list ever
 * published is version 1 and emits nothing (there was no list to change).
 */
export async function publishSubprocessors(
  db: Db,
  list: Subprocessor[] = configuredSubprocessors(),
): Promise<PublishedList> {
  const hash = sha256Hex(jcs(list));
  const [latest] = await db.select().from(subprocessorLists).orderBy(desc(subprocessorLists.version)).limit(1);
  if (latest && latest.hash === hash)
    return {
      version: latest.version,
      subprocessors: latest.subprocessors,
      updatedAt: latest.createdAt,
      changed: false,
    };
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('svc:subprocessor_lists'))`);
    const [current] = await tx.select().from(subprocessorLists).orderBy(desc(subprocessorLists.version)).limit(1);
    if (current && current.hash === hash)
      return {
        version: current.version,
        subprocessors: current.subprocessors,
        updatedAt: current.createdAt,
        changed: false,
      };
    const version = (current?.version ?? 0) + 1;
    const [row] = await tx.insert(subprocessorLists).values({ version, hash, subprocessors: list }).returning();
    if (!row) throw new Error("subprocessor list insert returned nothing");
    if (current) {
      const before = new Set(current.subprocessors.map((s) => s.name));
      const after = new Set(list.map((s) => s.name));
      const data = {
        subprocessorListVersion: version,
        previousVersion: current.version,
        subprocessors: list,
        added: list.filter((s) => !before.has(s.name)).map((s) => s.name),
        removed: current.subprocessors.filter((s) => !after.has(s.name)).map((s) => s.name),
      };
      for (const org of await tx.select({ id: organizations.id }).from(organizations)) {
        await appendEvent(tx, { orgId: org.id, type: "subprocessor.changed", partitionKey: "residency", data });
      }
    }
    return { version: row.version, subprocessors: row.subprocessors, updatedAt: row.createdAt, changed: true };
  });
}

/** `GET /v1/compliance/residency`. */
export async function residency(db: Db) {
  const published = await publishSubprocessors(db);
  const subprocessors = published.subprocessors;
  return {
    type: "svc.residency.v1" as const,
    primaryRegion: env.DATA_REGION,
    dataResidency: env.DATA_RESIDENCY ?? env.DATA_REGION,
    noUsEgress: subprocessors.every(
      (s) => s.jurisdiction !== "US" && !/^us\b|^us-/i.test(s.location) && s.location !== "unknown",
    ),
    subprocessors,
    subprocessorListVersion: published.version,
    subprocessorListUpdatedAt: published.updatedAt.toISOString(),
    controllerParent: env.CONTROLLER_PARENT ?? null,
    cloudActExposed: subprocessors.some((s) => s.jurisdiction === "US"),
    enforcement: {
      database: env.DATABASE_URL ? ("postgresql" as const) : ("embedded" as const),
      storage: storageBackend(),
      mailTransport: env.MAIL_TRANSPORT,
      workflows: inngestHosted() ? ("inngest" as const) : ("embedded" as const),
      outboundHttp: "guarded" as const,
    },
    checkedAt: new Date().toISOString(),
  };
}
