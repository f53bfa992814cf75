import { permissionDenied } from '@sandbox/runtime';

/**
 * Who may create an account with a password (SIGNUP), and whether accounts
 * with a password may sign in at all (LOCAL_SIGN_IN). A class run on a
 * shared cluster closes local sign-up, or keeps it to the organisation's
 * email domains, and signs people in through its identity provider; accounts
 * that provider vouches for are not local sign-ups and are not governed here.
 */
export type SignUpPolicy =
  { mode: 'open'; localSignIn: boolean } | { mode: 'domain'; domains: readonly string[]; localSignIn: boolean } | { mode: 'closed'; localSignIn: boolean };

export const OPEN_SIGN_UP: SignUpPolicy = { mode: 'open', localSignIn: true };

/** Refuses a local sign-up the policy does not allow, saying what is allowed instead. `email` is already normalized. */
export function checkSignUp(policy: SignUpPolicy, email: string): void {
  if (policy.mode === 'open') return;
  if (policy.mode === 'closed') {
    throw permissionDenied(
      'signup_closed',
      'Sign-up with a password is closed on this sandbox: ask whoever runs it for access, or sign in through its identity provider if it offers one.',
    );
  }
  // Exact domains: "uni.edu" does not admit "student.uni.edu" unless listed, so the list reads as what it allows.
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (!policy.domains.includes(domain)) {
    throw permissionDenied('signup_domain_not_allowed', `Sign-up here is for email addresses at ${policy.domains.join(', ')}; ${domain} is not one of them.`);
  }
}

/** Refuses a password sign-in when the policy switched them off. */
export function checkLocalSignIn(policy: SignUpPolicy): void {
  if (!policy.localSignIn) {
    throw permissionDenied('local_sign_in_disabled', 'Sign-in with a password is switched off on this sandbox: sign in through its identity provider instead.');
  }
}
