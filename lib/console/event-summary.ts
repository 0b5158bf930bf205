/**
 * The human side of an event for the console's tail: what it is about in words (a message's subject
 * and counterpart, a domain's name, a file's name, a budget's scope), read from the event's own data
 * (never another query), and ids cut so that rows can be told apart.
 */

const str = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);
const obj = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/**
 * An id as shown in a list: its distinctive end. A UUIDv7 starts with its timestamp, so ids made
 * in the same second share their first characters; the last ones are random. The whole id goes in
 * the title and the copy button.
 */
export function shortId(id: string, length = 8): string {
  const bare = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) ? id.replace(/-/g, "") : id;
  if (bare.length <= length + 2) return id;
  return `…${bare.slice(-length)}`;
}

/** A list of addresses in words: the first, and how many more. */
function addresses(v: unknown): string | null {
  const list = (Array.isArray(v) ? v : [v])
    .map((a) => str(a) ?? str(obj(a)?.address))
    .filter((a): a is string => a !== null);
  if (list.length === 0) return null;
  const [first] = list;
  return first === undefined ? null : list.length === 1 ? first : `${first} and ${list.length - 1} more`;
}

const LIMIT_WORDS: Record<string, string> = {
  maxSendsPerDay: "recipients per day",
  maxNewRecipientsPerHour: "recipients per hour",
  hardStopOnComplaint: "stop on a complaint",
  maxSpendPerDayCents: "paid spend per day",
};

export interface EventSummary {
  /** The resource's name or subject (null when the data has none). */
  title: string | null;
  /** Who or what else it concerns: "to bob@…", "from alice@…", a recipient, a scope. */
  detail: string | null;
}

/** `template` with the value filled in, or null when the value is no text. */
const say = (value: unknown, template: (v: string) => string): string | null => {
  const v = str(value);
  return v === null ? null : template(v);
};

/** What an event concerns, in words, from its data. */
export function eventSummary(type: string, data: Record<string, unknown>): EventSummary {
  if (type.startsWith("message.")) {
    const subject = str(data.subject);
    const from = addresses(data.from);
    const to = addresses(data.to);
    const recipient = str(data.recipient);
    const detail =
      type === "message.received" || data.direction === "inbound"
        ? from && `from ${from}`
        : recipient
          ? `to ${recipient}`
          : to && `to ${to}`;
    return { title: subject ? `“${subject}”` : data.subject === undefined ? null : "(no subject)", detail };
  }
  if (type.startsWith("domain.")) return { title: str(data.name) ?? str(data.domain), detail: null };
  if (type === "object.scanned")
    return { title: str(data.filename), detail: say(data.scanStatus, (v) => `scan: ${v}`) };
  if (type === "share_link.opened") {
    const uses = typeof data.usesCount === "number" ? data.usesCount : null;
    const max = typeof data.maxUses === "number" ? data.maxUses : null;
    return {
      title: str(data.filename),
      detail:
        uses === null
          ? null
          : `opened ${uses}${max === null ? "" : ` of ${max}`} time${(max ?? uses) === 1 ? "" : "s"}`,
    };
  }
  if (type === "budget.tripped") {
    const budget = obj(data.budget);
    const scope = str(budget?.scope);
    return {
      title:
        scope === "account"
          ? "the account's budget"
          : scope
            ? `a ${scope === "key" ? "API key" : scope}'s budget`
            : null,
      detail: say(data.limit, (v) => `${LIMIT_WORDS[v] ?? v} reached`),
    };
  }
  if (type.startsWith("webhook.")) return { title: str(data.label) ?? str(data.url), detail: null };
  if (type === "call.status_changed")
    return {
      title: say(data.to, (v) => `call to ${v}`),
      detail: say(data.status, (v) => {
        const reason = str(data.reason);
        return reason ? `${v}: ${reason}` : v;
      }),
    };
  if (type === "letter.status_changed") {
    const to = obj(data.to);
    return {
      title: say(to?.name, (v) => `letter to ${v}`),
      detail: say(data.status, (v) => {
        const reason = str(data.reason);
        return reason ? `${v}: ${reason}` : v;
      }),
    };
  }
  if (type === "compliance.erasure.completed") return { title: say(data.kind, (v) => `${v} job`), detail: null };
  return { title: str(data.name) ?? str(data.label), detail: null };
}
