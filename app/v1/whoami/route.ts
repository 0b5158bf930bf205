import { handle, route } from "@/lib/api/kernel";
import { whoami } from "@/lib/account/whoami";
import { getWhoami } from "@/lib/contracts/account";

export const { GET, POST, PUT, PATCH, DELETE } = route(handle(getWhoami, ({ db, principal }) => whoami(db, principal)));
