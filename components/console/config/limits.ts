/** How many delivery attempts the webhook page's live log shows (newest first). */
export const DELIVERY_LOG_SIZE = 50;

/** How often the webhook page re-reads its state and delivery log, in milliseconds. */
export const WEBHOOK_POLL_MS = 2_000;
