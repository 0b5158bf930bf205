/**
 * The verification matcher: finds the one-time code or the sign-in/confirmation link a message
 * carries, steered by the wait's instruction. `deterministicMatcher` is the default; an LLM
 * provider (lib/waits/llm.ts) may stand in front of it, and whatever it answers must pass
 * `messageContains` before it is used.
 */

export interface MatchInput {
  subject: string;
  text: string | null;
  html: string | null;
}

export interface MatchResult {
  kind: "code" | "link";
  value: string;
}

export interface VerificationMatcher {
  readonly name: string;
  match(message: MatchInput, instruction: string | null): Promise<MatchResult | null>;
}

/** What an instruction asks for: a link or a code (or either), and a code's length when it names one. */
export interface Wanted {
  kind: "code" | "link" | "any";
  length: number | null;
}

export function wantedBy(instruction: string | null): Wanted {
  const s = (instruction ?? "").toLowerCase();
  const link = /\b(link|url|magic|button|click)\b/.test(s);
  const code = /\b(code|otp|pin|passcode|digits?|number)\b/.test(s);
  const len = /\b(\d{1,2})[- ]?(digit|character|char|stellig|chiffres?)/.exec(s);
  const length = len?.[1] ? Number(len[1]) : null;
  return { kind: link && !code ? "link" : code && !link ? "code" : "any", length };
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", "#39": "'" };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z0-9]+);/gi, (m, e: string) => {
    const k = e.toLowerCase();
    if (k.startsWith("#x")) return String.fromCodePoint(Number.parseInt(k.slice(2), 16));
    if (k.startsWith("#") && k !== "#39") return String.fromCodePoint(Number(k.slice(1)));
    return ENTITIES[k] ?? m;
  });
}

/** The visible text of an HTML body: scripts, styles and comments removed, tags as spaces, entities decoded. */
export function htmlText(html: string): string {
  return decodeEntities(
    html
      .replace(/<!--[\s\S]*?-->/g, " ")
      .replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, " ")
      .replace(/<br\s*\/?>|<\/(p|div|tr|li|h\d|td)>/gi, "\n")
      .replace(/<[^>]+>/g, " "),
  )
    .replace(/[ \t\u00a0]+/g, " ")
    .trim();
}

/** Keywords that announce a code, in the languages verification mails come in. */
const CODE_WORDS =
  /(verification|verify|one[- ]time|\botp\b|\bpin\b|passcode|security code|login code|sign[- ]in code|\bcode\b|\bcodes\b|confirm|authenticat|2fa|two[- ]factor|c[oó]digo|bestätigung|sicherheitscode|einmal|vérification|codice|verifica|verificatie|\bkod\b|код|подтвержд|コード|認証|验证码|驗證碼|校验码|인증|번호)/giu;

