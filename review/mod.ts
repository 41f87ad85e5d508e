/**
 * The review conductor: the verdict `approved add`, `approved verify` and `site build` act on, the conjunction of
 * report's strict validator, the site's independent check and the protocol's status rules (review.ts).
 */
export { reviewFolder } from "./review.ts";
