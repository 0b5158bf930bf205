// The contact service is split one file per verb (create.ts, read.ts, update.ts, delete.ts,
// handle-changes.ts; shared pieces in contact.ts). This path stays only for the send path's
// imports (lib/messages/stages/resolve.ts, lib/messages/store.ts), which other branches are
// changing now; new code imports from ./addressing.
export { contactAddress, contactByHandle, isContactRef } from "./addressing";
