/** Display helpers shared by the messaging pages (pure, server- and client-safe). */

/** `Name <address>`, or the bare address when there is no name. */
export function formatSender(from: { address: string; name: string | null }): string {
  return from.name ? `${from.name} <${from.address}>` : from.address;
}

/** A comma-separated address list, or an em dash when empty. */
export function formatAddresses(addresses: readonly string[]): string {
  return addresses.length > 0 ? addresses.join(", ") : "—";
}

/** A subject to show, even when the message has none. */
export function subjectOf(subject: string): string {
  return subject.trim() === "" ? "(no subject)" : subject;
}

/** A byte count for people (B, KB, MB). */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return "size unknown";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
