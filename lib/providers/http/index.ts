export { type AddressPolicy, addressProblem } from "./address-policy";
export {
  checkedAddress,
  guardedAgent,
  guardedConnect,
  type OutboundInit,
  outboundFetch,
  OutboundRefused,
} from "./client";
export { resolveHost } from "./resolve";
