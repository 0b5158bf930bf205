import fs from "node:fs";
import dns2 from "dns2";

/**
 * A real DNS server on loopback for the tests (UDP and TCP), answering from a zone file that test
 * files in any worker process append to (`publishDns`). Started once by the global setup on the
 * port DNS_SERVERS names.
 */
export interface ZoneRecord {
  name: string;
  type: "TXT" | "MX" | "A" | "AAAA";
  value: string;
  priority?: number;
  /** A changing answer (DNS rebinding): the n-th query gets `sequence[n]`, the last one after that. */
  sequence?: string[];
}

export function zoneFile(): string {
  const file = process.env.DNS_TEST_ZONE;
  if (!file) throw new Error("DNS_TEST_ZONE is not set");
  return file;
}

/** Publishes records (visible to every test process at once). */
export function publishDns(records: ZoneRecord[]): void {
  fs.appendFileSync(
    zoneFile(),
    records.map((r) => `${JSON.stringify({ ...r, name: r.name.toLowerCase() })}\n`).join(""),
  );
}

/** Withdraws every record of `name` and `type`. */
export function withdrawDns(name: string, type: ZoneRecord["type"]): void {
  publishDns([{ name, type, value: "__withdrawn__" }]);
}

function lookup(name: string, type: string): ZoneRecord[] {
  let lines: string[] = [];
  try {
    lines = fs.readFileSync(zoneFile(), "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
  let out: ZoneRecord[] = [];
  for (const line of lines) {
    const r = JSON.parse(line) as ZoneRecord;
    if (r.name !== name.toLowerCase() || r.type !== type) continue;
    out = r.value === "__withdrawn__" ? [] : [...out, r];
  }
  return out;
}

const chunks = (s: string) => s.match(/.{1,255}/g) ?? [""];

/** Queries answered so far per name and type (for `sequence` records). */
const asked = new Map<string, number>();

function answerValue(r: ZoneRecord): string {
  if (!r.sequence?.length) return r.value;
  const key = `${r.name}|${r.type}`;
  const n = asked.get(key) ?? 0;
  asked.set(key, n + 1);
  return r.sequence[Math.min(n, r.sequence.length - 1)] ?? r.value;
}

export async function startDnsServer(port: number): Promise<{ close(): Promise<void> }> {
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    tcp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      // dns2's typings want full Resource objects; its encoder only needs these fields.
      const push = (answer: object) => response.answers.push(answer as (typeof response.answers)[number]);
      for (const q of request.questions) {
        const type = Object.entries(Packet.TYPE).find(([, v]) => v === q.type)?.[0] ?? "";
        for (const r of lookup(q.name, type)) {
          const base = { name: q.name, type: q.type, class: Packet.CLASS.IN, ttl: 1 };
          if (r.type === "TXT") push({ ...base, data: chunks(r.value) });
          else if (r.type === "MX") push({ ...base, exchange: r.value, priority: r.priority ?? 10 });
          else push({ ...base, address: answerValue(r) });
        }
      }
      void send(response);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server
      .listen({ udp: { port, address: "127.0.0.1" }, tcp: { port, address: "127.0.0.1" } })
      .then(() => resolve(), reject);
  });
  return { close: () => server.close() };
}

/** Starts the server on a free port (UDP and TCP alike), trying random ports. */
export async function startDnsServerOnFreePort(): Promise<{ port: number; close(): Promise<void> }> {
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    try {
      return { port, ...(await startDnsServer(port)) };
    } catch (err) {
      if (attempt > 20) throw err;
    }
  }
}
