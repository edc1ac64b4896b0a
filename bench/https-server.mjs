/**
 * The HTTPS server the node-host bench talks to, in its own process (as a
 * real server would be), so that its TLS and HTTP work neither runs on the
 * client's event loop nor evicts the client's caches. Prints its port.
 *
 * Usage: node https-server.mjs <cert.pem> <key.pem>
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import process from 'node:process';

const [certFile, keyFile] = process.argv.slice(2);
if (certFile === undefined || keyFile === undefined) {
  process.stderr.write('usage: https-server.mjs <cert.pem> <key.pem>\n');
  process.exit(2);
}
const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile), keepAliveTimeout: 60_000 }, (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end('{"ok":true}');
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
// The bench closes stdin when it is done.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
