/**
 * The floor of a stdio proxy that reads every message: like `stdio-relay.mjs`,
 * but each newline-delimited JSON-RPC message is parsed and written again.
 * What a governing proxy costs above this line is neither the process hop
 * nor reading messages, but what it does with them.
 *
 * Usage: node json-relay.mjs <command> [args...]
 */
import { spawn } from 'node:child_process';
import process from 'node:process';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write('usage: json-relay.mjs <command> [args...]\n');
  process.exit(2);
}
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });

/** Call `onMessage` with each parsed line of `stream`. */
function readMessages(stream, onMessage) {
  let buffer = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    buffer += chunk;
    for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim() !== '') onMessage(JSON.parse(line));
    }
  });
}

readMessages(process.stdin, (message) => child.stdin.write(`${JSON.stringify(message)}\n`));
readMessages(child.stdout, (message) => process.stdout.write(`${JSON.stringify(message)}\n`));
// The client closing the relay's stdin closes the upstream's, as it would without a relay.
process.stdin.on('end', () => child.stdin.end());
child.on('exit', (code) => process.exit(code ?? 0));