/** Words that make a nearby number something else than a code. */
const DECOY_BEFORE =
  /(order|invoice|number|nummer|numéro|receipt|ref(erence)?|account|acct|ticket|case|tracking|booking|confirmation number|transaction|customer|member|id|no\.|nr\.?|número de pedido|bestellnummer|rechnung|commande|facture|call|phone|tel|fax|mobile|hotline|\+|#|\$|€|£|¥|total|amount|price|usd|eur)\s*[:#]?\s*$/i;
const DECOY_AFTER = /^\s*(usd|eur|gbp|\$|€|£|dollars?|euros?|items?|minutes?|min\b|hours?|seconds?|days?)/i;
const MONTHS =
  /(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|januar|februar|märz|mai|juni|juli|okt|dez|janvier|février|mars|avril|juin|juillet|août|enero|febrero|marzo|abril|mayo|junio|julio|agosto)[a-zé]*\.?\s*$/i;

interface Candidate {
  value: string;
  start: number;
  end: number;
  split: boolean;
}

function codeCandidates(text: string): Candidate[] {
  const out: Candidate[] = [];
  // Split codes: groups of 2..5 digits joined by one space or dash ("123 456", "482-913").
  for (const m of text.matchAll(/(?<![\w.,:/+-])\d{2,5}(?:[ -]\d{2,5}){1,3}(?![\w.,:/-]*\d)/gu)) {
    const groups = m[0].split(/[ -]/);
    const digits = groups.join("");
    const sizes = new Set(groups.map((g) => g.length));
    // Equal groups only (3-3, 4-4, 2-2-2): a phone number (3-3-4) or a date (4-2-2) is not a split code.
    if (digits.length >= 4 && digits.length <= 10 && sizes.size === 1)
      out.push({ value: digits, start: m.index, end: m.index + m[0].length, split: true });
  }
  // Plain digit codes.
  for (const m of text.matchAll(/(?<![\w.,:/]|\d[.,:/ -])\d{4,10}(?!\w|[.,:/ -]\d)/gu))
    out.push({ value: m[0], start: m.index, end: m.index + m[0].length, split: false });
  // Mixed codes of letters and digits (both present), e.g. "K7Q2ZP", "aB3dE9".
  for (const m of text.matchAll(/(?<![\w-])(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{4,10}(?![\w-])/gu)) {
    const v = m[0];
    // Words with a digit in them are rarely codes unless mostly upper case or digits ("2FA", "h264" are not).
    const upperOrDigit = v.replace(/[^A-Z0-9]/g, "").length;
    if (upperOrDigit >= v.length - 1 && v.replace(/\D/g, "").length >= 1 && v.length >= 5)
      out.push({ value: v, start: m.index, end: m.index + v.length, split: false });
    else if (upperOrDigit < v.length - 1 && /[A-Z]/.test(v) && /[a-z]/.test(v) && v.length >= 6)
      out.push({ value: v, start: m.index, end: m.index + v.length, split: false });
  }
  return out;
}

function isDecoy(text: string, c: Candidate): boolean {
  const before = text.slice(Math.max(0, c.start - 24), c.start);
  const after = text.slice(c.end, c.end + 12);
  if (DECOY_BEFORE.test(before)) return true;
  if (DECOY_AFTER.test(after)) return true;
  if (MONTHS.test(before)) return true;
  if (/^\s*(of\s+)?(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i.test(after) && /^\d{1,2}\b/.test(c.value))
    return true;
  // A year beside a date ("May 3, 2025", "© 2025").
  if (/^(19|20)\d\d$/.test(c.value) && /(,\s*|©\s*|\(c\)\s*|copyright\s*|\d{1,2}\s*)$/i.test(before)) return true;
  // Part of a time, a date, a decimal or a thousands-separated amount.
  if (/[:./]\d*$/.test(before) && /\d$/.test(before.trimEnd())) return true;
  if (/^[:./,]\d/.test(after)) return true;
  return false;
}

/** Distance in characters from the candidate to the nearest code keyword (Infinity when none within reach). */
function keywordDistance(text: string, c: Candidate, keywords: readonly { start: number; end: number }[]): number {
  let best = Number.POSITIVE_INFINITY;
  for (const k of keywords) {
    const d = k.end <= c.start ? c.start - k.end : k.start >= c.end ? k.start - c.end : 0;
    if (d < best) best = d;
  }
  return best;
}

const REACH = 120;

export function findCode(text: string, wanted: Wanted): string | null {
  const keywords = [...text.matchAll(CODE_WORDS)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  if (keywords.length === 0) return null;
  let best: { value: string; score: number } | null = null;
  for (const c of codeCandidates(text)) {
    if (isDecoy(text, c)) continue;
    const digits = /^\d+$/.test(c.value);
    if (wanted.length !== null && c.value.length !== wanted.length) continue;
    if (digits && (c.value.length < 4 || c.value.length > 10)) continue;
    const d = keywordDistance(text, c, keywords);
    if (d > REACH) continue;
    // Nearer is better; a plain run of digits beats a split one, digits beat mixed codes.
    const score = d + (c.split ? 5 : 0) + (digits ? 0 : 10);
    if (!best || score < best.score) best = { value: c.value, score };
  }
  return best?.value ?? null;
}

const LINK_WORDS =
  /(verif|confirm|magic|sign[-_ ]?in|signin|log[-_ ]?in|login|activate|activation|validate|auth|one[-_ ]?time|token|passwordless|anmelden|bestätig|connexion|iniciar|accedi|войти)/i;
const LINK_DECOYS = /(unsubscribe|privacy|terms|help|support|preferences|manage|abmelden|desinscri|opt[-_]?out)/i;

export function messageLinks(message: MatchInput): { url: string; text: string }[] {
  const links: { url: string; text: string }[] = [];
  if (message.html) {
    for (const m of message.html.matchAll(/<a\b[^>]*\bhref\s*=\s*("([^"]*)"|'([^']*)')[^>]*>([\s\S]*?)<\/a\s*>/gi)) {
      const url = decodeEntities(m[2] ?? m[3] ?? "").trim();
      if (/^https?:\/\//i.test(url)) links.push({ url, text: htmlText(m[4] ?? "") });
    }
  }
  for (const source of [message.text ?? "", message.html ? htmlText(message.html) : ""]) {
    for (const m of source.matchAll(/https?:\/\/[^\s<>"')\]]+/gi)) {
      const url = m[0].replace(/[.,;:!?]+$/, "");
      const around = source.slice(Math.max(0, m.index - 60), m.index);
      if (!links.some((l) => l.url === url)) links.push({ url, text: around });
    }
  }
  return links;
}

export function findLink(message: MatchInput): string | null {
  for (const l of messageLinks(message)) {
    let path = l.url;
    try {
      const u = new URL(l.url);
      path = `${u.pathname}${u.search}`;
    } catch {
      continue;
    }
    if (LINK_DECOYS.test(path) || LINK_DECOYS.test(l.text)) continue;
    if (LINK_WORDS.test(path) || LINK_WORDS.test(l.text)) return l.url;
  }
  return null;
}

/** The message's searchable text: subject, text part, and the HTML part's visible text. */
export function messageText(message: MatchInput): string {
  return [message.subject, message.text ?? "", message.html ? htmlText(message.html) : ""].join("\n");
}

/**
 * Whether the message carries this result: a link among its links, or a code among its words
 * (a split code's digits with single spaces or dashes between them) — never a substring of a longer
 * number or word. What an LLM answers is used only when this holds.
 */
export function messageContains(message: MatchInput, result: MatchResult): boolean {
  if (result.kind === "link") return messageLinks(message).some((l) => l.url === result.value);
  const v = result.value;
  if (!/^[A-Za-z0-9]{4,10}$/.test(v)) return false;
  const pattern = v
    .split("")
    .map((ch) => ch.replace(/[^A-Za-z0-9]/g, ""))
    .join("[ -]?");
  return new RegExp(`(?<![A-Za-z0-9])${pattern}(?![A-Za-z0-9])`, "u").test(messageText(message));
}

export function matchDeterministic(message: MatchInput, instruction: string | null): MatchResult | null {
  const wanted = wantedBy(instruction);
  if (wanted.kind !== "link") {
    const code = findCode(messageText(message), wanted);
    if (code) return { kind: "code", value: code };
    if (wanted.kind === "code") return null;
  }
  const link = findLink(message);
  return link ? { kind: "link", value: link } : null;
}

export const deterministicMatcher: VerificationMatcher = {
  name: "deterministic",
  match: (message, instruction) => Promise.resolve(matchDeterministic(message, instruction)),
};
