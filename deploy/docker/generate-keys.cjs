// Makes the keys and certificates of a docker compose project once and keeps
// them: the `keys` service runs this before anything else, against a named
// volume.
//   node deploy/docker/generate-keys.cjs <dir>
// Writes one env file per service that needs keys, with only that service's
// keys, and only if that file is absent: a key that changes strands what it
// protects (stored API keys, portal sessions, page tokens, issued JWTs), so an
// existing file, generated earlier or brought by a team, is never replaced.
// Each file is written to a temporary name and renamed, so a crash leaves
// either no file or a whole one.
// Then tls/<name>/{ca.crt,tls.crt,tls.key} for every process that talks gRPC
// (and the operators' CLI): one CA, one certificate each (identity
// spiffe://training-sandbox/<name>), made by the launcher's certificates
// module (packages/launcher, in the image) only if tls/ is absent, all in a
// temporary directory renamed to tls/ at the end, so it is all there or not
// at all. A tls/ with a file missing is refused, not patched: its CA's key is
// not kept, so no single certificate can be made again.
// Everything is readable by its owner (UID 10001 in the image) only. Prints
// what it did, never a value.
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
const rsaPrivateKeyPem = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** The processes with a certificate, each in tls/<name>/ (GRPC_TLS_DIR); `cli` is for the operators' CLI run beside the gateway. */
const TLS_NAMES = ['identity', 'oauth', 'data', 'playground', 'gateway', 'cli'];
const TLS_FILES = ['ca.crt', 'tls.crt', 'tls.key'];
/** Kept as long as the volume, like the keys: ten years, so a compose project never meets an expired certificate. */
const TLS_VALID_DAYS = 3650;

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

function fsyncDirectory(dir) {
  try {
    const dirFd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(dirFd);
    } finally {
      fs.closeSync(dirFd);
    }
  } catch {
    // Not every file system lets a directory be opened and synced; the files themselves are.
  }
}

function writePrivateFile(file, text) {
  const fd = fs.openSync(file, 'wx', 0o400);
  try {
    fs.fchmodSync(fd, 0o400); // whatever the umask
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function writeAtomically(dir, file, text) {
  const target = path.join(dir, file);
  const temporary = path.join(dir, `.${file}.tmp`);
  fs.rmSync(temporary, { force: true }); // left by an interrupted run; read-only, so open would refuse it
  writePrivateFile(temporary, text);
  fs.renameSync(temporary, target);
  fsyncDirectory(dir); // make the rename itself durable
}

/** What is missing from an existing tls/ (relative paths); [] when it is whole. */
function missingTls(tlsDir) {
  return TLS_NAMES.flatMap((name) => TLS_FILES.map((file) => `tls/${name}/${file}`)).filter((file) => !fs.existsSync(path.join(tlsDir, '..', file)));
}

/** The launcher's certificates module: in the image, and in a checkout after `npm run build`. */
function certificatesModule() {
  const file = path.join(__dirname, '..', '..', 'packages', 'launcher', 'dist', 'certificates.js');
  try {
    return require(file);
  } catch (error) {
    throw new Error(
      `cannot load ${path.relative(path.join(__dirname, '..', '..'), file)} to make certificates (${error.code ?? error.message}); in a checkout, run npm run build first`,
    );
  }
}

/** Makes tls/ whole: a CA and each process's certificate, written to a temporary directory renamed into place. */
async function writeTls(dir) {
  const { createCertificateAuthority } = certificatesModule();
  const temporary = path.join(dir, '.tls.tmp');
  fs.rmSync(temporary, { recursive: true, force: true }); // left by an interrupted run
  fs.mkdirSync(temporary, { mode: 0o700 });
  fs.chmodSync(temporary, 0o700);
  const ca = await createCertificateAuthority(TLS_VALID_DAYS);
  for (const name of TLS_NAMES) {
    const own = await ca.issue(name, { validDays: TLS_VALID_DAYS });
    const at = path.join(temporary, name);
    fs.mkdirSync(at, { mode: 0o700 });
    fs.chmodSync(at, 0o700);
    writePrivateFile(path.join(at, 'ca.crt'), ca.cert);
    writePrivateFile(path.join(at, 'tls.crt'), own.cert);
    writePrivateFile(path.join(at, 'tls.key'), own.key);
    fsyncDirectory(at);
  }
  fsyncDirectory(temporary);
  fs.renameSync(temporary, path.join(dir, 'tls'));
  fsyncDirectory(dir);
}

/** Ensures every key file and certificate exists in dir; resolves to one line per file (and one for tls/) saying what happened. */
async function ensureKeys(dir, now = new Date()) {
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
  const tlsDir = path.join(dir, 'tls');
  const tlsKept = fs.existsSync(tlsDir);
  if (tlsKept) {
    const missing = missingTls(tlsDir);
    if (missing.length > 0) {
      throw new Error(
        `${tlsDir} exists but lacks ${missing.join(', ')}; its CA's key is not kept, so nothing can be added to it: ` +
          `put the files back, or remove ${tlsDir} to have every certificate made again`,
      );
    }
  }
  const header =
    `# Generated ${now.toISOString()} by deploy/docker/generate-keys.cjs. Keep this file:\n` +
    '# a new key strands what the old one protected. Read by `node --env-file`.\n';
  const done = files.map(({ file, keys, target }) => {
    if (fs.existsSync(target)) return `keys: ${file} kept`;
    writeAtomically(
      dir,
      file,
      header +
        Object.entries(keys)
          .map(([name, make]) => envLine(name, make()))
          .join(''),
    );
    return `keys: ${file} written (${Object.keys(keys).join(', ')})`;
  });
  if (tlsKept) return [...done, 'keys: tls kept'];
  await writeTls(dir);
  return [...done, `keys: tls written (a CA and certificates for ${TLS_NAMES.join(', ')})`];
}

module.exports = { KEY_FILES, TLS_NAMES, ensureKeys };

if (require.main === module) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node deploy/docker/generate-keys.cjs <dir>');
    process.exit(2);
  }
  ensureKeys(path.resolve(dir)).then(
    (lines) => {
      for (const line of lines) console.log(line);
    },
    (error) => {
      console.error(`keys: ${error.message}`);
      process.exit(1);
    },
  );
}
