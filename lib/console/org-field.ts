/**
 * The field the console's client adds to every server action's input: the organization the page
 * was rendered for. `runAction` refuses the action when the user has switched organization
 * since (in another tab), so a change never lands in an organization the page did not show.
 */
export const ORG_FIELD = "__org";
