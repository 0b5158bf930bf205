/** Public ids of buckets (`buk_`) and share links (`shr_`): the prefix and the row's UUID without dashes. */
const toPublic = (prefix: string, uuid: string) => `${prefix}${uuid.replace(/-/g, "")}`;

function fromPublic(prefix: string, id: string): string | null {
  const m = new RegExp(`^${prefix}([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$`).exec(id);
  return m ? m.slice(1).join("-") : null;
}

export const bucketPublicId = (uuid: string) => toPublic("buk_", uuid);
export const bucketUuid = (id: string) => fromPublic("buk_", id);
export const shareLinkPublicId = (uuid: string) => toPublic("shr_", uuid);
export const shareLinkUuid = (id: string) => fromPublic("shr_", id);
