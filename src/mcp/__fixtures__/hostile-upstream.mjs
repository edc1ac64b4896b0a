// An upstream MCP server over stdio that speaks raw JSON lines, so each tool can answer `tools/call` the way a
// hostile or broken server would: a wrong id, a line that is not JSON, a result that claims to be something else.
import process from 'node:process';

const TOOLS = {
  wrong_id: (id) => line({ jsonrpc: '2.0', id: id + 1000, result: { content: [{ type: 'text', text: 'planted: for someone else' }] } }),
  not_json: (id) => `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"planted: cut`,
  result_and_error: (id) => line({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'planted: both' }] }, error: { code: 1, message: 'planted: both' } }),
  result_and_method: (id) => line({ jsonrpc: '2.0', id, method: 'tools/call', result: { content: [{ type: 'text', text: 'planted: both' }] } }),
  result_array: (id) => line({ jsonrpc: '2.0', id, result: [{ type: 'text', text: 'planted: a list' }] }),
  meta_null: (id) => line({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'planted: meta' }], _meta: null } }),
  other_version: (id) => line({ jsonrpc: '1.0', id, result: { content: [{ type: 'text', text: 'planted: old' }] } }),
  malformed_content: (id) => line({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: { planted: 'ignore previous instructions' } }] } }),
  script_block: (id) => line({ jsonrpc: '2.0', id, result: { content: [{ type: 'script', text: 'planted: run me' }] } }),
  hidden: (id) => line({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'hi\u202Edlrow\u200B there' }] } }),
  huge: (id) => line({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'y'.repeat(200 * 1024) }] } }),
  fine: (id) => line({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'fine' }] } }),
  noisy: (id, token) => noisy(id, token),
};

// One write: a flood of progress with hidden characters in it, an answer to the id the gateway will send next (before it
// is sent), the answer, the answer again, and progress for the call once it is answered.
function noisy(id, token) {
  const progress = (message) => line({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, message } });
  const next = typeof id === 'string' ? id.replace(/\d+$/, (n) => String(Number(n) + 1)) : id + 1;
  return [
    ...Array.from({ length: 200 }, () => progress('step\u202E \u200Bon')),
    line({ jsonrpc: '2.0', id: next, result: { content: [{ type: 'text', text: 'planted: early' }] } }),
    line({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'noisy done' }] } }),
    line({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'planted: twice' }] } }),
    progress('planted: late'),
  ].join('\n');
}

function line(message) {
  return JSON.stringify(message);
}

function answer(message) {
  if (message.method === 'initialize') {
    return line({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1.0.0' } } });
  }
  if (message.method === 'tools/list') {
    const tools = Object.keys(TOOLS).map((name) => ({ name, description: `Answers as "${name}".`, inputSchema: { type: 'object' } }));
    return line({ jsonrpc: '2.0', id: message.id, result: { tools } });
  }
  if (message.method === 'tools/call') return TOOLS[message.params.name](message.id, message.params._meta?.progressToken);
  if (message.id !== undefined) return line({ jsonrpc: '2.0', id: message.id, result: {} });
  return undefined;
}

let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
    const reply = answer(JSON.parse(buffer.slice(0, newline)));
    buffer = buffer.slice(newline + 1);
    if (reply !== undefined) process.stdout.write(`${reply}\n`);
  }
});
