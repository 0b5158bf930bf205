/**
 * Public ids with a type prefix (`agt_`, `buk_`, `shr_`): the prefix and the row's UUID without
 * dashes, so a public id and the UUID name the same row and either is accepted where the spec says so.
 */
export const toPublicId = (prefix: string, uuid: string) => `${prefix}${uuid.replace(/-/g, "")}`;

/** The UUID inside a public id with this prefix, or null when `id` is not one. */
export function fromPublicId(prefix: string, id: string): string | null {
  const m = new RegExp(`^${prefix}([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$`).exec(id);
  return m ? m.slice(1).join("-") : null;
}
