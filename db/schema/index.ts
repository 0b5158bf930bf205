export * from "./organizations";
export * from "./api-keys";
export * from "./audit";
export * from "./idempotency";
export * from "./notifications";
export * from "./domains";
export * from "./workflows";
