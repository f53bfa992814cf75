/** A scenario's rules as it checks them: each with whether it held and, when useful, what was seen. */
export function checklist() {
  const checks = [];
  const check = (rule, ok, detail) => checks.push({ rule, ok: Boolean(ok), ...(detail === undefined ? {} : { detail }) });
  return { check, checks };
}
