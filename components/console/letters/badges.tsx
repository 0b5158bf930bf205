import type { LetterStatus } from "@/lib/letters/contracts";
import { Badge } from "../ui";
import { LETTER_STATUS_TONES, LETTER_STATUS_WORDS } from "./words";

/** A letter's status as a coloured badge (the words, never the colour alone). */
export function LetterStatusBadge({ status }: { status: LetterStatus }) {
  return (
    <span data-testid="letter-status">
      <Badge tone={LETTER_STATUS_TONES[status]}>{LETTER_STATUS_WORDS[status]}</Badge>
    </span>
  );
}

/** Test letters are never printed nor charged; live letters are. */
export function LetterModeBadge({ testMode }: { testMode: boolean }) {
  return testMode ? <Badge tone="yellow">Test</Badge> : <Badge tone="green">Live</Badge>;
}
