import { describe, expect, test } from 'vitest';
import { REDACTED, redactSecrets, redactSecretsCounted } from './redact-secrets.js';

const R = REDACTED;

describe('a secret after a flag and a blank', () => {
  test.each([
    ['docker login', 'docker login -u me --password hunter2secret registry.io', `docker login -u me --password ${R} registry.io`],
    ['kubectl', 'kubectl --token k8sTok3nValue0001 get pods -n kube-system', `kubectl --token ${R} get pods -n kube-system`],
    ['heroku', 'heroku apps --api-key H3rokuKey0001', `heroku apps --api-key ${R}`],
    ['a client secret, quoted', 'login --client-secret "s3cr3t-value"', `login --client-secret "${R}"`],
    ['camelCase and capitals', 'tool --apiKey abcd1234 --ACCESS-TOKEN efgh5678', `tool --apiKey ${R} --ACCESS-TOKEN ${R}`],
    ['a flag in quotes', '"--password" "hunter2secret" reg.io', `"--password" "${R}" reg.io`],
    ['tabs and a line continuation', 'docker login reg.io \\\n\t--password\thunter2secret', `docker login reg.io \\\n\t--password\t${R}`],
    ["keytool's one-word names", 'keytool -srcstorepass changeit1 -destkeystore ks.jks', `keytool -srcstorepass ${R} -destkeystore ks.jks`],
    ["mysql's attached -p", 'mysql -uroot -pS3cretPass db', `mysql -uroot -p${R} db`],
    ["mysql's -p after sudo, quoted", "sudo mysql -p'S3cret Pass' db", `sudo mysql -p'${R} Pass' db`],
    ["sshpass's -p", 'sshpass -p hunter2secret ssh deploy@bastion.example', `sshpass -p ${R} ssh deploy@bastion.example`],
    ["redis-cli's -a", 'redis-cli -h cache.example -a hunter2secret ping', `redis-cli -h cache.example -a ${R} ping`],
    ["curl's -u user:password", 'curl -u deploy:hunter2secret https://api.example/x', `curl -u deploy:${R} https://api.example/x`],
    ["curl's --user, attached -u", 'curl --user a:pass1234 -ub:word5678 https://x.example', `curl --user a:${R} -ub:${R} https://x.example`],
    ["Samba's -U user%password", 'smbclient //fs.example/share -U ops%hunter2secret -c ls', `smbclient //fs.example/share -U ops%${R} -c ls`],
    ["Samba's --user, attached -U after switches", 'rpcclient --user ops%pass1234 fs.example; smbclient -NkUops%word5678 //fs.example/s', `rpcclient --user ops%${R} fs.example; smbclient -NkUops%${R} //fs.example/s`],
    ["OpenSSL's pass:", 'openssl enc -pass pass:hunter2secret -in a', `openssl enc -pass pass:${R} -in a`],
    ["npm's :_authToken", 'npm config set //registry.npmjs.org/:_authToken npm_T0kenValue0001', `npm config set //registry.npmjs.org/:_authToken ${R}`],
    ['a program named by an assignment is none', 'env psql=1 docker login --password hunter2secret reg.io', `env psql=1 docker login --password ${R} reg.io`],
    ['a value holding code', 'docker login --password abcd`touch PWNED` reg.io', `docker login --password ${R}\`touch PWNED\` reg.io`],
    ['a value cut before a path', 'tool --token abcd/../../etc/passwd', 'tool --token abcd/../../etc/passwd'],
  ])('%s', (_label, text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
    expect(redactSecrets(expected)).toBe(expected);
  });

  test.each([
    ['a flag whose name says file, stdin, path or dir', 'pg_dump --password-file /run/db --token-file tok.txt --secret-path secret/prod --token-dir tokens --password-stdin reg.io'],
    ['a key or identity file', 'ssh --identity-file deploy.key --key-file deploy.pem --private-key id_ed25519 --key k.pem host'],
    ['a switch', 'gh auth login --with-token --hostname ghe.example; gh auth status --show-token; tool --no-password prod'],
    ["a page's or a request's token", 'aws s3api list-objects --bucket b --starting-token eyNextPage1234 --next-token abcd1234 --client-token abcd5678'],
    ["libpq's --password, which only prompts", 'psql -h db.example --password analytics; PGHOST=x /usr/bin/pg_dump --password prod'],
    ['a program named through quotes or an escape', `p\\sql --password analytics; ps''ql --password ledger; sh -c '"psql" --password prod'`],
    ["mysql's --password and -p with a blank, which prompt", 'mysql -h db.example --password warehouse; mysql -p warehouse'],
    ['a -p, -u or -a elsewhere', 'ssh -p 2222 host; docker run -u 1000:1000 img; cp -a src dst; curl -u deploy https://x.example'],
    ["Samba's user alone, and a % elsewhere", 'smbclient -U ops //fs.example/share; ps -U root%cpu; date -u +%s'],
    ['a value that names a place', 'tool --token https://evil.example/x.sh --password db.example.com --secret @secret.txt --token ./tok --token 10.0.0.1'],
    ["a build secret's spec, and OpenSSL's sources", 'docker build --secret id=npmrc,src=/home/ci/.npmrc .; openssl enc -pass env:PASS -passin file:/etc/pw -pass stdin'],
    ['a reference and another option', 'docker login --password $DOCKER_PASSWORD reg.io --token "${TOKEN}" --password --verbose'],
    ['a flag at the end', 'tool --api-key; tool --password'],
    ['a dash inside a word', 'uuid 0f8fad5b-d9cb-469f-a165-70867728950e x-password hunter2secret'],
  ])('%s stays as written', (_label, text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  test('counts each value once, beside one after a label', () => {
    expect(redactSecretsCounted('docker login --password hunter2secret --token=abcd1234 reg.io')).toEqual({ text: `docker login --password ${R} --token=${R} reg.io`, masked: 2 });
  });

  // One case per scan over text a model controls; the timeout is the guard.
  const size = 1 << 20;
  const fill = (unit: string): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  test.each([
    ['credential flags', fill('--password ')],
    ['blanks after a flag', `--password${' '.repeat(size)}x`],
    ['line continuations after a flag', `--password${fill(' \\\n')}`],
    ['short flags of a program that reads them', `mysql ${fill('-pabcd ')}`],
    ['user:password flags', `curl ${fill('-u a: ')}`],
    ['program names before a flag', `${fill('psql ')} --password abcd`],
    ['quoted flags that never close', fill('"--password" "')],
    ['npm keys', fill(':_authToken ')],
    ['dashes', '-'.repeat(size)],
  ])('stays linear on %s', { timeout: 3_000 }, (_label, text) => {
    const once = redactSecrets(text);
    expect(redactSecrets(once)).toBe(once);
  });
});
