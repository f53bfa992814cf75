// What node's crypto costs a call when its secret key is a Buffer, against a
// KeyObject made once (createSecretKey) and, for HMAC, a string: the choice
// behind the services keeping their fixed keys as KeyObjects (identity's
// credential encryption and lookup keys and page tokens, data's page tokens,
// oauth's Digest nonces and OAuth 1.0a tokens). On node 24 a Buffer key is
// tried as a KeyObject first, which costs more than the HMAC itself.
//
//   node bench/secret-keys.mjs [--rounds 5] [--calls 50000]
//
// Rounds interleave the kinds (each round's order reversed from the last);
// medians of µs a call, and each kind against the KeyObject.
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { exitWithHelpIfAsked, median, numberArg } from './lib.mjs';

exitWithHelpIfAsked(import.meta.url);
const rounds = numberArg('rounds', 5);
const calls = numberArg('calls', 50_000);

const raw = randomBytes(32);
const keys = { buffer: raw, keyObject: createSecretKey(raw), string: raw.toString('base64url') };
// An API key sealed as identity seals it (credential-crypto.ts): AES-256-GCM, its app's id as associated data.
const iv = randomBytes(12);
const aad = Buffer.from('0123456789abcdef01234567');
const cipher = createCipheriv('aes-256-gcm', raw, iv).setAAD(aad);
const sealed = Buffer.concat([cipher.update(`ak_${'x'.repeat(43)}`, 'utf8'), cipher.final()]);
const tag = cipher.getAuthTag();

const operations = {
  hmac: (key) =>
    createHmac('sha256', key)
      .update(`ak_${'y'.repeat(43)}`, 'utf8')
      .digest('base64url'),
  decrypt: (key) => {
    const decipher = createDecipheriv('aes-256-gcm', key, iv).setAAD(aad).setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
  },
};
/** Which key kinds each operation takes (a cipher takes no string key of its own length). */
const kindsOf = { hmac: ['buffer', 'keyObject', 'string'], decrypt: ['buffer', 'keyObject'] };

const microsPerCall = (operation, key) => {
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) operation(key);
  return Number(process.hrtime.bigint() - started) / 1000 / calls;
};

const results = {};
for (let round = 0; round <= rounds; round++) {
  for (const [name, operation] of Object.entries(operations)) {
    const kinds = round % 2 ? [...kindsOf[name]].reverse() : kindsOf[name];
    for (const kind of kinds) {
      const micros = microsPerCall(operation, keys[kind]);
      // Round 0 warms the JIT and is not recorded.
      if (round > 0) ((results[name] ??= {})[kind] ??= []).push(micros);
    }
  }
}
const report = Object.fromEntries(
  Object.entries(results).map(([name, byKind]) => {
    const medians = Object.fromEntries(Object.entries(byKind).map(([kind, list]) => [kind, Number(median(list).toFixed(2))]));
    const vsKeyObject = Object.fromEntries(Object.entries(medians).map(([kind, micros]) => [kind, Number((micros / medians.keyObject).toFixed(1))]));
    return [name, { microsPerCall: medians, vsKeyObject }];
  }),
);
console.log(JSON.stringify({ node: process.version, rounds, calls, ...report }, null, 2));
