import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as svc from "./service";

export const listBudgets = defineOperation(c.listBudgets, ({ db, principal }) => svc.listBudgets(db, principal));
export const setBudget = defineOperation(c.setBudget, ({ db, principal, body }) => svc.setBudget(db, principal, body));
export const getBudget = defineOperation(c.getBudget, ({ db, principal, params }) =>
  svc.getBudget(db, principal, params.budgetId),
);
export const deleteBudget = defineOperation(c.deleteBudget, ({ db, principal, params }) =>
  svc.deleteBudget(db, principal, params.budgetId),
);
