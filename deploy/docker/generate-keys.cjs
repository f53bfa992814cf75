// Makes the keys of a docker compose project once and keeps them: the `keys`
// service runs this before anything else, against a named volume.
//   node deploy/docker/generate-keys.cjs <dir>
// Writes one env file per service that needs keys, with only that service's
// keys, and only if that file is absent: a key that changes strands what it
// protects (stored API keys, portal sessions, page tokens, issued JWTs), so an
// existing file, generated earlier or brought by a team, is never replaced.
// Each file is written to a temporary name and renamed, so a crash leaves
// either no file or a whole one. Prints what it did, never a value.
// No dependencies: it runs in the runtime image before any service starts.
'use strict';

const { generateKeyPairSync, randomBytes } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

/** 32 random bytes as base64url: what identity and data accept as a key (runtime's optionalKey). */
const secretKey = () => randomBytes(32).toString('base64url');

/**
 * An RSA private key for oauth's JWT_SIGNING_KEY. 2048 bits, the size RS256
 * asks for and oauth's minimum: a 4096-bit key costs about 16 times the CPU per
 * signed token, and oauth signs one per access token issued.
 */
const rsaPrivateKeyPem = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** Which file holds which keys; the service loads its own file and nothing else. */
const KEY_FILES = {
  'identity.env': { CREDENTIAL_ENCRYPTION_KEY: secretKey, SESSION_SIGNING_KEY: secretKey },
  'oauth.env': { JWT_SIGNING_KEY: rsaPrivateKeyPem },
  'data.env': { PAGE_TOKEN_KEY: secretKey },
};

/**
 * One `NAME='value'` line. Single quotes keep the value literal for both
 * readers of the file, `node --env-file` and a POSIX shell's `.`; a PEM is
 * written on one line with its newlines as the two characters \n, which oauth's
 * config turns back into newlines. Values are base64/base64url or PEM, so a
 * quote or a line break in one means a bug here, not a value to escape.
 */
function envLine(name, value) {
  const oneLine = value.replace(/\n/g, '\\n');
  if (/['\r\n]/.test(oneLine)) throw new Error(`${name}: refusing to write a value with a quote or a line break`);
  return `${name}='${oneLine}'\n`;
}

/** The variable names an env file assigns (NAME=…, optionally after `export `). */
function namesIn(text) {
  return new Set([...text.matchAll(/^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((m) => m[1]));
}

function writeAtomically(dir, file, text) {
  const target = path.join(dir, file);
  const temporary = path.join(dir, `.${file}.tmp`);
  fs.rmSync(temporary, { force: true }); // left by an interrupted run; read-only, so open would refuse it
  const fd = fs.openSync(temporary, 'wx', 0o400);
  try {
    fs.fchmodSync(fd, 0o400); // whatever the umask
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temporary, target);
  try {
    const dirFd = fs.openSync(dir, 'r'); // make the rename itself durable
    try {
      fs.fsyncSync(dirFd);
    } finally {
      fs.closeSync(dirFd);
    }
  } catch {
    // Not every file system lets a directory be opened and synced; the file itself is.
  }
}

/** Ensures every key file exists in dir; returns one line per file saying what happened. */
function ensureKeys(dir, now = new Date()) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files = Object.entries(KEY_FILES).map(([file, keys]) => ({ file, keys, target: path.join(dir, file) }));
  // Files already there are kept as they are; but one without a key its service
  // needs would let that service start with a key of its own (data) or stop it
  // with a less obvious message (identity). Checked before anything is written,
  // so a refusal leaves the directory as it was.
  for (const { keys, target } of files.filter((f) => fs.existsSync(f.target))) {
    const missing = Object.keys(keys).filter((name) => !namesIn(fs.readFileSync(target, 'utf8')).has(name));
    if (missing.length > 0) throw new Error(`${target} exists but does not set ${missing.join(', ')}`);
  }
  const header =
    `# Generated ${now.toISOString()} by deploy/docker/generate-keys.cjs. Keep this file:\n` +
    '# a new key strands what the old one protected. Read by `node --env-file`.\n';
  return files.map(({ file, keys, target }) => {
    if (fs.existsSync(target)) return `keys: ${file} kept`;
    writeAtomically(dir, file, header + Object.entries(keys).map(([name, make]) => envLine(name, make())).join(''));
    return `keys: ${file} written (${Object.keys(keys).join(', ')})`;
  });
}

module.exports = { KEY_FILES, ensureKeys };

if (require.main === module) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node deploy/docker/generate-keys.cjs <dir>');
    process.exit(2);
  }
  try {
    for (const line of ensureKeys(path.resolve(dir))) console.log(line);
  } catch (error) {
    console.error(`keys: ${error.message}`);
    process.exit(1);
  }
}
