import type { PhoneCall, PhoneNumber } from "@/lib/phone/contracts";
import { Badge, type Tone } from "../ui";

/** Words for the phone contracts' codes: number types, capabilities, number and call statuses. */
export const NUMBER_TYPE_WORDS: Record<PhoneNumber["numberType"], string> = {
  local: "Local",
  toll_free: "Toll-free",
  national: "National",
  mobile: "Mobile",
};

const CAPABILITY_WORDS: Record<string, string> = { sms: "SMS", mms: "MMS", voice: "Voice", fax: "Fax" };

export function capabilityWords(capabilities: string[]): string {
  return capabilities.length === 0 ? "None" : capabilities.map((c) => CAPABILITY_WORDS[c] ?? c).join(", ");
}

/** A dollar amount from the API's `…CostUsd` (null: the carrier did not say). */
export function usd(value: number | null): string {
  if (value === null) return "—";
  return new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(value);
}

const NUMBER_STATUS: Record<PhoneNumber["status"], { label: string; tone: Tone; help: string }> = {
  pending: { label: "Pending documents", tone: "yellow", help: "The carrier needs documents before it is active." },
  active: { label: "Active", tone: "green", help: "Sends and receives." },
  releasing: { label: "Releasing", tone: "yellow", help: "Being given back to the carrier." },
  released: { label: "Released", tone: "gray", help: "Given back to the carrier; it no longer sends or receives." },
  failed: { label: "Failed", tone: "red", help: "The carrier could not provision it." },
};

export function NumberStatusBadge({ status }: { status: PhoneNumber["status"] }) {
  const s = NUMBER_STATUS[status];
  return (
    <span title={s.help}>
      <Badge tone={s.tone}>{s.label}</Badge>
    </span>
  );
}

const CALL_STATUS: Record<PhoneCall["status"], { label: string; tone: Tone }> = {
  queued: { label: "Queued", tone: "yellow" },
  ringing: { label: "Ringing", tone: "blue" },
  in_progress: { label: "In progress", tone: "blue" },
  completed: { label: "Completed", tone: "green" },
  failed: { label: "Failed", tone: "red" },
  no_answer: { label: "No answer", tone: "gray" },
  busy: { label: "Busy", tone: "gray" },
};

export function callStatusWord(status: PhoneCall["status"]): string {
  return CALL_STATUS[status].label;
}

export function CallStatusBadge({ status }: { status: PhoneCall["status"] }) {
  return (
    <span data-testid="call-status">
      <Badge tone={CALL_STATUS[status].tone}>{CALL_STATUS[status].label}</Badge>
    </span>
  );
}

/** A call is final once it completed or ended without a conversation. */
export function isFinalCall(status: PhoneCall["status"]): boolean {
  return status === "completed" || status === "failed" || status === "no_answer" || status === "busy";
}

/** "1 min 5 s", "42 s"; null (not ended) as a dash. */
export function durationWords(seconds: number | null): string {
  if (seconds === null) return "—";
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return s % 60 === 0 ? `${m} min` : `${m} min ${s % 60} s`;
}
